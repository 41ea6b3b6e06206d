import { describe, expect, it } from "@effect/vitest"
import { Option } from "effect"
import { settleLocally } from "../../../cli/agent/ApprovalPolicy.js"
import { EXPIRED_MESSAGE, interactionOf, permissionReply, userTurns } from "../../../cli/agent/runtimes/ClaudeCode.js"

const bash = { subtype: "can_use_tool", tool_name: "Bash", input: { command: "touch x" }, description: "Create x" }
const read = { subtype: "can_use_tool", tool_name: "Read", input: { file_path: "/etc/hosts" } }
const question = {
  subtype: "can_use_tool",
  tool_name: "AskUserQuestion",
  input: { questions: [{ question: "Which color?", header: "Color", options: [{ label: "Blue" }, { label: "Red" }], multiSelect: false }] }
}
const plan = { subtype: "can_use_tool", tool_name: "ExitPlanMode", input: { plan: "1. do it" } }

describe("runtime A: can_use_tool through the interaction bridge", () => {
  it("a tool permission is shown with the tool and its full input", () => {
    expect(interactionOf(bash)).toEqual({
      kind: "permission",
      request: { tool: "Bash", input: { command: "touch x" }, description: "Create x" },
      approval: "write"
    })
    expect(interactionOf(read).approval).toBe("read-only")
  })

  it("AskUserQuestion is a question with its questions; ExitPlanMode is a permission only a person gives", () => {
    expect(interactionOf(question)).toMatchObject({ kind: "question", approval: "ask", request: { questions: question.input.questions } })
    expect(interactionOf(plan)).toMatchObject({
      kind: "permission",
      approval: "ask",
      request: { tool: "ExitPlanMode", input: { plan: "1. do it" } }
    })
  })

  it("an answered permission allows the tool with its input; a denied one denies with the person's message", () => {
    expect(permissionReply(bash, { _tag: "Answered", answer: { reply: "once" } })).toEqual({ behavior: "allow", updatedInput: bash.input })
    expect(permissionReply(bash, { _tag: "Denied", answer: { message: "not here" } })).toEqual({ behavior: "deny", message: "not here" })
    expect(permissionReply(bash, { _tag: "Denied", answer: null })).toEqual({ behavior: "deny", message: "The user denied this request." })
  })

  it("an expired request is reported as expired, never as the user's denial", () => {
    const reply = permissionReply(bash, { _tag: "Expired" })
    expect(reply).toEqual({ behavior: "deny", message: EXPIRED_MESSAGE })
    expect(EXPIRED_MESSAGE).toContain("expired")
    expect(EXPIRED_MESSAGE).toContain("not a refusal by the user")
  })

  it("a question's answer becomes AskUserQuestion's answers, keyed by question text, from any of the accepted forms", () => {
    const expected = { behavior: "allow", updatedInput: { ...question.input, answers: { "Which color?": "Blue" } } }
    expect(permissionReply(question, { _tag: "Answered", answer: [["Blue"]] })).toEqual(expected)
    expect(permissionReply(question, { _tag: "Answered", answer: "Blue" })).toEqual(expected)
    expect(permissionReply(question, { _tag: "Answered", answer: { answers: { "Which color?": "Blue" } } })).toEqual(expected)
    expect(permissionReply(question, { _tag: "Answered", answer: [["Blue", "Red"]] })).toMatchObject({
      updatedInput: { answers: { "Which color?": "Blue, Red" } }
    })
  })

  it("batched messages are one turn; a runtime command is a turn of its own", () => {
    const message = (content: string, runtimeCommand = false) => ({ messageId: content, content, runtimeCommand })
    expect(userTurns([message("a"), message("b"), message("/compact", true), message("c")])).toEqual([["a", "b"], ["/compact"], ["c"]])
  })
})

describe("--approve: permission requests this machine answers itself", () => {
  const write = interactionOf(bash)
  const readOnly = interactionOf(read)

  it("none asks a person for everything", () => {
    expect(Option.isNone(settleLocally("none", write))).toBe(true)
    expect(Option.isNone(settleLocally("none", readOnly))).toBe(true)
  })

  it("read-only allows tools that only read, and asks for the rest", () => {
    expect(Option.getOrThrow(settleLocally("read-only", readOnly))._tag).toBe("Answered")
    expect(Option.isNone(settleLocally("read-only", write))).toBe(true)
  })

  it("all allows every tool use, but questions and plan approvals still go to a person", () => {
    expect(Option.getOrThrow(settleLocally("all", write))._tag).toBe("Answered")
    expect(Option.isNone(settleLocally("all", interactionOf(question)))).toBe(true)
    expect(Option.isNone(settleLocally("all", interactionOf(plan)))).toBe(true)
  })
})
