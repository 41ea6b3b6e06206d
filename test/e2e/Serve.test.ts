/**
 * End to end: `trellis serve` and `trellis admin` as real child processes sharing one
 * TRELLIS_HOME (embedded PGlite), reached over HTTP by the official MCP SDK client.
 * The steps run in order and share state (the home directory, keys, the running server).
 */
import { afterAll, describe, expect, it } from "@effect/vitest"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport, StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { type ChildProcess, spawn } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { Catalog } from "../../catalog/index.js"
import { runtimeBinaries } from "../support/runtimes/RuntimeBinaries.js"

const repoRoot = fileURLToPath(new URL("../..", import.meta.url))
const STEP_TIMEOUT = 90_000
const START_TIMEOUT = 60_000
const STOP_TIMEOUT = 10_000
const ADMIN_TIMEOUT = 60_000

const BUILT_IN_TASK_TYPES = ["task", "bug", "feature", "epic", "investigation", "chore", "idea"]
const TOOL_NAMES = Catalog.map((tool) => tool.name).sort()
const KEY_PATTERN = /trellis_[A-Za-z0-9_-]+/

// ---------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------

/** The CLI's environment: this test's home, the embedded database, nothing inherited that would redirect it. */
const cliEnv = (home: string): NodeJS.ProcessEnv => {
  const env: NodeJS.ProcessEnv = { ...process.env, TRELLIS_HOME: home, TRELLIS_RATE_LIMIT: "off" }
  for (const name of ["DATABASE_URL", "TRELLIS_HOST", "TRELLIS_PORT", "TRELLIS_PUBLIC_URL", "TRELLIS_ALLOWED_ORIGINS"]) {
    delete env[name]
  }
  return env
}

interface Exit {
  readonly code: number | null
  readonly signal: NodeJS.Signals | null
}

const exitOf = (child: ChildProcess): Promise<Exit> =>
  new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) {
      resolve({ code: child.exitCode, signal: child.signalCode })
    } else {
      child.once("exit", (code, signal) => resolve({ code, signal }))
    }
  })

const withTimeout = <A>(promise: Promise<A>, ms: number, describeFailure: () => string): Promise<A> => {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(describeFailure())), ms)
  })
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer))
}

interface Serve {
  readonly child: ChildProcess
  readonly pid: number
  /** The MCP URL printed on the `MCP endpoint:` line. */
  readonly mcpUrl: string
  readonly baseUrl: string
  readonly stdout: () => string
  readonly stderr: () => string
  readonly exit: Promise<Exit>
}

const running = new Set<ChildProcess>()

/**
 * Starts `trellis serve` and waits (60 s at most) until its banner is complete: the
 * `MCP endpoint:` line, then the `Credentials:` line (printed once credentials.json is
 * written) and, on a first start, the `claude mcp add` line.
 */
const startServe = async (home: string, port: number): Promise<Serve> => {
  const child = spawn(process.execPath, ["cli/bin.js", "serve", "--host", "127.0.0.1", "--port", String(port)], {
    cwd: repoRoot,
    env: cliEnv(home),
    stdio: ["ignore", "pipe", "pipe"]
  })
  running.add(child)
  const exit = exitOf(child)
  void exit.then(() => running.delete(child))
  let stdout = ""
  let stderr = ""
  child.stdout?.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk))
  child.stderr?.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk))
  const output = () => `stdout:\n${stdout}\nstderr:\n${stderr}`

  const ready = new Promise<string>((resolve, reject) => {
    const check = () => {
      const endpoint = /MCP endpoint: (\S+)\n/.exec(stdout)
      const credentialsLine = /Credentials: (.*)\n/.exec(stdout)
      // A first start ends its banner with the `claude mcp add` line.
      const complete = credentialsLine?.[1]?.includes("(new:") === true ? /claude mcp add .*\n/.test(stdout) : true
      if (endpoint?.[1] !== undefined && credentialsLine !== null && complete) resolve(endpoint[1])
    }
    child.stdout?.on("data", check)
    void exit.then(({ code, signal }) =>
      reject(new Error(`trellis serve exited (code ${code}, signal ${signal}) before it was ready\n${output()}`))
    )
  })
  try {
    const mcpUrl = await withTimeout(
      ready,
      START_TIMEOUT,
      () => `trellis serve did not print "MCP endpoint:" within ${START_TIMEOUT / 1000} s\n${output()}`
    )
    if (child.pid === undefined) throw new Error("trellis serve has no pid")
    return {
      child,
      pid: child.pid,
      mcpUrl,
      baseUrl: new URL(mcpUrl).origin,
      stdout: () => stdout,
      stderr: () => stderr,
      exit
    }
  } catch (error) {
    child.kill("SIGKILL")
    throw error
  }
}

