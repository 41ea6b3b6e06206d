/**
 * End to end: `trellis serve` (embedded database) and `trellis agent start` as real child
 * processes, the replay runtime as `claude`, and the official MCP SDK client creating threads,
 * sending messages and reading them back — plus the thread's SSE event stream. Failures are
 * real ones: SIGKILLed backends and CLIs, SIGTERM shutdowns, git worktrees from a remote.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "@effect/vitest"
import { Schema } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { eventually, isAlive, killEverything, killPid, removeTempDirs, repoRoot, tempDir } from "./support/Processes.js"
import {
  Agent,
  agentEnv,
  type CliProfile,
  flagValue,
  git,
  gitRepo,
  invocations,
  Mcp,
  type Message,
  messagesOf,
  Profiles,
  readEvents,
  replayBin,
  Sent,
  type Serve,
  startAgent,
  startServe,
  Thread,
  trellis,
  trellisOk
} from "./support/Trellis.js"

const TEST_TIMEOUT = 90_000

/** Short bridge timings for the server where a dead CLI's lease must run out during the test. */
const SHORT_TIMINGS = {
  TRELLIS_CLAIM_LEASE_MS: "3000",
  TRELLIS_SESSION_TTL_MS: "4000",
  TRELLIS_HEARTBEAT_INTERVAL_MS: "1000",
  TRELLIS_SWEEP_INTERVAL_MS: "500"
}

// ---- per-test cleanup ----------------------------------------------------------------------------

const finalizers: Array<() => Promise<void> | void> = []
const defer = (finalizer: () => Promise<void> | void) => {
  finalizers.push(finalizer)
}

afterEach(async () => {
  for (const finalizer of finalizers.splice(0).reverse()) await finalizer()
}, 30_000)

// ---- a machine: a config dir with a profile, a checkout, and the agent's environment -----------

interface Machine {
  readonly name: string
  readonly configDir: string
  readonly checkout: string
  readonly argsLog: string
  readonly env: NodeJS.ProcessEnv
}

let bin = ""

/** `trellis agent login` into `configDir` (the profile is named `e2e`, the default). */
const login = (serve: Serve, configDir: string, name = "e2e") =>
  trellisOk(
    [
      "agent",
      "login",
      "--server",
      serve.baseUrl,
      "--project",
      serve.credentials.projectRef,
      "--name",
      name,
      "--machine-name",
      `e2e-${name}`
    ],
    repoRoot,
    agentEnv(configDir, bin, { TRELLIS_API_KEY: serve.credentials.apiKey })
  )

/** Each server's logged-in config dir: a machine starts from a copy of its profiles file (one login per server). */
const loggedIn = new Map<Serve, string>()

/**
 * A fresh config dir holding the server's profile (not yet registered: its first start creates a
 * profile of its own on the server), and `trellis agent paths add` of `checkout` (a new repository unless given).
 */
const machine = async (serve: Serve, name: string, knobs: NodeJS.ProcessEnv = {}, existingCheckout?: string): Promise<Machine> => {
  const template = loggedIn.get(serve)
  if (template === undefined) throw new Error("no login for this server")
  const root = tempDir(`trellis-e2e-${name}-`)
  const configDir = path.join(root, "config")
  fs.mkdirSync(configDir, { mode: 0o700 })
  fs.copyFileSync(path.join(template, "profiles.json"), path.join(configDir, "profiles.json"))
  const checkout = existingCheckout ?? (await gitRepo(path.join(root, "checkout")))
  const argsLog = path.join(root, "runtime-args.jsonl")
  const env = agentEnv(configDir, bin, { ...knobs, REPLAY_ARGS_LOG: argsLog })
  await trellisOk(["agent", "paths", "add"], checkout, env)
  defer(() => {
    for (const invocation of invocations(argsLog)) killPid(invocation.pid)
  })
  return { name, configDir, checkout, argsLog, env }
}

/** `trellis agent start` for the machine, SIGKILLed (its whole group) at the end of the test if still running. */
const start = async (m: Machine, extraArgs: ReadonlyArray<string> = [], env: NodeJS.ProcessEnv = m.env): Promise<Agent> => {
  const agent = await startAgent(m.checkout, env, extraArgs)
  defer(async () => {
    await agent.proc.killTree()
  })
  return agent
}

const SavedProfileId = Schema.parseJson(Schema.Struct({
  profiles: Schema.Struct({ e2e: Schema.Struct({ profileId: Schema.String }) })
}))

/** The machine's profile on the server (the ID its first registration saved) once its CLI is online. */
const onlineProfile = async (mcp: Mcp, serve: Serve, m: Machine, agent?: Agent): Promise<CliProfile> => {
  const { profileId } =
    Schema.decodeUnknownSync(SavedProfileId)(fs.readFileSync(path.join(m.configDir, "profiles.json"), "utf8")).profiles.e2e
  const found = await eventually(
    `profile ${profileId} to be online`,
    async () => {
      const { profiles } = await mcp.call(Profiles, "list_cli_profiles", { projectId: serve.credentials.projectId })
      return profiles.filter((p) => p.profileId === profileId && p.isOnline)
    },
    (online) => online.length === 1,
    30_000,
    () => agent?.proc.describe() ?? ""
  )
  const [profile] = found
  if (profile === undefined) throw new Error(`profile ${profileId} is not online`)
  return profile
}

