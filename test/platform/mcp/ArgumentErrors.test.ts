import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { CreateTaskLabel } from "../../../catalog/Labels.js"
import { CreateTask, SearchTasks } from "../../../catalog/Tasks.js"
import type * as Tool from "../../../catalog/Tool.js"
import { CurrentPrincipal } from "../../../src/platform/auth/Principal.js"
import { ApiKeyId, UserId } from "../../../catalog/domain/Ids.js"
import { unscoped } from "../../../src/platform/mcp/ToolImplementation.js"
import { DefaultProject } from "../../../src/platform/auth/Principal.js"

// Decoding runs before any handler, so a handler that is never reached is enough.
const rejection = (tool: Tool.Any, args: unknown) =>
  unscoped(tool, () => Effect.dieMessage("the handler must not run")).run(args).pipe(
    Effect.flip,
    Effect.map((error) => error.message),
    Effect.provideService(CurrentPrincipal, {
      userId: UserId.generate(),
      apiKeyId: ApiKeyId.generate(),
      projectIds: null,
      readOnly: false
    }),
    Effect.provideService(DefaultProject, null)
  )

describe("argument errors", () => {
  it.effect("an enum mismatch lists the allowed values once, not one line per value", () =>
    Effect.gen(function*() {
      const message = yield* rejection(CreateTaskLabel, { name: "x", color: "neon" })
      expect(message).toMatch(/^Invalid arguments: color: must be one of "gray", "red", .*; got "neon"$/)
      expect(message).not.toContain("undefined")
    }))

  it.effect("each bad argument is named once with its rule", () =>
    Effect.gen(function*() {
      const message = yield* rejection(CreateTask, {
        name: "x",
        priority: "urgent",
        dueDate: "tomorrow",
        externalLinks: [{ id: "a", kind: "url", url: "ftp://x" }]
      })
      expect(message).toContain("priority: must be one of \"None\", \"Low\", \"Medium\", \"High\", \"Critical\"; got \"urgent\"")
      expect(message).toContain("dueDate: Expected number")
      expect(message).toContain("externalLinks.0.url: must be an http(s) URL")
      expect(message).not.toContain("Expected undefined")
    }))

  it.effect("a removed nested argument is named with what to use instead", () =>
    Effect.gen(function*() {
      const message = yield* rejection(SearchTasks, { query: "x", filters: { assignee: { id: "u" } } })
      expect(message).toContain("filters.assignee")
      expect(message).toContain("filters.assigneeId")
    }))
})
