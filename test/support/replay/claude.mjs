#!/usr/bin/env node
// A stand-in for runtime A (Claude Code) in tests: it honours the real command line of
// `claude -p --input-format stream-json --output-format stream-json --verbose`, reads the user
// turns from stdin, and prints a transcript: the lines of REPLAY_FIXTURE (a recorded .jsonl, with
// its session id replaced) or, by default, an answer echoing each prompt.
// Knobs: REPLAY_DELAY_MS (between lines), REPLAY_LINES (repeat the text line this many times),
// REPLAY_CRASH_AFTER (exit 1 after N lines), REPLAY_HANG (never finish), REPLAY_EXIT_CODE,
// REPLAY_RESULT_ERROR (a failed result), REPLAY_ARGS_LOG (append the argv, cwd, thread and pid as a JSON line to this file).
import { appendFileSync, readFileSync } from "node:fs"
import { randomUUID } from "node:crypto"

const argv = process.argv.slice(2)
const flag = (name) => {
  const i = argv.indexOf(name)
  return i === -1 ? undefined : argv[i + 1]
}
if (argv.includes("--version")) {
  process.stdout.write("2.1.197 (Claude Code, replay)\n")
  process.exit(0)
}
const required = ["-p", "--input-format", "--output-format", "--verbose"]
for (const name of required) {
  if (!argv.includes(name)) {
    process.stderr.write(`replay claude: missing ${name}\n`)
    process.exit(2)
  }
}
if (flag("--input-format") !== "stream-json" || flag("--output-format") !== "stream-json") {
  process.stderr.write("replay claude: stream-json in and out is required\n")
  process.exit(2)
}
if (process.env.REPLAY_ARGS_LOG) appendFileSync(process.env.REPLAY_ARGS_LOG, JSON.stringify({ argv, cwd: process.cwd(), threadId: process.env.TRELLIS_THREAD_ID, pid: process.pid }) + "\n")
const sessionId = flag("--resume") ?? flag("--session-id") ?? randomUUID()
const delay = Number(process.env.REPLAY_DELAY_MS ?? "0")
const crashAfter = process.env.REPLAY_CRASH_AFTER === undefined ? Infinity : Number(process.env.REPLAY_CRASH_AFTER)
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))

const readTurns = () =>
  new Promise((resolve) => {
    let input = ""
    const prompts = []
    const take = () => {
      let newline
      while ((newline = input.indexOf("\n")) !== -1) {
        const line = input.slice(0, newline)
        input = input.slice(newline + 1)
        if (line.trim() === "") continue
        const turn = JSON.parse(line)
        // A turn holds one text block per batched message.
        for (const block of turn.message?.content ?? []) prompts.push(block.text ?? "")
      }
    }
    process.stdin.setEncoding("utf8")
    process.stdin.on("data", (piece) => {
      input += piece
      take()
      // The CLI keeps stdin open until the result: start once the turns it sent have arrived.
      if (prompts.length > 0) setTimeout(() => resolve(prompts), 20)
    })
    process.stdin.on("end", () => resolve(prompts))
  })

const transcript = (prompts) => {
  if (process.env.REPLAY_FIXTURE) {
    return readFileSync(process.env.REPLAY_FIXTURE, "utf8")
      .split("\n")
      .filter((l) => l.trim() !== "")
      .map((l) => l.replace(/"session_id":"[^"]*"/g, `"session_id":"${sessionId}"`))
  }
  const repeat = Number(process.env.REPLAY_LINES ?? "1")
  const lines = [JSON.stringify({ type: "system", subtype: "init", session_id: sessionId, model: "replay-model", tools: [] })]
  for (let i = 0; i < repeat; i++) {
    lines.push(JSON.stringify({
      type: "assistant",
      uuid: randomUUID(),
      session_id: sessionId,
      message: { id: `msg_${i}`, role: "assistant", content: [{ type: "text", text: repeat === 1 ? `Echo: ${prompts.join(" | ")}` : `line ${i}` }] }
    }))
  }
  lines.push(JSON.stringify({
    type: "result", subtype: "success", is_error: process.env.REPLAY_RESULT_ERROR === "1", result: process.env.REPLAY_RESULT_ERROR === "1" ? "API Error: 400 replay" : `Echo: ${prompts.join(" | ")}`,
    session_id: sessionId, total_cost_usd: 0.001, duration_ms: 10, num_turns: 1,
    usage: { input_tokens: 10, output_tokens: 5, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 }
  }))
  return lines
}

const prompts = await readTurns()
const lines = transcript(prompts)
let printed = 0
for (const line of lines) {
  if (printed >= crashAfter) {
    process.stderr.write("replay claude: crashing as asked\n")
    process.exit(1)
  }
  if (!process.stdout.write(line + "\n")) await new Promise((resolve) => process.stdout.once("drain", resolve))
  printed += 1
  if (delay > 0) await sleep(delay)
}
// A pending promise alone does not keep node running (it would exit with code 13): a timer does.
if (process.env.REPLAY_HANG === "1") await new Promise(() => setInterval(() => {}, 60_000))
process.exit(Number(process.env.REPLAY_EXIT_CODE ?? (process.env.REPLAY_RESULT_ERROR === "1" ? "1" : "0")))
