import * as fs from "node:fs"
import * as path from "node:path"
import type { MockModel } from "../mock-model/MockModel.js"

/**
 * OpenCode pointed at the project's mock model (RUNTIMES.md §4.1), as both the real-runtime
 * suites and `npm run record-fixtures` run it: HOME and the XDG dirs under it, switches that keep
 * it offline, and its global config with the mock as an openai-compatible provider.
 */

export const openCodeEnv = (home: string): NodeJS.ProcessEnv => ({
  HOME: home,
  XDG_CONFIG_HOME: path.join(home, ".config"),
  XDG_DATA_HOME: path.join(home, ".local", "share"),
  XDG_CACHE_HOME: path.join(home, ".cache"),
  XDG_STATE_HOME: path.join(home, ".local", "state"),
  OPENCODE_DISABLE_AUTOUPDATE: "1",
  OPENCODE_DISABLE_MODELS_FETCH: "1",
  OPENCODE_DISABLE_SHARE: "1",
  OPENCODE_DISABLE_LSP_DOWNLOAD: "1",
  OPENCODE_ENABLE_QUESTION_TOOL: "1"
})

/** What a user's opencode.json asks about: the recordings ask themselves; Trellis's agent must ask whatever a user set. */
export const ASK_FOR_SHELL_AND_EDITS = { bash: "ask", edit: "ask" } as const
export const ALLOW_EVERYTHING = { bash: "allow", edit: "allow", webfetch: "allow", external_directory: "allow" } as const

/** `~/.config/opencode/opencode.json` under `home`: the mock's one model and `permission`. */
export const writeOpenCodeConfig = (mock: MockModel, home: string, permission: Readonly<Record<string, string>>) => {
  fs.mkdirSync(path.join(home, ".config", "opencode"), { recursive: true })
  fs.writeFileSync(
    path.join(home, ".config", "opencode", "opencode.json"),
    JSON.stringify(
      {
        provider: {
          mock: {
            npm: "@ai-sdk/openai-compatible",
            name: "Mock",
            options: { baseURL: `${mock.url}/v1`, apiKey: "mock" },
            models: { "mock-model": { name: "Mock Model", reasoning: true, tool_call: true, limit: { context: 128000, output: 8192 } } }
          }
        },
        model: "mock/mock-model",
        small_model: "mock/mock-model",
        autoupdate: false,
        share: "disabled",
        permission
      },
      null,
      2
    )
  )
}
