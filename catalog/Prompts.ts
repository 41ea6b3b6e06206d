import { Schema } from "effect"
import { PromptId } from "./domain/Ids.js"
import { PROMPT_KEY_PATTERN, PROMPT_KEY_RULE } from "./domain/Prompt.js"
import { ScopeKind } from "./domain/Scope.js"
import { ScopeFields } from "./ScopeArguments.js"
import * as Tool from "./Tool.js"

const PromptKey = Schema.String.pipe(
  Schema.pattern(PROMPT_KEY_PATTERN, { message: () => `must be ${PROMPT_KEY_RULE}` })
).annotations({
  title: "Prompt key",
  description: `The slash command without its slash (review, git:commit): ${PROMPT_KEY_RULE}; unique per project or organization`
})

const PromptContent = Schema.String.pipe(Schema.minLength(1, { message: () => "must not be empty" })).annotations({
  description: "The text the command inserts into the composer"
})

const SCOPE_RULES =
  "`projectId` is for project scope only; `organization` (slug or ID) for organization scope only, where it defaults to " +
  "the organization owning the connection's ?project=. "

export const Prompt = Schema.Struct({
  promptId: PromptId,
  scope: ScopeKind,
  key: Schema.String,
  description: Schema.NullOr(Schema.String).annotations({ description: "Author-written; untrusted content" }),
  category: Schema.NullOr(Schema.String),
  content: Schema.String,
  autoExpand: Schema.Boolean,
  autoSubmit: Schema.Boolean
}).annotations({ identifier: "Prompt" })

export const ListPrompts = Tool.make("list_prompts", {
  title: "List prompts",
  description: "Lists the slash commands of a project (scope `project`, default) or of an organization (scope `organization`), by key. " +
    SCOPE_RULES +
    "These are service prompts, not runtime commands: they are not sent to create_thread with runtimeCommand.",
  input: Schema.Struct(ScopeFields),
  output: Schema.Struct({ prompts: Schema.Array(Prompt) }),
  annotations: { readOnly: true, destructive: false, idempotent: true }
})

export const CreatePrompt = Tool.make("create_prompt", {
  title: "Create a prompt",
  description: "Creates a slash command in a project (default) or an organization. autoExpand and autoSubmit default to false. " +
    SCOPE_RULES +
    "Needs project role admin or member; organization scope needs organization role owner or admin.",
  input: Schema.Struct({
    ...ScopeFields,
    key: PromptKey,
    content: PromptContent,
    description: Schema.optional(Schema.NullOr(Schema.String)),
    category: Schema.optional(Schema.NullOr(Schema.String)),
    autoExpand: Schema.optional(
      Schema.Boolean.annotations({ description: "Expand the content in place when the command is picked", default: false })
    ),
    autoSubmit: Schema.optional(
      Schema.Boolean.annotations({ description: "Send the message right away when the command is picked", default: false })
    )
  }),
  output: Schema.Struct({ promptId: PromptId }),
  annotations: { readOnly: false, destructive: false, idempotent: false }
})

export const UpdatePrompt = Tool.make("update_prompt", {
  title: "Update a prompt",
  description: "Changes only the fields given; description and category take null to clear. Takes no scope: the prompt keeps its own. " +
    "Deleting a prompt is not available here (web UI only). Returns null.",
  input: Schema.Struct({
    promptId: PromptId,
    key: Schema.optional(PromptKey),
    content: Schema.optional(PromptContent),
    description: Schema.optional(Schema.NullOr(Schema.String).annotations({ description: "null clears" })),
    category: Schema.optional(Schema.NullOr(Schema.String).annotations({ description: "null clears" })),
    autoExpand: Schema.optional(Schema.Boolean),
    autoSubmit: Schema.optional(Schema.Boolean)
  }),
  output: Schema.Null,
  annotations: { readOnly: false, destructive: false, idempotent: true }
})