/** SIGTERM, then the exit (10 s at most). */
const stopServe = async (serve: Serve): Promise<Exit> => {
  serve.child.kill("SIGTERM")
  return withTimeout(
    serve.exit,
    STOP_TIMEOUT,
    () => `trellis serve did not exit within ${STOP_TIMEOUT / 1000} s of SIGTERM\nstdout:\n${serve.stdout()}\nstderr:\n${serve.stderr()}`
  )
}

interface AdminResult {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

/** Runs `trellis admin <args>` to completion. */
const runAdmin = async (home: string, args: ReadonlyArray<string>): Promise<AdminResult> => {
  const child = spawn(process.execPath, ["cli/bin.js", "admin", ...args], {
    cwd: repoRoot,
    env: cliEnv(home),
    stdio: ["ignore", "pipe", "pipe"]
  })
  running.add(child)
  let stdout = ""
  let stderr = ""
  child.stdout?.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk))
  child.stderr?.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk))
  const exit = exitOf(child).finally(() => running.delete(child))
  try {
    const { code } = await withTimeout(
      exit,
      ADMIN_TIMEOUT,
      () => `trellis admin ${args.join(" ")} did not finish within ${ADMIN_TIMEOUT / 1000} s\nstdout:\n${stdout}\nstderr:\n${stderr}`
    )
    return { code, stdout, stderr }
  } catch (error) {
    child.kill("SIGKILL")
    throw error
  }
}

/** Runs an admin command that must succeed with `--json`, returning its parsed output. */
const adminJson = async <A>(home: string, args: ReadonlyArray<string>): Promise<A> => {
  const result = await runAdmin(home, [...args, "--json"])
  expect(result.code, `trellis admin ${args.join(" ")} --json\nstdout:\n${result.stdout}\nstderr:\n${result.stderr}`).toBe(0)
  return JSON.parse(result.stdout) as A
}

/** An MCP SDK client connected with a bearer key. */
const connect = async (mcpUrl: string, apiKey: string): Promise<Client> => {
  const client = new Client({ name: "trellis-e2e", version: "0.0.0" })
  const transport = new StreamableHTTPClientTransport(new URL(mcpUrl), {
    requestInit: { headers: { Authorization: `Bearer ${apiKey}` } }
  })
  await client.connect(transport)
  return client
}

const withClient = async <A>(mcpUrl: string, apiKey: string, use: (client: Client) => Promise<A>): Promise<A> => {
  const client = await connect(mcpUrl, apiKey)
  try {
    return await use(client)
  } finally {
    await client.close()
  }
}

type CallResult = Awaited<ReturnType<Client["callTool"]>>

const textOf = (result: CallResult): string =>
  (result.content as ReadonlyArray<{ type: string; text?: string }>)
    .map((part) => (part.type === "text" ? part.text ?? "" : ""))
    .join("\n")

interface ProjectSummary {
  readonly projectId: string
  readonly name: string
  readonly ref: string
  readonly organization: { readonly organizationId: string; readonly slug: string; readonly name: string }
  readonly role: string
  readonly createdAt: string
  readonly updatedAt: string
}

const listProjects = async (client: Client): Promise<ReadonlyArray<ProjectSummary>> => {
  const result = await client.callTool({ name: "list_projects", arguments: {} })
  expect(result.isError ?? false, textOf(result)).toBe(false)
  return (result.structuredContent as { projects: ReadonlyArray<ProjectSummary> }).projects
}

