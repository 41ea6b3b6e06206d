import { describe, expect, layer } from "@effect/vitest"
import { Effect, Schema } from "effect"
import * as Tool from "../../catalog/Tool.js"
import { CurrentPrincipal, CurrentProject } from "../../src/platform/auth/Principal.js"
import { ProjectId } from "../../catalog/domain/Ids.js"
import { Memberships } from "../../src/orgs/Memberships.js"
import { Projects } from "../../src/projects/Projects.js"
import { Users } from "../../src/orgs/Users.js"
import { scoped } from "../../src/platform/mcp/ToolImplementation.js"
import { DefaultProject } from "../../src/platform/auth/Principal.js"
import { ProjectGate } from "../../src/platform/auth/ProjectGate.js"
import { ServiceTest } from "../support/ServiceTest.js"
import { createKey, seedOwner } from "../support/Seed.js"

// A `P?` tool declared the way catalog tools are, echoing the project it was resolved to.
const WhichProject = Tool.make("which_project", {
  title: "Which project",
  description: "Test tool: names the resolved project.",
  input: Schema.Struct({ projectId: Tool.ProjectIdArgument }),
  output: Schema.Struct({ ref: Schema.String, role: Schema.String }),
  annotations: { readOnly: true, destructive: false, idempotent: true }
})

const implementation = scoped(WhichProject, () => Effect.map(CurrentProject, ({ project, role }) => ({ ref: project.ref, role })))

const run = (args: unknown, principal: CurrentPrincipal["Type"], defaultProject: string | null) =>
  Effect.flatMap(Projects, (projects) =>
    implementation.run(args).pipe(
      Effect.provideService(CurrentPrincipal, principal),
      Effect.provideService(DefaultProject, defaultProject),
      Effect.provideService(ProjectGate, projects),
      Effect.either
    ))

describe("project-scoped (P?) tools", () => {
  layer(ServiceTest(Projects.Default))((it) => {
    it.effect("declaring the projectId argument makes a tool P?", () =>
      Effect.sync(() => {
        expect(WhichProject.project).toBe("required")
        expect(Tool.inputJsonSchema(WhichProject)).toMatchObject({ properties: { projectId: { type: "string" } } })
      }))

    it.effect("the connection's ?project= is used when projectId is omitted", () =>
      Effect.gen(function*() {
        const { principal, project } = yield* seedOwner("url")
        expect(yield* run({}, principal, project.id)).toMatchObject({ _tag: "Right", right: { ref: "MAIN", role: "admin" } })
      }))

    it.effect("an explicit projectId wins over ?project=", () =>
      Effect.gen(function*() {
        const { organization, principal, project } = yield* seedOwner("explicit")
        const other = yield* (yield* Projects).create({ organizationId: organization.id, name: "Other", ref: "OTHER" })
        expect(yield* run({ projectId: other.id }, principal, project.id)).toMatchObject({ right: { ref: "OTHER" } })
      }))

    it.effect("without projectId or ?project= the call is a tool error naming projectId", () =>
      Effect.gen(function*() {
        const { principal } = yield* seedOwner("none")
        const result = yield* run({}, principal, null)
        expect(result).toMatchObject({
          _tag: "Left",
          left: { _tag: "InvalidArgument", message: expect.stringContaining("projectId: required") }
        })
      }))

    it.effect("a ?project= that is not a project ID is a tool error", () =>
      Effect.gen(function*() {
        const { principal } = yield* seedOwner("badurl")
        expect(yield* run({}, principal, "DEMO")).toMatchObject({
          left: { _tag: "InvalidArgument", message: expect.stringContaining("?project=DEMO") }
        })
      }))

    it.effect("a project the user cannot access is not found, whether it exists or not", () =>
      Effect.gen(function*() {
        const mine = yield* seedOwner("mine")
        const theirs = yield* seedOwner("theirs")
        expect(yield* run({ projectId: theirs.project.id }, mine.principal, null)).toMatchObject({ left: { _tag: "NotFound" } })
        expect(yield* run({ projectId: ProjectId.generate() }, mine.principal, null)).toMatchObject({ left: { _tag: "NotFound" } })
      }))

    it.effect("a key narrowed away from the project gets a forbidden tool error, never data", () =>
      Effect.gen(function*() {
        const { organization, project, user } = yield* seedOwner("narrowed")
        const other = yield* (yield* Projects).create({ organizationId: organization.id, name: "Other", ref: "OTHER" })
        const key = yield* createKey(user.id, [other.id])
        expect(yield* run({}, key.principal, project.id)).toMatchObject({
          left: { _tag: "Forbidden", message: expect.stringContaining(project.id) }
        })
        expect(yield* run({}, key.principal, other.id)).toMatchObject({ right: { ref: "OTHER" } })
      }))

    it.effect("a project member without an organization role gets their project role", () =>
      Effect.gen(function*() {
        const { project } = yield* seedOwner("member")
        const user = yield* (yield* Users).create({ name: "Viewer", email: "viewer@member.test" })
        yield* (yield* Memberships).addToProject(project.id, user.id, "viewer")
        const key = yield* createKey(user.id, null)
        expect(yield* run({}, key.principal, project.id)).toMatchObject({ right: { role: "viewer" } })
      }))
  })
})
