import { describe, expect, it } from "@effect/vitest"
import * as esbuild from "esbuild"
import { fileURLToPath } from "node:url"

/** `trellis agent` stands on the contract (catalog/) alone: nothing of the server is loaded to run agents. */
describe("the agent's layer", () => {
  it("cli/agent imports the contract and libraries, no module of src/", async () => {
    const result = await esbuild.build({
      entryPoints: [fileURLToPath(new URL("../../../cli/agent/AgentCommands.ts", import.meta.url))],
      absWorkingDir: fileURLToPath(new URL("../../..", import.meta.url)),
      bundle: true,
      platform: "node",
      format: "esm",
      packages: "external",
      write: false,
      metafile: true,
      logLevel: "silent"
    })
    const inputs = Object.keys(result.metafile.inputs)
    expect(inputs.filter((input) => input.startsWith("cli/agent/")).length).toBeGreaterThan(20)
    expect(inputs.filter((input) => !input.startsWith("cli/agent/") && !input.startsWith("catalog/"))).toEqual([])
  }, 60_000)
})
