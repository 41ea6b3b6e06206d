/**
 * What the mock model answers, decided from the conversation alone, whatever the wire format.
 * Prompt triggers (anywhere in the last user text):
 *   RUN_TOOL[cmd]  ask to run `cmd` with the runtime's shell tool
 *   CALL_TOOL[name {json}]  call an MCP tool the runtime offers as `name` (Claude Code: mcp__<server>__name) with that input
 *   SUBAGENT_RUN[cmd]  start a subagent (OpenCode's task tool) told RUN_TOOL[cmd]
 *   ASK_USER       ask the user a question with the runtime's question tool
 *   PLAN_EXIT      leave plan mode with a plan (Claude's ExitPlanMode)
 *   FAIL_TWICE     a transient overload twice (per distinct prompt), then the plain answer
 *   FAIL_HARD      a hard HTTP 400
 * After a tool result the model reports it: "Tool finished. Output was: …". Anything else gets
 * "Mock reply: <the prompt's last paragraph>". A request that offers no tools (a title or summary request) always
 * gets a plain answer, so side requests never consume the scripted failures.
 */

export interface Conversation {
  /** The text of the last user turn, without runtime-injected reminders. */
  readonly lastUserText: string
  /** The last turn was a tool result: its text. */
  readonly toolResult: string | undefined
  /** The names of the tools the request offers. */
  readonly tools: ReadonlyArray<string>
}

export type Plan =
  | { readonly kind: "text"; readonly text: string }
  | { readonly kind: "tool"; readonly text: string; readonly name: string; readonly input: Record<string, unknown> }
  | { readonly kind: "error"; readonly transient: boolean; readonly message: string }

export const QUESTION = "Which color do you prefer?"
export const ANSWER_OPTIONS = [
  { label: "Blue", description: "The color of the sky" },
  { label: "Red", description: "The color of fire" }
]
export const PLAN_TEXT = "1. Read the README\n2. Write the summary"

const shellInput: Record<string, (command: string) => Record<string, unknown>> = {
  Bash: (command) => ({ command, description: "Run the requested command" }),
  exec_command: (command) => ({ cmd: command }),
  shell_command: (command) => ({ command }),
  shell: (command) => ({ command: ["bash", "-lc", command] }),
  bash: (command) => ({ command, description: "Run the requested command" })
}

const askInput: Record<string, () => Record<string, unknown>> = {
  AskUserQuestion: () => ({ questions: [{ question: QUESTION, header: "Color", options: ANSWER_OPTIONS, multiSelect: false }] }),
  request_user_input: () => ({ questions: [{ id: "color", header: "Color", question: QUESTION, options: ANSWER_OPTIONS }] }),
  question: () => ({ questions: [{ question: QUESTION, header: "Color", options: ANSWER_OPTIONS }] })
}

const offered = <A>(table: Record<string, A>, tools: ReadonlyArray<string>): [string, A] | undefined => {
  for (const [name, value] of Object.entries(table)) if (tools.includes(name)) return [name, value]
  return undefined
}

/** Failures served so far per prompt (FAIL_TWICE). */
export type FailureCounts = Map<string, number>

export const decide = (conversation: Conversation, failures: FailureCounts): Plan => {
  const { lastUserText: text, toolResult, tools } = conversation
  if (toolResult !== undefined) {
    const output = toolResult.replace(/<system-reminder>[\s\S]*?(<\/system-reminder>|$)/g, "").trim()
    return { kind: "text", text: `Tool finished. Output was: ${output.slice(0, 500)}` }
  }
  if (tools.length === 0) return { kind: "text", text: "Mock summary" }
  if (text.includes("FAIL_HARD")) return { kind: "error", transient: false, message: "Mock hard failure: this request is invalid" }
  if (text.includes("FAIL_TWICE")) {
    const served = failures.get(text) ?? 0
    if (served < 2) {
      failures.set(text, served + 1)
      return { kind: "error", transient: true, message: "Mock overload, try again" }
    }
  }
  const subagent = /SUBAGENT_RUN\[([^\]]*)\]/.exec(text)
  if (subagent !== null && tools.includes("task")) {
    const prompt = `RUN_TOOL[${subagent[1] ?? ""}]`
    return {
      kind: "tool",
      text: "A subagent will do it.",
      name: "task",
      input: { description: "Run the command", prompt, subagent_type: "general" }
    }
  }
  const call = /CALL_TOOL\[(\w+)\s*(\{[^\]]*\})?\]/.exec(text)
  const mcpTool = call === null ? undefined : tools.find((tool) => tool === call[1] || tool.endsWith(`__${call[1]}`))
  if (call !== null && mcpTool !== undefined) {
    const input: unknown = JSON.parse(call[2] ?? "{}")
    return { kind: "tool", text: `I will call ${call[1]}.`, name: mcpTool, input: isRecord(input) ? input : {} }
  }
  const run = /RUN_TOOL\[([^\]]*)\]/.exec(text)
  const shell = offered(shellInput, tools)
  if (run !== null && shell !== undefined) {
    const command = run[1] ?? ""
    return { kind: "tool", text: `I will run \`${command}\`.`, name: shell[0], input: shell[1](command) }
  }
  const ask = offered(askInput, tools)
  if ((text.includes("ASK_USER") || text.includes("ASK_QUESTION")) && ask !== undefined) {
    return { kind: "tool", text: "I need to ask you something.", name: ask[0], input: ask[1]() }
  }
  if (text.includes("PLAN_EXIT") && tools.includes("ExitPlanMode")) {
    return { kind: "tool", text: "Here is my plan.", name: "ExitPlanMode", input: { plan: PLAN_TEXT } }
  }
  // The user's own message is the last paragraph (anything the runtime put before it is not echoed).
  return { kind: "text", text: `Mock reply: ${(text.trim().split("\n\n").at(-1) ?? "").slice(0, 300)}` }
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value)

/** Text of a content value: a string, or blocks with `text`. */
export const textOf = (content: unknown): string => {
  if (typeof content === "string") return content
  if (!Array.isArray(content)) return ""
  return content.map((block: unknown) => {
    if (typeof block === "string") return block
    if (typeof block !== "object" || block === null) return ""
    const text: unknown = Reflect.get(block, "text")
    if (typeof text === "string") return text
    return textOf(Reflect.get(block, "content"))
  }).join("")
}

/** The user's own words: runtime-injected `<system-reminder>` (and similar) blocks are dropped. */
export const userWords = (blocks: ReadonlyArray<string>): string =>
  blocks.filter((text) => !/^\s*<(system-reminder|environment_context|user_instructions|permissions)/.test(text)).join("\n\n")
