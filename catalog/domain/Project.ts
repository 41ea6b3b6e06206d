import { Schema } from "effect"
import { OrganizationId, ProjectId } from "./Ids.js"

/** A project with its organization's slug and name, as services and tools read it. */
export const ProjectRecord = Schema.Struct({
  id: ProjectId,
  name: Schema.String,
  ref: Schema.String,
  organizationId: OrganizationId,
  organizationSlug: Schema.String,
  organizationName: Schema.String,
  createdAt: Schema.DateFromSelf,
  updatedAt: Schema.DateFromSelf
})
export type ProjectRecord = typeof ProjectRecord.Type