const listTaskTypeKeys = async (client: Client): Promise<ReadonlyArray<string>> => {
  const result = await client.callTool({ name: "list_task_types", arguments: {} })
  expect(result.isError ?? false, textOf(result)).toBe(false)
  const { taskTypes } = result.structuredContent as {
    taskTypes: ReadonlyArray<{ key: string; name: string; builtIn: boolean }>
  }
  for (const type of taskTypes) {
    expect(type.name).not.toBe("")
  }
  return taskTypes.filter((type) => type.builtIn).map((type) => type.key)
}

/** A raw MCP `initialize` POST, for checking the HTTP layer the SDK hides. */
const rawInitialize = (mcpUrl: string, apiKey: string) =>
  fetch(mcpUrl, {
    method: "POST",
    headers: {
      authorization: `Bearer ${apiKey}`,
      "content-type": "application/json",
      accept: "application/json, text/event-stream"
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "0" } }
    })
  })

/** The key is refused: the SDK cannot connect (HTTP 401), and a raw POST gets 401 with a Bearer challenge. */
const expectRefused = async (mcpUrl: string, apiKey: string) => {
  const attempt = connect(mcpUrl, apiKey)
  await expect(attempt).rejects.toBeInstanceOf(StreamableHTTPError)
  await expect(attempt).rejects.toMatchObject({ code: 401 })

  const response = await rawInitialize(mcpUrl, apiKey)
  expect(response.status).toBe(401)
  expect(response.headers.get("www-authenticate") ?? "").toMatch(/^Bearer\b/)
  const body = (await response.json()) as { jsonrpc: string; id: unknown; error?: { code: number; message: string } }
  expect(body.jsonrpc).toBe("2.0")
  expect(body.error?.code).toBe(-32001)
}

// ---------------------------------------------------------------------------
// The scenario
// ---------------------------------------------------------------------------

interface Credentials {
  readonly url: string
  readonly apiKey: string
  readonly organization: string
  readonly projectId: string
  readonly projectRef: string
  readonly userId: string
}

interface CreatedKey {
  readonly apiKeyId: string
  readonly apiKey: string
  readonly userId: string
  readonly name: string
  readonly projectIds: ReadonlyArray<string> | null
  readonly readOnly: boolean
}

