/**
 * Runtime C for real: the pinned `opencode` binary (`opencode serve` driven through the SDK) run
 * by `trellis agent start` against the mock model (Chat Completions), permissions and questions
 * answered through the interaction bridge as a client does.
 */
import { describe, expect, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import {
  answer,
  askedBy,
  compactionAndApiErrorScenarios,
  eventsOf,
  hasPendingInteraction,
  realRuntimeSuite,
  resumeSafetyScenarios
} from "./support/RealRuntimes.js"
import { chatSystem, threadContextScenarios } from "./support/ThreadContextScenarios.js"

const TEST_TIMEOUT = 120_000

/** The `opencode serve` processes running with this HOME: pid, arguments, password and URL. */
const servesOf = (home: string) =>
  fs.readdirSync("/proc").filter((entry) => /^\d+$/.test(entry)).flatMap((pid) => {
    try {
      const argv = fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").filter((arg) => arg !== "")
      if (!argv.includes("serve") || !argv.some((arg) => arg.includes("opencode"))) return []
      const env = new Map(
        fs.readFileSync(`/proc/${pid}/environ`, "utf8").split("\0").map((
          pair
        ) => [pair.slice(0, pair.indexOf("=")), pair.slice(pair.indexOf("=") + 1)])
      )
      if (env.get("HOME") !== home) return []
      const port = /:([0-9A-F]{4}) 00000000:0000 0A/.exec(listeningSockets(pid))?.[1]
      return [{
        pid: Number(pid),
        argv,
        password: env.get("OPENCODE_SERVER_PASSWORD") ?? "",
        url: `http://127.0.0.1:${parseInt(port ?? "0", 16)}`
      }]
    } catch {
      return []
    }
  })

/** /proc/<pid>/net/tcp lines of the sockets the process holds (its listening port is among them). */
const listeningSockets = (pid: string): string => {
  const inodes = new Set(
    fs.readdirSync(`/proc/${pid}/fd`).flatMap((fd) => {
      try {
        return [/socket:\[(\d+)\]/.exec(fs.readlinkSync(`/proc/${pid}/fd/${fd}`))?.[1] ?? ""]
      } catch {
        return []
      }
    })
  )
  return fs.readFileSync(`/proc/${pid}/net/tcp`, "utf8").split("\n").filter((line) => inodes.has(line.trim().split(/\s+/)[9] ?? "")).join(
    "\n"
  )
}

describe.sequential("runtime C (opencode) for real through trellis agent start", () => {
  const suite = realRuntimeSuite("opencode", ["--interaction-timeout", "8"], ["opencode"])
  const checkoutHas = (file: string) => fs.existsSync(path.join(suite.machine().checkout, file))

  it(
    "a thread created over MCP runs opencode serve in the checkout with the thread's model and effort (variant); events stream normalized",
    async () => {
      const { answer: first } = await suite.start("opencode", "hello from the real opencode test", {
        cliModel: "mock/mock-model",
        cliEffort: "high"
      })
      expect([first.status, first.text]).toEqual(["completed", "Mock reply: hello from the real opencode test"])
      expect(suite.requestsWith("hello from the real opencode test").at(-1)?.body).toMatchObject({
        model: "mock-model",
        reasoning_effort: "high"
      })
      expect((await eventsOf(suite, first.messageId, "text")).some((e) => e.event.kind === "text")).toBe(true)
    },
    TEST_TIMEOUT
  )

  it("a second message reuses the runtime session: the model is sent the earlier turn", async () => {
    expect((await suite.turn("and a second message")).text).toBe("Mock reply: and a second message")
    expect(JSON.stringify(suite.requestsWith("and a second message").at(-1)?.body)).toContain("hello from the real opencode test")
  }, TEST_TIMEOUT)

  // OpenCode keeps its sessions in its data directory; the server is stopped first, as it holds them open.
  resumeSafetyScenarios(suite, "opencode", () => {
    for (const server of servesOf(suite.machine().home)) process.kill(server.pid, "SIGKILL")
    const data = path.join(suite.machine().home, ".local", "share", "opencode")
    expect(fs.existsSync(data)).toBe(true)
    fs.rmSync(data, { recursive: true, force: true })
  })

  // After resume safety: the held run's command in a fresh session's summary would run again.
  threadContextScenarios(suite, {
    cliType: "opencode",
    isRuntime: (argv) => argv.includes("serve") && argv.some((arg) => arg.includes("opencode")),
    instructions: chatSystem,
    instructionsName: "OpenCode's system prompt",
    threadIdIn: "prompt"
  })

  it(
    "permission.asked becomes a pending interaction with the full command, though the user's opencode.json allows everything; allowed once, the command runs",
    async () => {
      const asked = await askedBy(suite, "RUN_TOOL[touch allowed.txt]")
      expect(asked).toMatchObject({
        kind: "permission",
        status: "pending",
        request: { tool: "bash", metadata: { command: "touch allowed.txt" } }
      })
      expect(await hasPendingInteraction(suite)).toBe(true)
      await answer(suite, asked.interactionId, { answer: { reply: "once" } })
      const done = await suite.answer()
      expect([done.status, done.text.includes("Tool finished. Output was:")]).toEqual(["completed", true])
      expect(checkoutHas("allowed.txt")).toBe(true)
    },
    TEST_TIMEOUT
  )

  it("rejected, the command does not run", async () => {
    const asked = await askedBy(suite, "RUN_TOOL[touch denied.txt]")
    await answer(suite, asked.interactionId, { deny: true })
    expect((await suite.answer()).status).toBe("completed")
    expect(checkoutHas("denied.txt")).toBe(false)
  }, TEST_TIMEOUT)

  it("unanswered, the request expires after the timeout (expired, not denied, on the thread) and the command does not run", async () => {
    const asked = await askedBy(suite, "RUN_TOOL[touch expired.txt]")
    expect((await suite.answer()).status).toBe("completed")
    expect(checkoutHas("expired.txt")).toBe(false)
    expect((await answer(suite, asked.interactionId, { answer: { reply: "once" } })).status).toBe("expired")
  }, TEST_TIMEOUT)

  it("question.asked is answered through the bridge and the runtime gets the chosen option", async () => {
    const asked = await askedBy(suite, "ASK_USER about colors")
    expect(asked).toMatchObject({ kind: "question", request: { tool: "question" } })
    await answer(suite, asked.interactionId, { answer: [["Blue"]] })
    expect((await suite.answer()).text).toContain("Blue")
  }, TEST_TIMEOUT)

  it("one opencode serve runs every batch of the CLI process, on 127.0.0.1 with a password", async () => {
    const [server] = servesOf(suite.machine().home)
    expect(server?.argv).toEqual(expect.arrayContaining(["serve", "--hostname", "127.0.0.1"]))
    // A port the CLI found free, never `--port 0` (which makes opencode take 4096 whenever it can).
    const port = Number(server?.argv[(server?.argv.indexOf("--port") ?? -2) + 1])
    expect([port > 0, server?.url]).toEqual([true, `http://127.0.0.1:${port}`])
    expect(server?.password).toMatch(/^.{16,}$/)
    const unauthorized = await fetch(`${server?.url}/session`)
    expect(unauthorized.status).toBe(401)
    await suite.turn("one more on the same server")
    // The agent's output says when each server started, and after what.
    expect(servesOf(suite.machine().home).map((s) => s.pid), suite.agent().proc.describe()).toEqual([server?.pid])
  }, TEST_TIMEOUT)

  it("the server dying mid-batch fails the batch (retryable), and the next batch runs on a new server", async () => {
    await askedBy(suite, "RUN_TOOL[touch killed.txt]")
    const [server] = servesOf(suite.machine().home)
    if (server === undefined) throw new Error("no opencode serve")
    process.kill(server.pid, "SIGKILL")
    const failed = await suite.answer()
    expect([failed.status, failed.errorMessage]).toEqual(["failed", expect.stringMatching(/opencode serve (exited|stopped answering)/)])
    expect((await suite.turn("after the restart")).text).toBe("Mock reply: after the restart")
    const restarted = servesOf(suite.machine().home)
    expect(restarted.length).toBe(1)
    expect(restarted[0]?.pid).not.toBe(server.pid)
  }, TEST_TIMEOUT)

  it("a subagent's command (the task tool's own session) asks through the bridge too; allowed, it runs", async () => {
    const asked = await askedBy(suite, "SUBAGENT_RUN[touch by-subagent.txt]")
    expect(asked).toMatchObject({
      kind: "permission",
      status: "pending",
      request: { tool: "bash", metadata: { command: "touch by-subagent.txt" } }
    })
    await answer(suite, asked.interactionId, { answer: { reply: "once" } })
    expect((await suite.answer()).status).toBe("completed")
    expect(checkoutHas("by-subagent.txt")).toBe(true)
  }, TEST_TIMEOUT)

  compactionAndApiErrorScenarios(suite, "session.summarize")

  it("a thread without cliModel runs on opencode.json's model, and /compact compacts with the model its session ran with", async () => {
    const { answer: first } = await suite.start("opencode", "hello on the default model")
    expect([first.status, first.text]).toEqual(["completed", "Mock reply: hello on the default model"])
    expect(suite.requestsWith("hello on the default model").at(-1)?.body).toMatchObject({ model: "mock-model" })
    const done = await suite.turn("/compact", { runtimeCommand: true })
    expect([done.status, done.errorMessage]).toEqual(["completed", undefined])
    expect((await eventsOf(suite, done.messageId, "context-compaction")).some((e) => e.event.kind === "context-compaction")).toBe(true)
  }, TEST_TIMEOUT)
})
