import { describe, expect, it } from "@effect/vitest"
import { approvalReply, userInputAnswers } from "../../../cli/agent/runtimes/CodexAppServer.js"
import { EXPIRED_MESSAGE, permissionReply, questionReplies } from "../../../cli/agent/runtimes/OpenCode.js"

const questions = [{
  id: "color",
  header: "Color",
  question: "Which color?",
  isOther: false,
  isSecret: false,
  options: [{ label: "Blue", description: "" }]
}]

describe("runtime B (codex app-server): interaction outcomes as protocol replies", () => {
  it("an allowed approval is accepted once; a denied one is declined", () => {
    expect(approvalReply({ _tag: "Answered", answer: { decision: "accept" } })).toEqual({ decision: "accept" })
    expect(approvalReply({ _tag: "Denied", answer: null })).toEqual({ decision: "decline" })
  })

  it("an expired approval is declined, never cancelled (Codex has no expired reply)", () => {
    expect(approvalReply({ _tag: "Expired" })).toEqual({ decision: "decline" })
  })

  it("request_user_input answers are keyed by question id, from any accepted form; an unanswered question gets none", () => {
    const expected = { answers: { color: { answers: ["Blue"] } } }
    expect(userInputAnswers(questions, { _tag: "Answered", answer: [["Blue"]] })).toEqual(expected)
    expect(userInputAnswers(questions, { _tag: "Answered", answer: { answers: { color: ["Blue"] } } })).toEqual(expected)
    expect(userInputAnswers(questions, { _tag: "Answered", answer: "Blue" })).toEqual(expected)
    expect(userInputAnswers(questions, { _tag: "Denied", answer: null })).toEqual({ answers: {} })
    expect(userInputAnswers(questions, { _tag: "Expired" })).toEqual({ answers: {} })
  })
})

describe("runtime C (opencode): interaction outcomes as permission.reply / question.reply", () => {
  it("an allowed permission is replied once; a denied one rejected with the person's message, if any", () => {
    expect(permissionReply({ _tag: "Answered", answer: {} })).toEqual({ reply: "once" })
    expect(permissionReply({ _tag: "Denied", answer: { message: "Not here." } })).toEqual({ reply: "reject", message: "Not here." })
    expect(permissionReply({ _tag: "Denied", answer: null })).toEqual({ reply: "reject" })
  })

  it("an expired permission is rejected with a message saying it expired, never as the user's refusal", () => {
    expect(permissionReply({ _tag: "Expired" })).toEqual({ reply: "reject", message: EXPIRED_MESSAGE })
    expect(EXPIRED_MESSAGE).toContain("expired")
    expect(EXPIRED_MESSAGE).toContain("not a refusal by the user")
  })

  it("question answers are one list of labels per question, from any accepted form", () => {
    expect(questionReplies(questions, [["Blue"]])).toEqual([["Blue"]])
    expect(questionReplies(questions, { answers: [["Blue"]] })).toEqual([["Blue"]])
    expect(questionReplies(questions, "Blue")).toEqual([["Blue"]])
    expect(questionReplies([...questions, ...questions], [["Blue"]])).toEqual([["Blue"], []])
  })
})
