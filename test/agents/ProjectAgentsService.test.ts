import { SqlClient } from "@effect/sql"
import { describe, expect, layer } from "@effect/vitest"
import { Effect, Either, Layer, Schema } from "effect"
import type { ProjectAccess } from "../../src/platform/auth/Principal.js"
import { CliType } from "../../catalog/domain/CliType.js"
import { ProjectAgentId } from "../../catalog/domain/Ids.js"
import { AgentAppearance, AgentAutomation, AgentColor, MAX_AGENT_NAME_LENGTH } from "../../catalog/domain/ProjectAgent.js"
import type { ProjectRole } from "../../catalog/domain/Roles.js"
import { Memberships } from "../../src/orgs/Memberships.js"
import { ProjectAgents } from "../../src/agents/ProjectAgents.js"
import { Projects } from "../../src/projects/Projects.js"
import { TaskWrites } from "../../src/tasks/TaskWrites.js"
import { Users } from "../../src/orgs/Users.js"
import { ServiceTest } from "../support/ServiceTest.js"
import { createKey, seedOwner } from "../support/Seed.js"

/** A fresh organization and project, seen with `role`. */
const seed = (slug: string, role: ProjectRole = "admin") =>
  Effect.gen(function*() {
    const owner = yield* seedOwner(slug)
    const access: ProjectAccess = { project: owner.project, role }
    return { ...owner, access, agents: yield* ProjectAgents }
  })

/** Another user of the project, with `role`, and their unnarrowed key's principal. */
const member = (projectId: ProjectAccess["project"]["id"], slug: string, role: ProjectRole) =>
  Effect.gen(function*() {
    const user = yield* (yield* Users).create({ name: `${role} of ${slug}`, email: `${role}@${slug}.test` })
    yield* (yield* Memberships).addToProject(projectId, user.id, role)
    return (yield* createKey(user.id, null)).principal
  })

const teal = { color: "teal" } as const

/** An agent with every optional field set. */
const builder = (automation: AgentAutomation) =>
  ({ name: "Builder", description: "Builds", prompt: "You build.", category: "eng", appearance: teal, automation }) as const

const decodeAutomation = Schema.decodeUnknownEither(AgentAutomation)
const decodeAppearance = Schema.decodeUnknownEither(AgentAppearance)

const countThreads = (projectId: string) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) =>
      sql<{ n: number }>`SELECT count(*)::int AS n FROM threads WHERE project_id = ${projectId}`.pipe(
        Effect.orDie,
        Effect.map((rows) => rows[0]?.n)
      )
  )

