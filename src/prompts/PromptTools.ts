import { Effect } from "effect"
import { CreatePrompt, ListPrompts, UpdatePrompt } from "../../catalog/Prompts.js"
import { CurrentPrincipal } from "../platform/auth/Principal.js"
import { type PromptRecord, Prompts } from "./Prompts.js"
import { makeScopeResolver } from "../projects/ScopeResolver.js"
import * as Implement from "../platform/mcp/ToolImplementation.js"

export const promptPayload = (prompt: PromptRecord) => ({
  promptId: prompt.id,
  scope: prompt.scope,
  key: prompt.key,
  description: prompt.description,
  category: prompt.category,
  content: prompt.content,
  autoExpand: prompt.autoExpand,
  autoSubmit: prompt.autoSubmit
})

// Prompts take projectId in project scope only (SPEC), unlike Skills.
const SCOPE_OPTIONS = { projectIdInOrganizationScope: false } as const

export const PromptTools = Effect.gen(function*() {
  const prompts = yield* Prompts
  const resolveScope = yield* makeScopeResolver
  return [
    Implement.unscoped(ListPrompts, (input) =>
      Effect.gen(function*() {
        const rows = yield* prompts.list(yield* resolveScope(input, SCOPE_OPTIONS))
        return { prompts: rows.map(promptPayload) }
      })),
    Implement.unscoped(CreatePrompt, ({ scope, projectId, organization, ...input }) =>
      Effect.gen(function*() {
        const owner = yield* resolveScope({ scope, projectId, organization }, SCOPE_OPTIONS)
        return { promptId: yield* prompts.create(owner, input) }
      })),
    Implement.unscoped(UpdatePrompt, ({ promptId, ...patch }) =>
      Effect.gen(function*() {
        yield* prompts.update(yield* CurrentPrincipal, promptId, patch)
        return null
      }))
  ] as const
})