const checkoutPathId = (profile: CliProfile, checkout: string): string => {
  const entry = profile.paths.find((p) => p.kind === "checkout" && p.path === checkout)
  if (entry === undefined) throw new Error(`${checkout} is not among the profile's paths: ${JSON.stringify(profile.paths)}`)
  return entry.pathId
}

const createThread = async (mcp: Mcp, profile: CliProfile, pathId: string, content: string, extra: Record<string, unknown> = {}) =>
  (await mcp.call(Thread, "create_thread", { content, profileId: profile.profileId, pathId, cliType: "claude", ...extra })).threadId

const getThread = (mcp: Mcp, threadId: string) => mcp.call(Thread, "get_thread", { threadId })

/** `POST /api/threads/:id/retry` with the key. */
const retry = (serve: Serve, threadId: string) =>
  fetch(`${serve.baseUrl}/api/threads/${threadId}/retry`, {
    method: "POST",
    headers: { authorization: `Bearer ${serve.credentials.apiKey}` }
  })

const assistants = (messages: ReadonlyArray<Message>) => messages.filter((m) => m.role === "assistant")

/** A run whose runtime prints its answer, then hangs without writing more: the batch streams until stopped. */
const hangingRun = async (mcp: Mcp, serve: Serve, name: string, content: string) => {
  const m = await machine(serve, name, { REPLAY_HANG: "1" })
  const agent = await start(m)
  const profile = await onlineProfile(mcp, serve, m, agent)
  const threadId = await createThread(mcp, profile, checkoutPathId(profile, m.checkout), content)
  await eventually(
    "the answer to stream",
    () => messagesOf(mcp, threadId),
    (messages) => messages.some((msg) => msg.role === "assistant" && msg.status === "streaming" && msg.text === `Echo: ${content}`)
  )
  const [run] = invocations(m.argsLog)
  if (run === undefined) throw new Error("the runtime did not start")
  return { m, agent, threadId, run }
}

const StatusPid = Schema.parseJson(Schema.Struct({ pid: Schema.Number }))

/** The agent process (the launcher's child) of a running `trellis agent start`, from the status file it keeps. */
const agentProcess = (m: Machine): number =>
  Schema.decodeUnknownSync(StatusPid)(fs.readFileSync(path.join(m.configDir, "state", "e2e.status.json"), "utf8")).pid

/** Waits until the thread's last message is an assistant answer in a final state. */
const settled = (mcp: Mcp, threadId: string, count: number, context: () => string, timeoutMs = 30_000) =>
  eventually(
    `thread ${threadId} to hold ${count} settled messages`,
    () => messagesOf(mcp, threadId),
    (messages) => {
      const last = messages.at(-1)
      return messages.length === count && last?.role === "assistant" && (last.status === "completed" || last.status === "failed")
    },
    timeoutMs,
    context
  )

const lineNumbers = (text: string): ReadonlyArray<number> => [...text.matchAll(/line (\d+)/g)].map((match) => Number(match[1]))

const range = (n: number): ReadonlyArray<number> => Array.from({ length: n }, (_, i) => i)

// ---- the scenarios ---------------------------------------------------------------------------------