describe.sequential("trellis serve + admin, end to end (embedded database)", () => {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), "trellis-e2e-"))
  const credentialsFile = path.join(home, "credentials.json")
  const lockFile = path.join(home, "data.lock")

  let port = 0
  let serve: Serve | undefined
  let credentials: Credentials | undefined
  let adminKey: CreatedKey | undefined
  let narrowedKey: CreatedKey | undefined
  let readOnlyKey: CreatedKey | undefined
  let otherProjectId: string | undefined

  const current = (): Serve => {
    if (serve === undefined) throw new Error("an earlier step did not leave trellis serve running")
    return serve
  }
  const creds = (): Credentials => {
    if (credentials === undefined) throw new Error("an earlier step did not read credentials.json")
    return credentials
  }
  const key = (created: CreatedKey | undefined): CreatedKey => {
    if (created === undefined) throw new Error("an earlier step did not create this key")
    return created
  }

  afterAll(async () => {
    const children = [...running]
    for (const child of children) child.kill("SIGKILL")
    await Promise.all(children.map(exitOf))
    fs.rmSync(home, { recursive: true, force: true })
  }, 30_000)

  it(
    "first start bootstraps the demo org, prints the MCP URL and a connect line, writes credentials.json (0600), and is healthy",
    async () => {
      // The server binds a port of its own pick (0) and says which; restarts reuse it (credentials.json names it).
      serve = await startServe(home, 0)
      port = Number(new URL(serve.mcpUrl).port)
      const stdout = serve.stdout()

      expect(port).toBeGreaterThan(0)
      expect(serve.mcpUrl).toBe(`http://127.0.0.1:${port}/api/mcp`)
      expect(stdout).toContain(`MCP endpoint: ${serve.mcpUrl}`)
      expect(stdout).toContain(`Credentials:  ${credentialsFile}`)
      const connectLine = new RegExp(
        `claude mcp add --transport http trellis ${
          serve.mcpUrl.replace(/[.]/g, "\\.")
        } --header "Authorization: Bearer (trellis_[A-Za-z0-9_-]+)"`
      ).exec(stdout)
      expect(connectLine, stdout).not.toBeNull()

      expect(fs.existsSync(credentialsFile)).toBe(true)
      expect(fs.statSync(credentialsFile).mode & 0o777).toBe(0o600)
      credentials = JSON.parse(fs.readFileSync(credentialsFile, "utf8")) as Credentials
      expect(credentials).toEqual({
        url: serve.mcpUrl,
        apiKey: expect.stringMatching(/^trellis_/),
        organization: "demo",
        projectId: expect.stringMatching(/^proj_/),
        projectRef: "DEMO",
        userId: expect.any(String)
      })
      expect(connectLine?.[1]).toBe(credentials.apiKey)

      const health = await fetch(`${serve.baseUrl}/health`)
      expect(health.status).toBe(200)
      expect(await health.json()).toEqual({ status: "ok", database: "ok" })
    },
    STEP_TIMEOUT
  )

  it("admin refuses to open the embedded database while serve holds it, naming the holder and DATABASE_URL", async () => {
    const { pid } = current()
    // cli/bin.js starts the server as its own child, with its heap settings: that child holds the database.
    const [holder] = fs.readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").trim().split(" ")
    const result = await runAdmin(home, ["key", "create", "--json"])
    expect(result.code, `stdout:\n${result.stdout}\nstderr:\n${result.stderr}`).toBe(1)
    expect(result.stderr).toContain(`in use by process ${holder}`)
    expect(result.stderr).toContain("DATABASE_URL")
    expect(result.stdout).not.toMatch(KEY_PATTERN)
    // The running server is unaffected.
    expect((await fetch(`${current().baseUrl}/health`)).status).toBe(200)
  }, STEP_TIMEOUT)

  it("the server runs as its launcher's child with small V8 heaps and glibc's large blocks handed back to the OS", async () => {
    const { pid } = current()
    const [server] = fs.readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").trim().split(" ")
    const argv = fs.readFileSync(`/proc/${server}/cmdline`, "utf8").split("\0")
    const environ = fs.readFileSync(`/proc/${server}/environ`, "utf8").split("\0")
    expect(argv).toEqual(expect.arrayContaining(["--max-semi-space-size=4", "--heap-growing-percent=40", "serve"]))
    expect(environ).toContain("GLIBC_TUNABLES=glibc.malloc.mmap_threshold=131072")
  }, STEP_TIMEOUT)

  it("the MCP SDK client connects with the bootstrap key, lists the catalog's tools with schemas, and calls them", async () => {
    await withClient(current().mcpUrl, creds().apiKey, async (client) => {
      const { tools } = await client.listTools()
      expect(tools.map((tool) => tool.name).sort()).toEqual(TOOL_NAMES)
      for (const tool of tools) {
        expect(tool.inputSchema.type, tool.name).toBe("object")
        // Tools whose result may be null (update_prompt, load_skill…) have no outputSchema: structuredContent is an object.
        if (tool.outputSchema !== undefined) expect(tool.outputSchema.type, tool.name).toBe("object")
      }
      expect(tools.filter((tool) => tool.outputSchema === undefined).map((tool) => tool.name).sort()).toEqual(
        ["delete_skill", "load_skill", "read_skill_file", "update_project_agent", "update_prompt"]
      )

      expect([...(await listTaskTypeKeys(client))].sort()).toEqual([...BUILT_IN_TASK_TYPES].sort())

      const projects = await listProjects(client)
      expect(projects).toHaveLength(1)
      expect(projects[0]).toMatchObject({
        projectId: creds().projectId,
        name: "Demo",
        ref: "DEMO",
        organization: { slug: "demo" },
        role: "admin"
      })

      const bad = await client.callTool({ name: "list_projects", arguments: { bogus: 1 } })
      expect(bad.isError).toBe(true)
      expect(textOf(bad)).toContain("bogus")
      expect(bad.structuredContent).toMatchObject({
        error: { code: "invalid_argument", message: expect.stringContaining("bogus") }
      })
    })
  }, STEP_TIMEOUT)

  it("Claude Code's `claude mcp list` reports the server connected, with the key in its config (never on a command line)", async () => {
    const claude = runtimeBinaries().claude
    expect(claude, "the pinned Claude Code binary").toBeDefined()
    const claudeHome = fs.mkdtempSync(path.join(os.tmpdir(), "trellis-claude-home-"))
    try {
      const url = `${current().mcpUrl}?project=${creds().projectId}`
      fs.writeFileSync(
        path.join(claudeHome, ".claude.json"),
        JSON.stringify({
          hasCompletedOnboarding: true,
          mcpServers: { trellis: { type: "http", url, headers: { Authorization: `Bearer ${creds().apiKey}` } } }
        }),
        { mode: 0o600 }
      )
      const listed = await new Promise<string>((resolve, reject) => {
        const child = spawn(claude ?? "claude", ["mcp", "list"], {
          cwd: claudeHome,
          env: {
            PATH: process.env["PATH"] ?? "",
            HOME: claudeHome,
            CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
            DISABLE_AUTOUPDATER: "1",
            DISABLE_TELEMETRY: "1"
          }
        })
        let output = ""
        child.stdout.on("data", (chunk: Buffer) => {
          output += chunk.toString()
        })
        child.stderr.on("data", (chunk: Buffer) => {
          output += chunk.toString()
        })
        child.on("error", reject)
        child.on("exit", () => resolve(output))
      })
      expect(listed).toMatch(/trellis: .* \(HTTP\) - ✔ Connected/)
    } finally {
      fs.rmSync(claudeHome, { recursive: true, force: true })
    }
  }, STEP_TIMEOUT)

  it("SIGTERM shuts serve down gracefully within 10 s and removes the lock file", async () => {
    expect(fs.existsSync(lockFile)).toBe(true)
    const exit = await stopServe(current())
    serve = undefined
    // Graceful: exit code 0, or (if Node re-raises it after cleanup) the signal itself.
    expect(exit.code === 0 || exit.signal === "SIGTERM", JSON.stringify(exit)).toBe(true)
    expect(fs.existsSync(lockFile)).toBe(false)
  }, STEP_TIMEOUT)

  it("with serve stopped, admin creates keys, including one narrowed to a project", async () => {
    adminKey = await adminJson<CreatedKey>(home, ["key", "create"])
    expect(adminKey).toMatchObject({
      apiKeyId: expect.stringMatching(/^key_/),
      apiKey: expect.stringMatching(/^trellis_/),
      userId: creds().userId,
      projectIds: null
    })
    expect(adminKey.apiKey).not.toBe(creds().apiKey)

    // A second project, so that narrowing is visible.
    const other = await adminJson<{ projectId: string }>(home, ["project", "create", "--org", "demo", "--name", "Other", "--ref", "OTHER"])
    expect(other.projectId).toMatch(/^proj_/)
    otherProjectId = other.projectId

    narrowedKey = await adminJson<CreatedKey>(home, ["key", "create", "--projects", creds().projectId])
    expect(narrowedKey).toMatchObject({
      apiKeyId: expect.stringMatching(/^key_/),
      apiKey: expect.stringMatching(/^trellis_/),
      userId: creds().userId,
      projectIds: [creds().projectId]
    })

    readOnlyKey = await adminJson<CreatedKey>(home, ["key", "create", "--read-only", "--name", "reader"])
    expect(readOnlyKey).toMatchObject({ apiKeyId: expect.stringMatching(/^key_/), readOnly: true, projectIds: null })
    expect(adminKey).toMatchObject({ readOnly: false })

    const { keys } = await adminJson<{ keys: ReadonlyArray<{ apiKeyId: string; readOnly: boolean; revokedAt: string | null }> }>(home, [
      "key",
      "list"
    ])
    expect(keys.map((k) => k.apiKeyId)).toEqual(expect.arrayContaining([adminKey.apiKeyId, narrowedKey.apiKeyId, readOnlyKey.apiKeyId]))
    expect(keys.filter((k) => k.readOnly).map((k) => k.apiKeyId)).toEqual([readOnlyKey.apiKeyId])
    expect(keys).toHaveLength(4)
    expect(fs.existsSync(lockFile)).toBe(false)
  }, STEP_TIMEOUT)

  it(
    "a second start reuses the database: prints the credentials path but no key, serves the new keys, and refuses a wrong key with 401",
    async () => {
      serve = await startServe(home, port)
      const stdout = serve.stdout()
      expect(stdout).toContain(`MCP endpoint: ${creds().url}`)
      expect(stdout).toContain(`Credentials:  ${credentialsFile}`)
      expect(stdout).not.toMatch(KEY_PATTERN)
      expect(stdout).not.toContain("claude mcp add")
      // The web app's address and a fresh one-time link for the stored key (its token, never the key).
      expect(stdout).toContain(`Web app:      ${serve.baseUrl}/`)
      expect(stdout).toMatch(new RegExp(`Sign in: +${serve.baseUrl}/signin\\?token=[\\w-]{43} \\(one use, 10 minutes\\)\n`))
      // credentials.json is left as the first start wrote it.
      expect(JSON.parse(fs.readFileSync(credentialsFile, "utf8"))).toEqual(creds())

      await withClient(serve.mcpUrl, key(adminKey).apiKey, async (client) => {
        const { tools } = await client.listTools()
        expect(tools.map((tool) => tool.name).sort()).toEqual(TOOL_NAMES)
        expect([...(await listTaskTypeKeys(client))].sort()).toEqual([...BUILT_IN_TASK_TYPES].sort())
        expect((await listProjects(client)).map((project) => project.ref).sort()).toEqual(["DEMO", "OTHER"])
      })

      await withClient(serve.mcpUrl, key(narrowedKey).apiKey, async (client) => {
        const projects = await listProjects(client)
        expect(projects.map((project) => project.projectId)).toEqual([creds().projectId])
        expect(projects.map((project) => project.projectId)).not.toContain(otherProjectId)
        expect([...(await listTaskTypeKeys(client))].sort()).toEqual([...BUILT_IN_TASK_TYPES].sort())
      })

      // The key created --read-only is served the read-only tools only, and a write is refused.
      await withClient(serve.mcpUrl, key(readOnlyKey).apiKey, async (client) => {
        const { tools } = await client.listTools()
        expect(tools.length).toBeGreaterThan(0)
        expect(tools.filter((tool) => tool.annotations?.readOnlyHint !== true)).toEqual([])
        expect((await listProjects(client)).length).toBe(2)
        await expect(client.callTool({ name: "create_task", arguments: { projectId: creds().projectId, title: "No" } }))
          .rejects.toThrow(/create_task writes, and this API key is read-only/)
      })

      await expectRefused(serve.mcpUrl, "trellis_this-key-does-not-exist")
    },
    STEP_TIMEOUT
  )

  it("a key revoked with admin (serve stopped) is refused with 401 after the next start", async () => {
    const exit = await stopServe(current())
    serve = undefined
    expect(exit.code === 0 || exit.signal === "SIGTERM", JSON.stringify(exit)).toBe(true)

    const revoked = await adminJson<{ apiKeyId: string; revoked: boolean }>(home, ["key", "revoke", "--id", key(adminKey).apiKeyId])
    expect(revoked).toEqual({ apiKeyId: key(adminKey).apiKeyId, revoked: true })

    const { keys } = await adminJson<{ keys: ReadonlyArray<{ apiKeyId: string; revokedAt: string | null }> }>(home, ["key", "list"])
    expect(keys.find((k) => k.apiKeyId === key(adminKey).apiKeyId)?.revokedAt).toEqual(expect.any(String))
    expect(keys.find((k) => k.apiKeyId === key(narrowedKey).apiKeyId)?.revokedAt).toBeNull()

    serve = await startServe(home, port)
    await expectRefused(serve.mcpUrl, key(adminKey).apiKey)
    // Other keys keep working.
    await withClient(serve.mcpUrl, creds().apiKey, async (client) => {
      expect((await listProjects(client)).length).toBe(2)
    })
  }, STEP_TIMEOUT)
})