describe("ProjectAgents", () => {
  layer(ServiceTest(Layer.mergeAll(ProjectAgents.Default, TaskWrites.Default)))((it) => {
    it.effect("create returns the new agent's ID; list shows every stored field, unset ones null", () =>
      Effect.gen(function*() {
        const { access, agents } = yield* seed("pa-create")
        const plain = yield* agents.create(access, { name: "Reviewer", appearance: teal })
        const automation = {
          enabled: true,
          prompt: "Start",
          cliType: "codex",
          cliModel: "gpt-5",
          cliEffort: "high",
          mode: "plan",
          workspace: "worktree"
        } as const
        const full = yield* agents.create(access, {
          name: "Builder",
          description: "Builds",
          prompt: "You build.",
          category: "eng",
          appearance: { color: "purple" },
          automation
        })
        expect(plain).toMatch(/^agent_[0-9a-f]{32}$/)
        expect(yield* agents.list(access)).toEqual([
          expect.objectContaining({
            id: full,
            name: "Builder",
            description: "Builds",
            prompt: "You build.",
            category: "eng",
            color: "purple",
            automation
          }),
          expect.objectContaining({
            id: plain,
            name: "Reviewer",
            description: null,
            prompt: null,
            category: null,
            color: "teal",
            automation: null
          })
        ])
      }))

    it.effect("a name is trimmed, must not be blank, and is at most 80 characters, on create and update", () =>
      Effect.gen(function*() {
        const { access, agents, principal } = yield* seed("pa-names")
        const id = yield* agents.create(access, { name: "  Spaced  ", appearance: teal })
        expect((yield* agents.list(access))[0]?.name).toBe("Spaced")
        for (const name of ["", "  \t "]) {
          expect(yield* Effect.flip(agents.create(access, { name, appearance: teal }))).toMatchObject({
            _tag: "InvalidArgument",
            message: "name: must not be empty or blank"
          })
        }
        expect(yield* Effect.flip(agents.create(access, { name: "x".repeat(MAX_AGENT_NAME_LENGTH + 1), appearance: teal })))
          .toMatchObject({ _tag: "InvalidArgument", message: expect.stringContaining(`name: must be at most ${MAX_AGENT_NAME_LENGTH}`) })
        yield* agents.create(access, { name: "y".repeat(MAX_AGENT_NAME_LENGTH), appearance: teal })
        expect(yield* Effect.flip(agents.update(principal, id, { name: " " }))).toMatchObject({ _tag: "InvalidArgument" })
        expect((yield* agents.list(access)).map((agent) => agent.name)).toEqual(["Spaced", "y".repeat(MAX_AGENT_NAME_LENGTH)])
      }))

    it.effect("appearance is a color of the Agent palette", () =>
      Effect.sync(() => {
        for (const color of AgentColor.literals) expect(Either.isRight(decodeAppearance({ color }))).toBe(true)
        for (const appearance of [{ color: "chartreuse" }, {}, { color: "Teal" }]) {
          expect(Either.isLeft(decodeAppearance(appearance)), JSON.stringify(appearance)).toBe(true)
        }
      }))

    it.effect("automation needs enabled; cliType is one of the registered runtime slugs; workspace is local or worktree", () =>
      Effect.sync(() => {
        // DESIGN §7: runtimes A–D, then the seven registered but not executable ones.
        expect([...CliType.literals].sort()).toEqual(
          ["claude", "codex", "opencode", "gemini", "cursor", "amp", "copilot", "aider", "qwen", "droid", "other"].sort()
        )
        for (const cliType of CliType.literals) expect(Either.isRight(decodeAutomation({ enabled: false, cliType }))).toBe(true)
        expect(Either.isRight(decodeAutomation({ enabled: true }))).toBe(true)
        for (const workspace of ["local", "worktree"]) expect(Either.isRight(decodeAutomation({ enabled: true, workspace }))).toBe(true)
        for (
          const automation of [
            { cliType: "claude" },
            { enabled: "yes" },
            { enabled: true, cliType: "vim" },
            { enabled: true, cliType: "Claude" },
            { enabled: true, workspace: "cloud" }
          ]
        ) {
          expect(Either.isLeft(decodeAutomation(automation)), JSON.stringify(automation)).toBe(true)
        }
      }))

    it.effect("only active agents are listed; an archived agent can be neither updated nor delegated to", () =>
      Effect.gen(function*() {
        const { access, agents, principal, project } = yield* seed("pa-active")
        const kept = yield* agents.create(access, { name: "Kept", appearance: teal })
        const retired = yield* agents.create(access, { name: "Retired", appearance: teal })
        yield* Effect.flatMap(SqlClient.SqlClient, (sql) =>
          sql`UPDATE project_agents SET archived_at = now() WHERE id = ${retired}`.pipe(Effect.orDie))
        expect((yield* agents.list(access)).map((agent) =>
          agent.id
        )).toEqual([kept])
        expect(yield* Effect.flip(agents.update(principal, retired, { name: "Back" }))).toMatchObject({
          _tag: "NotFound",
          message: `projectAgentId: project agent ${retired} not found`
        })
        expect(yield* Effect.flip((yield* TaskWrites).create(principal, access, { name: "Work", delegatedToAgentId: retired })))
          .toMatchObject({ _tag: "NotFound", message: expect.stringContaining("delegatedToAgentId") })
        expect(yield* countThreads(project.id)).toBe(0)
      }))

    it.effect("update changes only the fields given", () =>
      Effect.gen(function*() {
        const { access, agents, principal } = yield* seed("pa-update")
        const id = yield* agents.create(access, builder({ enabled: true, cliType: "claude" }))
        const [before] = yield* agents.list(access)
        yield* agents.update(principal, id, {})
        expect(yield* agents.list(access)).toEqual([{ ...before, updatedAt: expect.any(Date) }])
        yield* agents.update(principal, id, { name: "Maker" })
        expect(yield* agents.list(access)).toEqual([{ ...before, name: "Maker", updatedAt: expect.any(Date) }])
        yield* agents.update(principal, id, { appearance: { color: "pink" }, category: "build" })
        expect(yield* agents.list(access)).toEqual([{
          ...before,
          name: "Maker",
          color: "pink",
          category: "build",
          updatedAt: expect.any(Date)
        }])
      }))

    it.effect("null clears description, prompt and category; automation is replaced whole and null clears it", () =>
      Effect.gen(function*() {
        const { access, agents, principal } = yield* seed("pa-clear")
        const id = yield* agents.create(access, builder({ enabled: true, cliType: "claude", cliModel: "opus", workspace: "local" }))
        yield* agents.update(principal, id, { automation: { enabled: false, mode: "plan" } })
        expect((yield* agents.list(access))[0]?.automation).toEqual({ enabled: false, mode: "plan" })
        yield* agents.update(principal, id, { description: null, prompt: null, category: null, automation: null })
        expect((yield* agents.list(access))[0]).toMatchObject({
          name: "Builder",
          description: null,
          prompt: null,
          category: null,
          automation: null
        })
      }))

    it.effect("creating and updating agents needs project role admin or member; viewers only list them", () =>
      Effect.gen(function*() {
        const { access, agents, project } = yield* seed("pa-roles")
        const id = yield* agents.create(access, { name: "Builder", appearance: teal })
        const viewer = yield* member(project.id, "pa-roles-viewer", "viewer")
        const viewerAccess = yield* (yield* Projects).access(viewer, project.id)
        expect(yield* agents.list(viewerAccess)).toHaveLength(1)
        expect(yield* Effect.flip(agents.create(viewerAccess, { name: "Mine", appearance: teal }))).toMatchObject({
          _tag: "Forbidden",
          message: expect.stringContaining("admin or member")
        })
        expect(yield* Effect.flip(agents.update(viewer, id, { name: "Mine" }))).toMatchObject({ _tag: "Forbidden" })
        const writer = yield* member(project.id, "pa-roles-member", "member")
        yield* agents.update(writer, id, { name: "Ours" })
        expect((yield* agents.list(access)).map((agent) => agent.name)).toEqual(["Ours"])
      }))

    it.effect("updating an unknown agent, or one of a project the caller cannot see, is not found and changes nothing", () =>
      Effect.gen(function*() {
        const a = yield* seed("pa-tenant-a")
        const b = yield* seedOwner("pa-tenant-b")
        const id = yield* a.agents.create(a.access, { name: "Secret", appearance: teal })
        for (const agentId of [id, ProjectAgentId.generate()]) {
          expect(yield* Effect.flip(a.agents.update(b.principal, agentId, { name: "Stolen" }))).toMatchObject({
            _tag: "NotFound",
            message: `projectAgentId: project agent ${agentId} not found`
          })
        }
        expect((yield* a.agents.list(a.access)).map((agent) => agent.name)).toEqual(["Secret"])
      }))

    it.effect("delegating a task to an agent with automation enabled never starts a thread", () =>
      Effect.gen(function*() {
        const { access, agents, principal, project } = yield* seed("pa-delegate")
        const id = yield* agents.create(access, {
          name: "Auto",
          appearance: teal,
          automation: { enabled: true, prompt: "Do it", cliType: "claude", workspace: "worktree" }
        })
        yield* (yield* TaskWrites).create(principal, access, { name: "Delegated", delegatedToAgentId: id })
        expect(yield* countThreads(project.id)).toBe(0)
      }))
  })
})
