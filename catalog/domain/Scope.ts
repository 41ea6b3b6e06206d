import { Schema } from "effect"

/** Who owns a prompt or a Skill: one project, or a whole organization. */
export const ScopeKind = Schema.Literal("project", "organization")
export type ScopeKind = typeof ScopeKind.Type
