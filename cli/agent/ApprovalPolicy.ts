import { Option, Schema } from "effect"
import type { InteractionOutcome, InteractionRequest } from "./runtimes/Runtime.js"

/**
 * `trellis agent start --approve`: which permission requests this machine answers itself
 * instead of asking a person through the interaction bridge.
 *   none       every request goes to a person (the default)
 *   read-only  tool uses that only read are allowed here; the rest go to a person
 *   all        every tool use is allowed here
 * Questions and plan approvals always go to a person: only a person can answer them.
 */
export const ApprovalPolicy = Schema.Literal("none", "read-only", "all")
export type ApprovalPolicy = typeof ApprovalPolicy.Type

export const approvedLocally = { _tag: "Answered", answer: { approvedBy: "policy" } } as const satisfies InteractionOutcome

export const settleLocally = (policy: ApprovalPolicy, request: InteractionRequest): Option.Option<InteractionOutcome> => {
  if (request.kind !== "permission" || request.approval === "ask") return Option.none()
  if (policy === "all" || (policy === "read-only" && request.approval === "read-only")) return Option.some(approvedLocally)
  return Option.none()
}
