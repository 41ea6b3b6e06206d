import { Command } from "@effect/cli"
import { NodeContext } from "@effect/platform-node"
import { ConfigProvider, Effect, Redacted } from "effect"
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { vi } from "vitest"
import { agentProfileCommands } from "../../cli/agent/ProfileCommands.js"
import type { Profile } from "../../cli/agent/Profiles.js"
import { ProjectId } from "../../catalog/domain/Ids.js"

/** A temporary directory (its real path), removed when the scope closes. */
export const tempDir = (prefix: string) =>
  Effect.acquireRelease(
    Effect.sync(() => fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), `trellis-${prefix}-`)))),
    (dir) => Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true }))
  )

/** An environment holding only these variables, so the machine's own TRELLIS_* never leak into a test. */
export const withEnv = (env: Record<string, string>) => Effect.withConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(env))))

export const SECRET = "trellis_0123456789abcdef0123456789abcdef"

export const sampleProfile = (overrides: Partial<Profile> = {}): Profile => ({
  server: "http://127.0.0.1:7420",
  apiKey: Redacted.make(SECRET),
  projectId: ProjectId.generate(),
  projectRef: "MAIN",
  machineName: "test-host",
  paths: [],
  ...overrides
})

const gitEnv = {
  ...process.env,
  GIT_AUTHOR_NAME: "Trellis Test",
  GIT_AUTHOR_EMAIL: "test@trellis.test",
  GIT_COMMITTER_NAME: "Trellis Test",
  GIT_COMMITTER_EMAIL: "test@trellis.test",
  GIT_CONFIG_NOSYSTEM: "1",
  GIT_CONFIG_GLOBAL: "/dev/null",
  GIT_TERMINAL_PROMPT: "0"
}

/** Runs git in `cwd` with a fixed identity and no user or system configuration. */
export const git = (cwd: string, ...args: ReadonlyArray<string>) =>
  Effect.sync(() =>
    execFileSync("git", ["-c", "commit.gpgsign=false", ...args], { cwd, env: gitEnv, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] })
  )

/** A repository at `dir` on branch main with one commit. */
export const makeRepo = (dir: string) =>
  Effect.gen(function*() {
    fs.mkdirSync(dir, { recursive: true })
    yield* git(dir, "init", "-q", "-b", "main")
    fs.writeFileSync(path.join(dir, "README.md"), "# test\n")
    fs.mkdirSync(path.join(dir, "src"))
    fs.writeFileSync(path.join(dir, "src", "index.ts"), "export {}\n")
    yield* git(dir, "add", ".")
    yield* git(dir, "commit", "-q", "-m", "initial")
    return dir
  })

/** Runs `trellis agent …` as the CLI would, with TRELLIS_CONFIG_DIR set, and returns what it printed. */
export const cli = (configDir: string, args: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const agent = Command.make("agent").pipe(Command.withSubcommands(agentProfileCommands))
    const stdout: Array<string> = []
    const stderr: Array<string> = []
    const out = vi.spyOn(console, "log").mockImplementation((...line: Array<unknown>) => void stdout.push(line.join(" ")))
    const err = vi.spyOn(console, "error").mockImplementation((...line: Array<unknown>) => void stderr.push(line.join(" ")))
    const exitCode = process.exitCode
    yield* Command.run(agent, { name: "trellis agent", version: "test" })(["node", "trellis", ...args]).pipe(
      Effect.provide(NodeContext.layer),
      withEnv({ TRELLIS_CONFIG_DIR: configDir }),
      Effect.ensuring(Effect.sync(() => {
        out.mockRestore()
        err.mockRestore()
      }))
    )
    const failed = process.exitCode === 1
    process.exitCode = exitCode
    return { stdout: stdout.join("\n"), stderr: stderr.join("\n"), failed }
  })
