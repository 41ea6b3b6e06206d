import { Schema } from "effect"
import { OrganizationId, ProjectId } from "./domain/Ids.js"
import { ProjectRole } from "./domain/Roles.js"
import * as Tool from "./Tool.js"

export const ProjectSummary = Schema.Struct({
  projectId: ProjectId,
  name: Schema.String,
  ref: Schema.String.annotations({ description: "Short uppercase project ref, the prefix of task refs (DEMO-12)" }),
  organization: Schema.Struct({
    organizationId: OrganizationId,
    slug: Schema.String,
    name: Schema.String
  }),
  role: ProjectRole.annotations({
    description: "The caller's effective role in the project (organization owners and admins act as project admins)"
  }),
  createdAt: Schema.String.annotations({ description: "ISO 8601 timestamp" }),
  updatedAt: Schema.String.annotations({ description: "ISO 8601 timestamp" })
}).annotations({ identifier: "ProjectSummary" })

export const ListProjects = Tool.make("list_projects", {
  title: "List projects",
  description:
    "Lists the projects the caller can access, ordered by organization and name. A key narrowed to some projects sees only those.",
  input: Schema.Struct({}),
  output: Schema.Struct({ projects: Schema.Array(ProjectSummary) }),
  annotations: { readOnly: true, destructive: false, idempotent: true }
})
