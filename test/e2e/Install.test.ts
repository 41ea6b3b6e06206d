/**
 * The package as a user installs it: `npm pack`, then `npm install --omit=dev` of the tarball into
 * an empty folder. Every command of the installed `trellis` runs, `trellis serve` answers a tool call,
 * and a plain Node program imports the backend Layer and calls a tool in process.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Schema } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { cleanEnv, killEverything, removeTempDirs, repoRoot, runOk, runToEnd, spawnProcess, tempDir } from "./support/Processes.js"

const INSTALL_TIMEOUT = 300_000

const Credentials = Schema.Struct({ apiKey: Schema.String })

describe.sequential("the installed package (npm pack, npm install --omit=dev)", () => {
  let folder = ""
  const trellis = () => path.join(folder, "node_modules", ".bin", "trellis")

  beforeAll(async () => {
    // The tarball carries dist/ as it is (its `prepare` would rebuild dist/ under the other e2e
    // suites' feet), so it must be current.
    const fresh = await runToEnd("build freshness", process.execPath, [
      "--input-type=module",
      "-e",
      "import { isBuildFresh } from './cli/BuildFreshness.js'; process.exit(isBuildFresh('.') ? 0 : 1)"
    ], { cwd: repoRoot, env: cleanEnv({}) })
    if (fresh.code !== 0) throw new Error("dist/ is older than the source: run `npm run build` before this test")

    const packs = tempDir("trellis-pack-")
    const packed = await runOk("npm pack", "npm", ["pack", "--ignore-scripts", "--json", "--pack-destination", packs], {
      cwd: repoRoot,
      env: cleanEnv({})
    })
    const [tarball] = Schema.decodeUnknownSync(Schema.parseJson(Schema.Array(Schema.Struct({ filename: Schema.String }))))(packed)
    if (tarball === undefined) throw new Error(`npm pack wrote no tarball: ${packed}`)

    folder = tempDir("trellis-install-")
    fs.writeFileSync(path.join(folder, "package.json"), JSON.stringify({ name: "installs-trellis", private: true, type: "module" }))
    await runOk("npm install", "npm", [
      "install",
      "--omit=dev",
      "--prefer-offline",
      "--no-audit",
      "--no-fund",
      path.join(packs, tarball.filename)
    ], { cwd: folder, env: cleanEnv({}) })
  }, INSTALL_TIMEOUT)

  afterAll(async () => {
    await killEverything()
    await removeTempDirs()
  })

  it("ships the compiled code, the CLI's bundle, and no TypeScript source", () => {
    const installed = path.join(folder, "node_modules", "trellis")
    expect(fs.existsSync(path.join(installed, "dist", "bundle", "main.js"))).toBe(true)
    expect(fs.existsSync(path.join(installed, "dist", "src", "index.d.ts"))).toBe(true)
    // The embedded database's first cluster, made by the build: a first `trellis serve` copies it rather than running initdb.
    expect(fs.existsSync(path.join(installed, "dist", "pglite-cluster", "PG_VERSION"))).toBe(true)
    expect(fs.existsSync(path.join(installed, "src"))).toBe(false)
    expect(fs.existsSync(path.join(installed, "node_modules", "tsx")) || fs.existsSync(path.join(folder, "node_modules", "tsx"))).toBe(
      false
    )
  })

  it("every command's help runs (each loads its modules: the agent's runtimes included)", async () => {
    for (const command of [[], ["serve"], ["admin"], ["agent"], ["agent", "start"], ["docs"]]) {
      const result = await runToEnd(`trellis ${command.join(" ")} --help`, trellis(), [...command, "--help"], {
        cwd: folder,
        env: cleanEnv({ TRELLIS_HOME: tempDir("trellis-installed-home-") })
      })
      expect(result.stderr, command.join(" ")).toBe("")
      expect(result.code, `${command.join(" ")}\n${result.stdout}`).toBe(0)
      expect(result.stdout, command.join(" ")).toContain(`$ ${command.at(-1) ?? "trellis"}`)
    }
  }, INSTALL_TIMEOUT)

  it("trellis serve starts on the embedded database from the shipped cluster, answers a tool call and serves the web app", async () => {
    const home = tempDir("trellis-installed-home-")
    const serve = spawnProcess("installed trellis serve", trellis(), ["serve"], {
      cwd: folder,
      env: cleanEnv({ TRELLIS_HOME: home, TRELLIS_PORT: "0" })
    })
    await serve.waitForStdout("the serve banner", (out) => /Credentials: .*\n/.test(out), 60_000)
    const endpoint = /MCP endpoint: (\S+)\n/.exec(serve.stdout)?.[1]
    if (endpoint === undefined) throw new Error(`trellis serve printed no MCP endpoint\n${serve.describe()}`)
    const { apiKey } = Schema.decodeUnknownSync(Schema.parseJson(Credentials))(fs.readFileSync(path.join(home, "credentials.json"), "utf8"))
    // Its databases are the shipped cluster's: initdb would have made template0 and template1 beside them.
    const shipped = path.join(folder, "node_modules", "trellis", "dist", "pglite-cluster", "base")
    expect(fs.readdirSync(path.join(home, "data", "base")).sort()).toEqual(fs.readdirSync(shipped).sort())
    const response = await fetch(endpoint, {
      method: "POST",
      headers: { Authorization: `Bearer ${apiKey}`, "Content-Type": "application/json", Accept: "application/json, text/event-stream" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "list_projects", arguments: {} } })
    })
    expect(response.status).toBe(200)
    expect(await response.json()).toMatchObject({ result: { structuredContent: { projects: [{ ref: "DEMO" }] } } })
    // The web app ships built: its shell at /, and the bundle it names.
    const shell = await fetch(new URL("/", endpoint))
    expect(shell.status).toBe(200)
    const html = await shell.text()
    const bundle = /src="(\/assets\/[^"]+\.js)"/.exec(html)?.[1]
    if (bundle === undefined) throw new Error(`the shell names no bundle:\n${html}`)
    expect((await fetch(new URL(bundle, endpoint))).status).toBe(200)
    await serve.killTree()
  }, INSTALL_TIMEOUT)

  it("a plain Node program imports the backend Layer and calls a tool in process", async () => {
    const program = path.join(folder, "embed.mjs")
    fs.writeFileSync(
      program,
      `
import { Effect, Layer, Option } from "effect"
import { ApiKeys, bootstrap, CurrentPrincipal, DefaultProject, PgliteClient, ToolRunner, Trellis } from "trellis"

const program = Effect.gen(function* () {
  const created = yield* bootstrap
  const { apiKey } = Option.getOrThrow(created)
  const principal = yield* (yield* ApiKeys).authenticate(apiKey)
  return yield* (yield* ToolRunner).call("list_projects", {}).pipe(
    Effect.provideService(CurrentPrincipal, principal),
    Effect.provideService(DefaultProject, null)
  )
})

const result = await Effect.runPromise(program.pipe(
  Effect.provide(Trellis.services({ rateLimit: Option.none() }).pipe(Layer.provideMerge(PgliteClient.layer({}))))
))
console.log(JSON.stringify(result))
`
    )
    const output = await runOk("node embed.mjs", process.execPath, [program], { cwd: folder, env: cleanEnv({}) })
    expect(JSON.parse(output)).toMatchObject({ projects: [{ ref: "DEMO" }] })
  }, INSTALL_TIMEOUT)
})
