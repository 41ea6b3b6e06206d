import { Effect, Layer } from "effect"
import type { ArtifactContentType } from "../../catalog/domain/Artifact.js"
import type { ProjectId } from "../../catalog/domain/Ids.js"
import type { ProjectRole } from "../../catalog/domain/Roles.js"
import { ArtifactComments } from "../../src/artifacts/ArtifactComments.js"
import { Artifacts } from "../../src/artifacts/Artifacts.js"
import { Memberships } from "../../src/orgs/Memberships.js"
import { Projects } from "../../src/projects/Projects.js"
import { TaskReads } from "../../src/tasks/TaskReads.js"
import { TaskTree } from "../../src/tasks/TaskTree.js"
import { TaskWrites } from "../../src/tasks/TaskWrites.js"
import { Users } from "../../src/orgs/Users.js"
import { createKey, seedOwner } from "./Seed.js"

/** Helpers for tests that call the artifact and artifact comment services directly. */

/** The services these helpers use, for `ServiceTest`. */
export const ArtifactServices = Layer.mergeAll(
  Artifacts.Default,
  ArtifactComments.Default,
  TaskReads.Default,
  TaskWrites.Default,
  TaskTree.Default
)

/** A project owner with one task and an artifact on it (markdown unless told), and the services. */
export const seedArtifact = (slug: string, content: string, contentType?: ArtifactContentType) =>
  Effect.gen(function*() {
    const owner = yield* seedOwner(slug)
    const access = yield* (yield* Projects).access(owner.principal, owner.project.id)
    const reads = yield* TaskReads
    const writes = yield* TaskWrites
    const artifacts = yield* Artifacts
    const comments = yield* ArtifactComments
    const { taskId } = yield* writes.create(owner.principal, access, { name: "Task" })
    const task = yield* reads.resolve(owner.principal, taskId, null)
    const { artifactId } = yield* artifacts.create(owner.principal, task, { name: "Doc", content, contentType })
    const current = () => artifacts.read(owner.principal, artifactId)
    /** Another task of the project, resolved for the owner. */
    const newTask = (name: string) =>
      Effect.flatMap(writes.create(owner.principal, access, { name }), (created) => reads.resolve(owner.principal, created.taskId, null))
    return { ...owner, access, reads, writes, tree: yield* TaskTree, artifacts, comments, task, artifactId, current, newTask }
  })

/** A new user with `role` in the project, and their principal. */
export const memberAs = (projectId: ProjectId, slug: string, role: ProjectRole) =>
  Effect.gen(function*() {
    const user = yield* (yield* Users).create({ name: `${role} of ${slug}`, email: `${role}@${slug}.test` })
    yield* (yield* Memberships).addToProject(projectId, user.id, role)
    return { user, principal: (yield* createKey(user.id, null)).principal }
  })
