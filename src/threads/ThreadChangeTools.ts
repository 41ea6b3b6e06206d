import { Effect } from "effect"
import { GetThreadChanges } from "../../catalog/ThreadChanges.js"
import { CurrentPrincipal } from "../platform/auth/Principal.js"
import * as Implement from "../platform/mcp/ToolImplementation.js"
import { ChangeReportPages } from "./ChangeReportPages.js"

export const ThreadChangeTools = Effect.gen(function*() {
  const pages = yield* ChangeReportPages
  return [
    Implement.unscoped(GetThreadChanges, (input) => Effect.flatMap(CurrentPrincipal, (principal) => pages.page(principal, input)))
  ] as const
})
