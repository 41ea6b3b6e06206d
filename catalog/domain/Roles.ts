import { Schema } from "effect"

export const OrganizationRole = Schema.Literal("owner", "admin", "member")
export type OrganizationRole = typeof OrganizationRole.Type

export const ProjectRole = Schema.Literal("admin", "member", "viewer")
export type ProjectRole = typeof ProjectRole.Type