describe.sequential("trellis agent end to end: serve + agent start + the MCP SDK client", () => {
  let main: Serve | undefined
  let short: Serve | undefined
  let mainMcp: Mcp | undefined
  let shortMcp: Mcp | undefined

  const backend = () => {
    if (main === undefined || mainMcp === undefined) throw new Error("trellis serve did not start")
    return { serve: main, mcp: mainMcp }
  }
  const shortBackend = () => {
    if (short === undefined || shortMcp === undefined) throw new Error("trellis serve (short timings) did not start")
    return { serve: short, mcp: shortMcp }
  }

  beforeAll(async () => {
    bin = replayBin()
    ;[main, short] = await Promise.all([
      startServe(tempDir("trellis-e2e-home-")),
      startServe(tempDir("trellis-e2e-home-short-"), SHORT_TIMINGS)
    ])
    const [mainLogin, shortLogin] = [tempDir("trellis-e2e-login-"), tempDir("trellis-e2e-login-short-")]
    await Promise.all([login(main, mainLogin), login(short, shortLogin)])
    loggedIn.set(main, mainLogin)
    loggedIn.set(short, shortLogin)
    mainMcp = await Mcp.connect(main.mcpUrl, main.credentials.apiKey)
    shortMcp = await Mcp.connect(short.mcpUrl, short.credentials.apiKey)
  }, 120_000)

  afterAll(async () => {
    await Promise.allSettled([mainMcp?.close(), shortMcp?.close()])
    await killEverything()
    await removeTempDirs()
  }, 30_000)

  it("happy path: a thread created over MCP is claimed, run in the checkout and answered; events stream; SIGTERM disconnects", async () => {
    const { mcp, serve } = backend()
    const m = await machine(serve, "happy")
    const agent = await start(m)
    const profile = await onlineProfile(mcp, serve, m, agent)
    const pathId = checkoutPathId(profile, m.checkout)

    const threadId = await createThread(mcp, profile, pathId, "hello from the e2e test")
    const messages = await settled(mcp, threadId, 2, () => agent.proc.describe())
    expect(messages.map((msg) => [msg.role, msg.status, msg.text])).toEqual([
      ["user", "completed", "hello from the e2e test"],
      ["assistant", "completed", "Echo: hello from the e2e test"]
    ])
    const answer = assistants(messages)[0]

    // The event stream: the runtime's three lines, normalized, in order, once each.
    const events = await readEvents(serve, threadId, (read) => read.length >= 3)
    expect(events.map((e) => [e.messageId, e.seq, e.event.kind])).toEqual([
      [answer?.messageId, 0, "metadata"],
      [answer?.messageId, 1, "text"],
      [answer?.messageId, 2, "metadata"]
    ])
    expect(events[1]?.event.text).toBe("Echo: hello from the e2e test")

    const runs = invocations(m.argsLog)
    expect(runs).toHaveLength(1)
    expect(runs[0]?.cwd).toBe(m.checkout)
    expect(runs[0]?.threadId).toBe(threadId)
    expect(flagValue(runs[0]?.argv ?? [], "--session-id")).toMatch(/^[0-9a-f-]{36}$/)

    const idle = await eventually("the thread to go idle", () => getThread(mcp, threadId), (t) => t.status === "idle")
    expect(idle.targetOnline).toBe(true)

    const exit = await agent.proc.stop()
    expect(exit, agent.proc.describe()).toEqual({ code: 0, signal: null })
    expect(agent.logged(/^disconnected$/)).toBe(true)
    expect((await getThread(mcp, threadId)).targetOnline).toBe(false)
    expect(agent.proc.stdout + agent.proc.stderr).not.toContain(serve.credentials.apiKey)
  }, TEST_TIMEOUT)

  it("a message sent mid-run is the next batch under the same claim, resuming the runtime session", async () => {
    const { mcp, serve } = backend()
    // Three lines 0.6 s apart: the first batch runs ~2 s.
    const m = await machine(serve, "midrun", { REPLAY_DELAY_MS: "600" })
    const agent = await start(m)
    const profile = await onlineProfile(mcp, serve, m, agent)
    const threadId = await createThread(mcp, profile, checkoutPathId(profile, m.checkout), "first question")

    await eventually(
      "the first batch to stream",
      () => messagesOf(mcp, threadId),
      (messages) => messages.some((msg) => msg.role === "assistant" && msg.status === "streaming")
    )
    const sent = await mcp.call(Sent, "send_thread_message", { threadId, content: "second question" })
    expect(sent.hasPendingUserMessages).toBe(true)
    // The first batch was still running when the message landed.
    expect(assistants(await messagesOf(mcp, threadId)).map((msg) => msg.status)).toEqual(["streaming"])

    const messages = await settled(mcp, threadId, 4, () => agent.proc.describe())
    expect(messages.map((msg) => [msg.role, msg.status, msg.text])).toEqual([
      ["user", "completed", "first question"],
      ["assistant", "completed", "Echo: first question"],
      ["user", "completed", "second question"],
      ["assistant", "completed", "Echo: second question"]
    ])

    const runs = invocations(m.argsLog)
    expect(runs).toHaveLength(2)
    const sessionId = flagValue(runs[0]?.argv ?? [], "--session-id")
    expect(sessionId).toMatch(/^[0-9a-f-]{36}$/)
    expect(flagValue(runs[1]?.argv ?? [], "--resume")).toBe(sessionId)
    expect(runs[1]?.argv).not.toContain("--session-id")
    // One claim, two batches.
    expect(agent.log.filter((line) => line.message.startsWith(`claimed thread ${threadId}`))).toHaveLength(1)
    expect(agent.log.filter((line) => line.message === `thread ${threadId}: batch of 1 message(s) started`)).toHaveLength(2)
  }, TEST_TIMEOUT)

  it(
    "a thread runs only on the machine holding its runtime session; started fresh, another machine runs it, told the conversation so far",
    async () => {
      const { mcp, serve } = backend()
      const laptop = await machine(serve, "laptop")
      const first = await start(laptop)
      const profile = await onlineProfile(mcp, serve, laptop, first)
      const threadId = await createThread(mcp, profile, checkoutPathId(profile, laptop.checkout), "first question")
      await settled(mcp, threadId, 2, () => first.proc.describe())
      const laptopId = fs.readFileSync(path.join(laptop.configDir, "machine-id"), "utf8").trim()
      expect(laptopId).toMatch(/^[0-9a-f-]{36}$/)
      expect(await first.proc.stop()).toEqual({ code: 0, signal: null })
      // Its id is kept: the laptop is the same machine after a restart.
      const again = await start(laptop)
      await onlineProfile(mcp, serve, laptop, again)
      expect(fs.readFileSync(path.join(laptop.configDir, "machine-id"), "utf8").trim()).toBe(laptopId)
      expect(await again.proc.stop()).toEqual({ code: 0, signal: null })

      // The profile moves to a desktop: its config (profiles.json) is copied, not the machine id.
      const desktopDir = path.join(tempDir("trellis-e2e-desktop-"), "config")
      fs.mkdirSync(desktopDir, { mode: 0o700 })
      fs.copyFileSync(path.join(laptop.configDir, "profiles.json"), path.join(desktopDir, "profiles.json"))
      const desktopArgs = path.join(path.dirname(desktopDir), "runtime-args.jsonl")
      const desktop = await start(laptop, [], agentEnv(desktopDir, bin, { REPLAY_ARGS_LOG: desktopArgs }))
      await onlineProfile(mcp, serve, laptop, desktop)
      await mcp.call(Sent, "send_thread_message", { threadId, content: "second question" })
      const waiting = await eventually(
        "the thread to say its session is elsewhere",
        () => getThread(mcp, threadId),
        (t) => t.runtimeSessionElsewhere === true
      )
      expect(waiting).toMatchObject({ processingState: "pending", hasPendingUserMessages: true, targetOnline: true })
      // A thread the desktop may run: once it is answered the desktop has asked for work while the first thread
      // waited, and the queue (oldest first) would have handed it the first one had it been claimable there.
      const probe = await createThread(mcp, profile, checkoutPathId(profile, laptop.checkout), "a question the desktop may take")
      await settled(mcp, probe, 2, () => desktop.proc.describe())
      expect((await getThread(mcp, threadId)).processingState).toBe("pending")
      expect(invocations(desktopArgs).map((run) => run.threadId)).toEqual([probe])

      const fresh = await fetch(`${serve.baseUrl}/api/threads/${threadId}/start-fresh`, {
        method: "POST",
        headers: { authorization: `Bearer ${serve.credentials.apiKey}` }
      })
      expect(fresh.status, await fresh.clone().text()).toBe(200)
      const messages = await settled(mcp, threadId, 4, () => desktop.proc.describe())
      expect(messages.at(-1)?.text).toContain("User: first question")
      expect(messages.at(-1)?.text).toContain("second question")
      const run = invocations(desktopArgs).find((invocation) => invocation.threadId === threadId)
      expect(run?.argv).toContain("--session-id")
      expect(run?.argv).not.toContain("--resume")
      expect(await desktop.proc.stop()).toEqual({ code: 0, signal: null })
    },
    TEST_TIMEOUT
  )

  it("a worktree requested at creation is made from the remote's branch; the runtime runs in it and it is reported", async () => {
    const { mcp, serve } = backend()
    const root = tempDir("trellis-e2e-remote-")
    // A bare remote, a checkout cloned from it, then a commit pushed to the remote from elsewhere.
    const seed = await gitRepo(path.join(root, "seed"))
    const remote = path.join(root, "origin.git")
    await git(root, "clone", "-q", "--bare", seed, remote)
    const checkout = path.join(root, "checkout")
    await git(root, "clone", "-q", remote, checkout)
    const other = path.join(root, "other")
    await git(root, "clone", "-q", remote, other)
    fs.writeFileSync(path.join(other, "from-origin.txt"), "only on the remote\n")
    await git(other, "add", "from-origin.txt")
    await git(other, "commit", "-q", "-m", "remote only")
    await git(other, "push", "-q", "origin", "main")

    const m = await machine(serve, "worktree", {}, checkout)
    const agent = await start(m)
    const profile = await onlineProfile(mcp, serve, m, agent)
    const pathId = checkoutPathId(profile, checkout)
    const threadId = await createThread(mcp, profile, pathId, "work on a branch", {
      worktree: { parentPathId: pathId, branch: "feature/x", startFromOrigin: true }
    })
    const messages = await settled(mcp, threadId, 2, () => agent.proc.describe())
    expect(assistants(messages).map((msg) => [msg.status, msg.text])).toEqual([["completed", "Echo: work on a branch"]])

    const worktree = path.join(m.configDir, "worktrees", threadId)
    const runs = invocations(m.argsLog)
    expect(runs.map((run) => run.cwd)).toEqual([worktree])
    // Started from origin/main: it has the remote's commit, which the checkout has not pulled.
    expect(fs.existsSync(path.join(worktree, "from-origin.txt"))).toBe(true)
    expect(fs.existsSync(path.join(checkout, "from-origin.txt"))).toBe(false)
    const listed = await git(checkout, "worktree", "list", "--porcelain")
    expect(listed).toContain(`worktree ${worktree}\n`)
    expect(listed).toContain("branch refs/heads/feature/x")

    const reported = await onlineProfile(mcp, serve, m)
    expect(reported.paths.filter((p) => p.kind === "worktree")).toEqual([
      expect.objectContaining({ path: worktree, parentPathId: pathId, branch: "feature/x" })
    ])

    // A worktree that cannot be made fails the run with git's reason; the runtime never starts.
    const broken = await createThread(mcp, profile, pathId, "no such base", {
      worktree: { parentPathId: pathId, branch: "feature/y", startFromOrigin: true, baseRef: "no-such-branch" }
    })
    const [refused] = assistants(await settled(mcp, broken, 2, () => agent.proc.describe()))
    expect(refused?.status).toBe("failed")
    expect(refused?.errorMessage).toContain("The worktree on branch feature/y could not be created: git fetch origin no-such-branch failed")
    expect(invocations(m.argsLog)).toHaveLength(1)
  }, TEST_TIMEOUT)

  it(
    "SIGTERM mid-batch: the agent exits 0 within seconds, kills the runtime, fails the batch (retryable), claims nothing more and goes offline",
    async () => {
      const { mcp, serve } = backend()
      const m = await machine(serve, "sigterm", { REPLAY_HANG: "1" })
      const agent = await start(m, ["--max-concurrent", "1"])
      const profile = await onlineProfile(mcp, serve, m, agent)
      const pathId = checkoutPathId(profile, m.checkout)
      const threadId = await createThread(mcp, profile, pathId, "never finishes")

      // The runtime printed its answer and hangs: the batch is streaming.
      await eventually(
        "the answer to stream",
        () => messagesOf(mcp, threadId),
        (messages) => messages.some((msg) => msg.role === "assistant" && msg.status === "streaming" && msg.text === "Echo: never finishes")
      )
      const [run] = invocations(m.argsLog)
      if (run === undefined) throw new Error("the runtime did not start")
      expect(isAlive(run.pid)).toBe(true)
      // A second thread waits for the only slot.
      const queued = await createThread(mcp, profile, pathId, "waits its turn")
      expect((await getThread(mcp, queued)).status).toBe("pending")

      const stopping = Date.now()
      agent.proc.signal("SIGTERM")
      const exit = await agent.proc.waitForExit(10_000)
      const elapsed = Date.now() - stopping
      expect(exit, agent.proc.describe()).toEqual({ code: 0, signal: null })
      expect(elapsed).toBeLessThan(8_000)
      await eventually("the runtime to be gone", async () => isAlive(run.pid), (alive) => !alive, 5_000)

      const messages = await messagesOf(mcp, threadId)
      const [answer] = assistants(messages)
      expect(answer).toMatchObject({ status: "failed", text: "Echo: never finishes", errorMessage: "The CLI shut down mid-run" })
      const thread = await getThread(mcp, threadId)
      expect(thread).toMatchObject({ status: "failed", targetOnline: false })
      expect(agent.logged(new RegExp(`^thread ${threadId}: released on shutdown$`))).toBe(true)
      expect(agent.logged(/^disconnected$/)).toBe(true)
      // Shutting down, the freed slot is not filled: the queued thread was never claimed.
      expect(agent.log.filter((line) => line.message.startsWith("claimed thread")).map((line) => line.message)).toEqual([
        `claimed thread ${threadId} (claude, epoch 1)`
      ])
      expect(await getThread(mcp, queued)).toMatchObject({ status: "pending", processingState: "pending" })
      expect(invocations(m.argsLog)).toHaveLength(1)
      // Retryable: the retry queues the run again for the next CLI.
      expect((await retry(serve, threadId)).status).toBe(200)
      expect(await getThread(mcp, threadId)).toMatchObject({ status: "pending", hasPendingUserMessages: true })
    },
    TEST_TIMEOUT
  )

  it(
    "the CLI SIGKILLed and restarted at once: it resumes its session, uploads its journal, fails the run and frees the thread for the retry",
    async () => {
      const { mcp, serve } = backend()
      const m = await machine(serve, "restart", { REPLAY_LINES: "100", REPLAY_DELAY_MS: "20" })
      const agent = await start(m)
      const profile = await onlineProfile(mcp, serve, m, agent)
      const threadId = await createThread(mcp, profile, checkoutPathId(profile, m.checkout), "crash and come back")

      await eventually(
        "the stream to be under way",
        () => messagesOf(mcp, threadId),
        (messages) => assistants(messages).some((msg) => msg.status === "streaming" && lineNumbers(msg.text).length >= 20)
      )
      await agent.proc.killTree()
      const [run] = invocations(m.argsLog)
      if (run === undefined) throw new Error("the runtime did not start")
      // The agent's watcher ends the orphaned runtime (see cli/agent/OrphanGuard.ts).
      await eventually("the orphaned runtime to die", async () => isAlive(run.pid), (alive) => !alive, 5_000)
      const journalDir = path.join(m.configDir, "journal")
      const [journal] = fs.readdirSync(journalDir).filter((name) => name.endsWith(".jsonl"))
      if (journal === undefined) throw new Error("no journal was left")
      const journaled = fs.readFileSync(path.join(journalDir, journal), "utf8").split("\n").filter((line) => line.startsWith("{\"chunk\""))

      const restarted = await start(m)
      expect(restarted.logged(/^resumed session session_/), restarted.proc.describe()).toBe(true)
      expect(restarted.logged(new RegExp(`^thread ${threadId}: ${journaled.length} journaled chunk\\(s\\) sent; the run is marked failed`)))
        .toBe(true)
      expect(fs.readdirSync(journalDir).filter((name) => name.endsWith(".jsonl"))).toEqual([])
      const [failed] = assistants(await messagesOf(mcp, threadId))
      expect(failed).toMatchObject({ status: "failed", errorMessage: "The CLI restarted mid-run" })
      // Everything journaled arrived, once and in order: the lines 0..n-1 the dead CLI had read.
      const journaledLines = journaled.flatMap(lineNumbers)
      expect(journaledLines).toEqual(range(journaledLines.length))
      expect(lineNumbers(failed?.text ?? "")).toEqual(journaledLines)

      // The thread is not held by the restarted CLI: the retry runs at once.
      const thread = await getThread(mcp, threadId)
      expect(thread).toMatchObject({ status: "failed", processingState: "idle" })
      const retried = await retry(serve, threadId)
      expect(retried.status, await retried.clone().text()).toBe(200)
      const messages = await settled(mcp, threadId, 2, () => restarted.proc.describe(), 20_000)
      expect(assistants(messages).map((msg) => msg.status)).toEqual(["completed"])
      expect(lineNumbers(assistants(messages)[0]?.text ?? "")).toEqual(range(100))
      expect(restarted.logged(new RegExp(`^claimed thread ${threadId} \\(claude, epoch 2\\)$`))).toBe(true)
    },
    TEST_TIMEOUT
  )

  it(
    "profile resolution through the binary: --profile, then TRELLIS_PROFILE, then the cwd's registered path, then the default",
    async () => {
      const { serve } = backend()
      const root = tempDir("trellis-e2e-profiles-")
      const configDir = path.join(root, "config")
      const repo = await gitRepo(path.join(root, "repo"))
      fs.mkdirSync(path.join(repo, "src"))
      const elsewhere = path.join(root, "elsewhere")
      fs.mkdirSync(elsewhere)
      const env = agentEnv(configDir, bin)
      // Two profiles: e2e (logged in first, the default) and beta, to which the repository is registered.
      fs.mkdirSync(configDir)
      fs.copyFileSync(path.join(loggedIn.get(serve) ?? "", "profiles.json"), path.join(configDir, "profiles.json"))
      await login(serve, configDir, "beta")
      await trellisOk(["agent", "paths", "add", "--profile", "beta"], repo, env)
      // A config dir with the same profiles and no default.
      const noDefaultDir = path.join(root, "no-default")
      fs.mkdirSync(noDefaultDir)
      const saved = Schema.decodeUnknownSync(Schema.parseJson(Schema.Struct({ version: Schema.Number, profiles: Schema.Unknown })))(
        fs.readFileSync(path.join(configDir, "profiles.json"), "utf8")
      )
      fs.writeFileSync(path.join(noDefaultDir, "profiles.json"), JSON.stringify({ ...saved, defaultProfile: null }), { mode: 0o600 })

      const StatusJson = Schema.parseJson(Schema.Struct({ profile: Schema.String, running: Schema.Boolean }))
      const resolved = async (cwd: string, extraEnv: NodeJS.ProcessEnv, args: ReadonlyArray<string> = []) =>
        Schema.decodeUnknownSync(StatusJson)(await trellisOk(["agent", "status", "--json", ...args], cwd, { ...env, ...extraEnv }))

      const inRepo = path.join(repo, "src")
      const [flag, fromEnv, fromPath, fromDefault, none] = await Promise.all([
        resolved(inRepo, { TRELLIS_PROFILE: "beta" }, ["--profile", "e2e"]),
        resolved(inRepo, { TRELLIS_PROFILE: "e2e" }),
        resolved(inRepo, {}),
        resolved(elsewhere, {}),
        trellis(["agent", "status", "--json"], elsewhere, { ...env, TRELLIS_CONFIG_DIR: noDefaultDir })
      ])
      expect(flag.profile).toBe("e2e")
      expect(fromEnv.profile).toBe("e2e")
      expect(fromPath.profile).toBe("beta")
      expect(fromDefault.profile).toBe("e2e")
      expect(fromDefault.running).toBe(false)

      expect(none.code, none.stderr).toBe(1)
      expect(none.stderr).toContain(`no Trellis profile applies to ${elsewhere}`)
      expect(none.stderr).toContain("1. pass --profile NAME")
      expect(none.stderr).toContain("2. set TRELLIS_PROFILE=NAME")
      expect(none.stderr).toContain("3. run from a directory registered to a profile (`trellis agent paths add`)")
      expect(none.stderr).toContain("4. set a default profile (`trellis agent profiles use NAME`)")
      expect(none.stderr).toContain("profiles: beta, e2e")
    },
    TEST_TIMEOUT
  )

  it("the backend SIGKILLed mid-stream and restarted: every line reaches the thread exactly once", async () => {
    const { mcp, serve } = backend()
    const lines = 200
    const m = await machine(serve, "outage", { REPLAY_LINES: String(lines), REPLAY_DELAY_MS: "10" })
    const agent = await start(m)
    const profile = await onlineProfile(mcp, serve, m, agent)
    const threadId = await createThread(mcp, profile, checkoutPathId(profile, m.checkout), "count to 200")

    await eventually(
      "the stream to be under way",
      () => messagesOf(mcp, threadId),
      (messages) => assistants(messages).some((msg) => msg.status === "streaming" && lineNumbers(msg.text).length >= 20)
    )
    const killed = await serve.proc.killTree()
    expect(killed.signal).toBe("SIGKILL")
    const restarted = await startServe(serve.home, serve.env, serve.port)
    main = restarted
    loggedIn.set(restarted, loggedIn.get(serve) ?? "")
    const mcp2 = await Mcp.connect(restarted.mcpUrl, restarted.credentials.apiKey)
    mainMcp = mcp2
    await mcp.close().catch(() => undefined)

    const messages = await settled(mcp2, threadId, 2, () => `${agent.proc.describe()}\n${restarted.proc.describe()}`, 60_000)
    const [answer] = assistants(messages)
    expect(answer?.status, JSON.stringify(answer)).toBe("completed")
    expect(lineNumbers(answer?.text ?? "")).toEqual(range(lines))

    // The stored events in stream order: init, 200 text lines, the result — each seq once, each line once, in order.
    const events = await readEvents(restarted, threadId, (read) => read.length >= lines + 2)
    expect(events.every((e) => e.messageId === answer?.messageId)).toBe(true)
    expect(events.map((e) => e.seq)).toEqual(range(lines + 2))
    const texts = events.filter((e) => e.event.kind === "text").map((e) => e.event.text ?? "")
    expect(texts.flatMap(lineNumbers)).toEqual(range(lines))
    expect(invocations(m.argsLog)).toHaveLength(1)
    expect(agent.proc.hasExited).toBe(false)
  }, TEST_TIMEOUT)

  it(
    "the CLI SIGKILLed mid-stream: the lease runs out, another CLI runs the retry, the dead CLI's journal is dropped when it restarts",
    async () => {
      const { mcp, serve } = shortBackend()
      const first = await machine(serve, "crash", { REPLAY_LINES: "300", REPLAY_DELAY_MS: "20" })
      const agent = await start(first)
      const profile = await onlineProfile(mcp, serve, first, agent)
      const threadId = await createThread(mcp, profile, checkoutPathId(profile, first.checkout), "crash in the middle")

      await eventually(
        "the stream to be under way",
        () => messagesOf(mcp, threadId),
        (messages) => assistants(messages).some((msg) => msg.status === "streaming" && lineNumbers(msg.text).length >= 20)
      )
      await agent.proc.killTree()
      for (const run of invocations(first.argsLog)) {
        killPid(run.pid)
      }
      const journalDir = path.join(first.configDir, "journal")
      const journals = fs.readdirSync(journalDir).filter((name) => name.endsWith(".jsonl"))
      expect(journals).toHaveLength(1)
      const journaled = fs.readFileSync(path.join(journalDir, journals[0] ?? ""), "utf8").split("\n").filter((line) =>
        line.startsWith("{\"chunk\"")
      )
      expect(journaled.length).toBeGreaterThan(0)

      // Nobody renews the lease: the backend releases the claim and fails the run.
      await eventually(
        "the dead CLI's run to fail and its session to expire",
        () => getThread(mcp, threadId),
        (t) => t.status === "failed" && !t.targetOnline,
        20_000
      )
      const [lost] = assistants(await messagesOf(mcp, threadId))
      expect(lost?.status).toBe("failed")
      expect(lost?.errorMessage).toMatch(/lease expired|session ended/)

      // A second CLI on the same profile and machine (its own config dir, no journal) takes over and runs the retry.
      const secondDir = path.join(tempDir("trellis-e2e-crash-second-"), "config")
      fs.mkdirSync(secondDir)
      for (const file of ["profiles.json", "machine-id"]) {
        fs.copyFileSync(path.join(first.configDir, file), path.join(secondDir, file))
      }
      const second = await start(first, ["--force"], agentEnv(secondDir, bin))
      const retried = await retry(serve, threadId)
      expect(retried.status, await retried.clone().text()).toBe(200)
      const messages = await settled(mcp, threadId, 2, () => second.proc.describe())
      expect(messages.map((msg) => [msg.role, msg.status, msg.text])).toEqual([
        ["user", "completed", "crash in the middle"],
        ["assistant", "completed", "Echo: crash in the middle"]
      ])
      expect(second.logged(new RegExp(`^claimed thread ${threadId} \\(claude, epoch 2\\)$`))).toBe(true)
      expect(await second.proc.stop()).toEqual({ code: 0, signal: null })

      // The first CLI restarts: its journal was written under a claim that is no longer its own.
      const restarted = await start(first)
      expect(
        restarted.log.filter((line) => line.level === "warn" && /dropped \d+ journaled chunk\(s\)/.test(line.message)).map((line) =>
          line.message
        )
      ).toEqual([
        expect.stringMatching(
          new RegExp(
            `^thread ${threadId}: dropped ${journaled.length} journaled chunk\\(s\\) of message ${lost?.messageId}: the claim is no longer ours`
          )
        )
      ])
      expect(fs.readdirSync(journalDir).filter((name) => name.endsWith(".jsonl"))).toEqual([])
      // Nothing of the dead run came back.
      expect((await messagesOf(mcp, threadId)).map((msg) => [msg.role, msg.status, msg.text])).toEqual(
        messages.map((msg) => [msg.role, msg.status, msg.text])
      )
      expect(await restarted.proc.stop()).toEqual({ code: 0, signal: null })
    },
    TEST_TIMEOUT
  )

  it(
    "a CLI frozen (SIGSTOP) past its session TTL wakes fenced: it stops the thread, drops its journal, registers again and runs the retry",
    async () => {
      const { mcp, serve } = shortBackend()
      const lines = 100
      const m = await machine(serve, "frozen", { REPLAY_LINES: String(lines), REPLAY_DELAY_MS: "20" })
      const agent = await start(m)
      const profile = await onlineProfile(mcp, serve, m, agent)
      const threadId = await createThread(mcp, profile, checkoutPathId(profile, m.checkout), "freeze in the middle")

      await eventually(
        "the stream to be under way",
        () => messagesOf(mcp, threadId),
        (messages) => assistants(messages).some((msg) => msg.status === "streaming" && lineNumbers(msg.text).length >= 10)
      )
      agent.proc.signalGroup("SIGSTOP")
      defer(() => agent.proc.signalGroup("SIGCONT"))
      await eventually(
        "the frozen CLI's session to expire and its run to fail",
        () => getThread(mcp, threadId),
        (t) => t.status === "failed" && !t.targetOnline,
        20_000
      )
      const [lost] = assistants(await messagesOf(mcp, threadId))
      expect(lost?.status).toBe("failed")
      const journalDir = path.join(m.configDir, "journal")
      expect(
        fs.readdirSync(journalDir).filter((name) => name.endsWith(".jsonl"))
      ).toHaveLength(1)

      agent.proc.signalGroup("SIGCONT")
      await agent.waitForLog(
        "the journal to be dropped",
        new RegExp(`^thread ${threadId}: dropped \\d+ journaled chunk\\(s\\) of message ${lost?.messageId} with the claim$`)
      )
      expect(agent.logged(new RegExp(`^thread ${threadId}: stopped, the claim is no longer ours`))).toBe(true)
      expect(fs.readdirSync(journalDir).filter((name) => name.endsWith(".jsonl"))).toEqual([])
      const [run] = invocations(m.argsLog)
      if (run === undefined) throw new Error("the runtime did not start")
      await eventually("the runtime to be gone", async () => isAlive(run.pid), (alive) => !alive, 5_000)
      await agent.waitForLog("a new registration", /^the session expired; registering again$/)
      await onlineProfile(mcp, serve, m, agent)

      // Under its new session the CLI serves the thread again.
      const retried = await retry(serve, threadId)
      expect(retried.status, await retried.clone().text()).toBe(200)
      const messages = await settled(mcp, threadId, 2, () => agent.proc.describe())
      const [answer] = assistants(messages)
      expect(answer?.status).toBe("completed")
      expect(lineNumbers(answer?.text ?? "")).toEqual(range(lines))
      expect(agent.logged(new RegExp(`^claimed thread ${threadId} \\(claude, epoch 2\\)$`))).toBe(true)
      expect(await agent.proc.stop()).toEqual({ code: 0, signal: null })
    },
    TEST_TIMEOUT
  )
  it("the agent SIGKILLed while its runtime hangs silently: the runtime does not outlive it", async () => {
    const { mcp, serve } = backend()
    const { agent, run } = await hangingRun(mcp, serve, "orphan", "hang and lose the agent")
    expect(isAlive(run.pid)).toBe(true)
    // The launcher and the agent (one process group) die at once; the runtime, in its own group,
    // writes nothing more, so no broken pipe would ever stop it.
    const killed = await agent.proc.killTree()
    expect(killed.signal).toBe("SIGKILL")
    await eventually("the orphaned runtime to be gone", async () => isAlive(run.pid), (alive) => !alive, 5_000)
  }, TEST_TIMEOUT)

  it("the agent process alone SIGKILLed: its launcher exits the same way and the runtime is gone", async () => {
    const { mcp, serve } = backend()
    const { m, agent, run } = await hangingRun(mcp, serve, "agent-killed", "lose the agent process")

    const agentPid = agentProcess(m)
    expect(agentPid).not.toBe(agent.proc.pid)
    process.kill(agentPid, "SIGKILL")
    expect(await agent.proc.waitForExit(5_000)).toEqual({ code: null, signal: "SIGKILL" })
    await eventually("the orphaned runtime to be gone", async () => isAlive(run.pid), (alive) => !alive, 5_000)
  }, TEST_TIMEOUT)

  it("the launcher alone SIGKILLed: the agent shuts down as on SIGTERM and its runtime is gone", async () => {
    const { mcp, serve } = backend()
    const { m, agent, threadId, run } = await hangingRun(mcp, serve, "launcher-killed", "lose the launcher")
    const agentPid = agentProcess(m)

    agent.proc.signal("SIGKILL")
    await eventually("the agent to be gone", async () => isAlive(agentPid), (alive) => !alive, 10_000)
    expect(isAlive(run.pid)).toBe(false)
    const [answer] = assistants(await messagesOf(mcp, threadId))
    expect(answer).toMatchObject({ status: "failed", errorMessage: "The CLI shut down mid-run" })
  }, TEST_TIMEOUT)

  it("SIGTERM with the backend down: the agent exits 0 within seconds and keeps the unsent journal for its next start", async () => {
    // A backend of its own, killed for good mid-run.
    const serve = await startServe(tempDir("trellis-e2e-home-down-"))
    const loginDir = tempDir("trellis-e2e-login-down-")
    await login(serve, loginDir)
    loggedIn.set(serve, loginDir)
    const mcp = await Mcp.connect(serve.mcpUrl, serve.credentials.apiKey)
    defer(async () => {
      await mcp.close().catch(() => undefined)
      await serve.proc.killTree()
    })
    const { m, agent, threadId, run } = await hangingRun(mcp, serve, "down", "the backend goes away")

    await serve.proc.killTree()
    const stopping = Date.now()
    agent.proc.signal("SIGTERM")
    const exit = await agent.proc.waitForExit(15_000)
    expect(exit, agent.proc.describe()).toEqual({ code: 0, signal: null })
    expect(Date.now() - stopping).toBeLessThan(10_000)
    await eventually("the runtime to be gone", async () => isAlive(run.pid), (alive) => !alive, 5_000)
    expect(
      agent.logged(new RegExp(`^thread ${threadId}: the backend is unreachable; \\d+ journaled chunk\\(s\\) kept for the next start$`)),
      agent.proc.describe()
    ).toBe(true)
    const journals = fs.readdirSync(path.join(m.configDir, "journal")).filter((name) => name.endsWith(".jsonl"))
    expect(journals).toHaveLength(1)
  }, TEST_TIMEOUT)
})
