import { Effect } from "effect"
import { GetThreadChanges, RefreshThreadChanges } from "../../catalog/ThreadChanges.js"
import { CurrentPrincipal } from "../platform/auth/Principal.js"
import * as Implement from "../platform/mcp/ToolImplementation.js"
import { ChangeReportPages } from "./ChangeReportPages.js"
import { ChangeRequests } from "./ChangeRequests.js"

export const ThreadChangeTools = Effect.gen(function*() {
  const pages = yield* ChangeReportPages
  const requests = yield* ChangeRequests
  return [
    Implement.unscoped(GetThreadChanges, (input) => Effect.flatMap(CurrentPrincipal, (principal) => pages.page(principal, input))),
    Implement.unscoped(
      RefreshThreadChanges,
      (input) => Effect.flatMap(CurrentPrincipal, (principal) => requests.request(principal, input.threadId))
    )
  ] as const
})
