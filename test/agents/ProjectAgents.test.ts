import { SqlClient } from "@effect/sql"
import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { CliType } from "../../catalog/domain/CliType.js"
import { ProjectAgentId } from "../../catalog/domain/Ids.js"
import { AgentColor } from "../../catalog/domain/ProjectAgent.js"
import { createTask, fails, getTask, joinAs, ok, okNull, scopedTo } from "../support/TaskTools.js"
import { TestServer } from "../support/TestServer.js"
import { seedOwner } from "../support/Seed.js"

const agentsOf = (key: string, projectId: string) => Effect.map(ok(key, "list_project_agents", {}, scopedTo(projectId)), (r) => r.agents)

const createAgent = (key: string, projectId: string, args: Record<string, unknown>) =>
  Effect.map(
    ok(key, "create_project_agent", { appearance: { color: "teal" }, ...args }, scopedTo(projectId)),
    (r) => r.projectAgentId
  )

const agentById = (key: string, projectId: string, id: string) =>
  Effect.map(agentsOf(key, projectId), (agents) => agents.find((agent) => agent.projectAgentId === id))

describe("project agent tools", () => {
  layer(TestServer())((it) => {
    it.effect("create_project_agent returns { projectAgentId }; list_project_agents shows every field, unset ones null", () =>
      Effect.gen(function*() {
        const { key, project } = yield* seedOwner("agent-create")
        const id = yield* createAgent(key, project.id, { name: "  Reviewer  " })
        expect(id).toMatch(/^agent_[0-9a-f]{32}$/)
        const full = yield* createAgent(key, project.id, {
          name: "Builder",
          description: "Builds things",
          prompt: "You build.",
          category: "engineering",
          appearance: { color: "purple" },
          automation: {
            enabled: true,
            prompt: "Start on {task}",
            cliType: "codex",
            cliModel: "gpt-5",
            cliEffort: "high",
            mode: "plan",
            workspace: "worktree"
          }
        })
        expect(yield* agentsOf(key, project.id)).toEqual([
          {
            projectAgentId: full,
            name: "Builder",
            description: "Builds things",
            prompt: "You build.",
            category: "engineering",
            appearance: { color: "purple" },
            automation: {
              enabled: true,
              prompt: "Start on {task}",
              cliType: "codex",
              cliModel: "gpt-5",
              cliEffort: "high",
              mode: "plan",
              workspace: "worktree"
            },
            createdAt: expect.any(String),
            updatedAt: expect.any(String)
          },
          {
            projectAgentId: id,
            name: "Reviewer",
            description: null,
            prompt: null,
            category: null,
            appearance: { color: "teal" },
            automation: null,
            createdAt: expect.any(String),
            updatedAt: expect.any(String)
          }
        ])
      }))

    it.effect("name and appearance are required on create; a blank name is refused", () =>
      Effect.gen(function*() {
        const { key, project } = yield* seedOwner("agent-required")
        const scope = scopedTo(project.id)
        expect(yield* fails(key, "create_project_agent", { appearance: { color: "red" } }, scope)).toMatchObject({
          code: "invalid_argument",
          message: expect.stringContaining("name")
        })
        expect(yield* fails(key, "create_project_agent", { name: "No look" }, scope)).toMatchObject({
          code: "invalid_argument",
          message: expect.stringContaining("appearance")
        })
        expect(yield* fails(key, "create_project_agent", { name: "  ", appearance: { color: "red" } }, scope)).toMatchObject({
          code: "invalid_argument",
          message: expect.stringContaining("name: must not be empty")
        })
        expect(yield* agentsOf(key, project.id)).toEqual([])
      }))

    it.effect("appearance.color comes from the Agent palette", () =>
      Effect.gen(function*() {
        const { key, project } = yield* seedOwner("agent-palette")
        for (const color of AgentColor.literals) yield* createAgent(key, project.id, { name: color, appearance: { color } })
        expect(yield* fails(key, "create_project_agent", { name: "X", appearance: { color: "chartreuse" } }, scopedTo(project.id)))
          .toMatchObject({ code: "invalid_argument", message: expect.stringContaining("appearance.color") })
      }))

    it.effect("automation needs enabled; cliType must be a registered runtime slug; workspace is local or worktree", () =>
      Effect.gen(function*() {
        const { key, project } = yield* seedOwner("agent-automation")
        const scope = scopedTo(project.id)
        for (const cliType of CliType.literals) {
          yield* createAgent(key, project.id, { name: `On ${cliType}`, automation: { enabled: false, cliType } })
        }
        for (
          const [automation, field] of [
            [{ cliType: "claude" }, "automation.enabled"],
            [{ enabled: true, cliType: "vim" }, "automation.cliType"],
            [{ enabled: true, workspace: "cloud" }, "automation.workspace"],
            [{ enabled: true, colour: "red" }, "automation.colour"]
          ] as const
        ) {
          expect(yield* fails(key, "create_project_agent", { name: "Bad", appearance: { color: "red" }, automation }, scope))
            .toMatchObject({ code: "invalid_argument", message: expect.stringContaining(field) })
        }
        expect(yield* agentsOf(key, project.id)).toHaveLength(CliType.literals.length)
      }))

    it.effect("update_project_agent returns null and changes only the fields given", () =>
      Effect.gen(function*() {
        const { key, project } = yield* seedOwner("agent-update")
        const id = yield* createAgent(key, project.id, {
          name: "Builder",
          description: "Builds",
          prompt: "You build.",
          category: "eng",
          automation: { enabled: true, cliType: "claude" }
        })
        const before = yield* agentById(key, project.id, id)
        yield* okNull(key, "update_project_agent", { projectAgentId: id, name: "Maker" })
        expect(yield* agentById(key, project.id, id)).toEqual({ ...before, name: "Maker", updatedAt: expect.any(String) })
        yield* okNull(key, "update_project_agent", { projectAgentId: id, appearance: { color: "pink" }, category: "build" })
        expect(yield* agentById(key, project.id, id)).toMatchObject({
          name: "Maker",
          description: "Builds",
          prompt: "You build.",
          category: "build",
          appearance: { color: "pink" },
          automation: { enabled: true, cliType: "claude" }
        })
      }))

    it.effect("null clears description, prompt and category; automation is replaced whole and null clears it", () =>
      Effect.gen(function*() {
        const { key, project } = yield* seedOwner("agent-clear")
        const id = yield* createAgent(key, project.id, {
          name: "Builder",
          description: "Builds",
          prompt: "You build.",
          category: "eng",
          automation: { enabled: true, cliType: "claude", cliModel: "opus", workspace: "local" }
        })
        yield* okNull(key, "update_project_agent", { projectAgentId: id, automation: { enabled: false, mode: "plan" } })
        expect((yield* agentById(key, project.id, id))?.automation).toEqual({ enabled: false, mode: "plan" })
        yield* okNull(key, "update_project_agent", {
          projectAgentId: id,
          description: null,
          prompt: null,
          category: null,
          automation: null
        })
        expect(yield* agentById(key, project.id, id)).toMatchObject({
          name: "Builder",
          description: null,
          prompt: null,
          category: null,
          automation: null
        })
      }))

    it.effect("update_project_agent validates like create: palette, cliType, blank name", () =>
      Effect.gen(function*() {
        const { key, project } = yield* seedOwner("agent-update-invalid")
        const id = yield* createAgent(key, project.id, { name: "Builder" })
        for (
          const [args, field] of [
            [{ appearance: { color: "chartreuse" } }, "appearance.color"],
            [{ automation: { enabled: true, cliType: "emacs" } }, "automation.cliType"],
            [{ name: " " }, "name"]
          ] as const
        ) {
          expect(yield* fails(key, "update_project_agent", { projectAgentId: id, ...args })).toMatchObject({
            code: "invalid_argument",
            message: expect.stringContaining(field)
          })
        }
        expect((yield* agentById(key, project.id, id))?.name).toBe("Builder")
      }))

    it.effect("only active agents are listed; an archived agent cannot be updated", () =>
      Effect.gen(function*() {
        const { key, project } = yield* seedOwner("agent-active")
        const kept = yield* createAgent(key, project.id, { name: "Kept" })
        const retired = yield* createAgent(key, project.id, { name: "Retired" })
        yield* Effect.flatMap(SqlClient.SqlClient, (sql) =>
          sql`UPDATE project_agents SET archived_at = now() WHERE id = ${retired}`.pipe(Effect.orDie))
        expect((yield* agentsOf(key, project.id)).map((agent) =>
          agent.projectAgentId
        )).toEqual([kept])
        expect(yield* fails(key, "update_project_agent", { projectAgentId: retired, name: "Back" })).toMatchObject({
          code: "not_found",
          message: expect.stringContaining("projectAgentId")
        })
      }))

    it.effect("delegating a task to an agent with automation enabled, through the tools, never starts a thread", () =>
      Effect.gen(function*() {
        const { key, project } = yield* seedOwner("agent-delegate")
        const scope = scopedTo(project.id)
        const id = yield* createAgent(key, project.id, {
          name: "Auto",
          automation: { enabled: true, prompt: "Do it", cliType: "claude", workspace: "worktree" }
        })
        const created = yield* createTask(key, scope, { name: "Delegated at creation", delegatedToAgentId: id })
        const later = yield* createTask(key, scope, { name: "Delegated later" })
        yield* ok(key, "update_task", { taskId: later.taskId, delegatedToAgentId: id }, scope)
        expect((yield* getTask(key, created.taskId, scope)).delegatedToAgent).toEqual({ projectAgentId: id, name: "Auto" })
        expect((yield* getTask(key, later.taskId, scope)).delegatedToAgent).toEqual({ projectAgentId: id, name: "Auto" })
        const threads = yield* Effect.flatMap(
          SqlClient.SqlClient,
          (sql) => sql<{ n: number }>`SELECT count(*)::int AS n FROM threads WHERE project_id = ${project.id}`.pipe(Effect.orDie)
        )
        expect(threads[0]?.n).toBe(0)
      }))

    it.effect("tasks keep their delegation when the agent is renamed, and show the new name", () =>
      Effect.gen(function*() {
        const { key, project } = yield* seedOwner("agent-rename")
        const scope = scopedTo(project.id)
        const id = yield* createAgent(key, project.id, { name: "Old name" })
        const task = yield* createTask(key, scope, { name: "Work", delegatedToAgentId: id })
        yield* okNull(key, "update_project_agent", { projectAgentId: id, name: "New name" })
        expect((yield* getTask(key, task.taskId, scope)).delegatedToAgent).toEqual({ projectAgentId: id, name: "New name" })
      }))

    it.effect("viewers read agents but cannot create or update them", () =>
      Effect.gen(function*() {
        const { key, project } = yield* seedOwner("agent-viewer")
        const id = yield* createAgent(key, project.id, { name: "Builder" })
        const viewer = yield* joinAs(project.id, "agent-viewer", "viewer")
        expect(yield* agentsOf(viewer.key, project.id)).toHaveLength(1)
        expect(yield* fails(viewer.key, "create_project_agent", { name: "Mine", appearance: { color: "red" } }, scopedTo(project.id)))
          .toMatchObject({ code: "forbidden" })
        expect(yield* fails(viewer.key, "update_project_agent", { projectAgentId: id, name: "Mine" })).toMatchObject({ code: "forbidden" })
        const member = yield* joinAs(project.id, "agent-member", "member")
        yield* okNull(member.key, "update_project_agent", { projectAgentId: id, name: "Ours" })
      }))

    it.effect("another organization's agent is not found, whether it exists or not", () =>
      Effect.gen(function*() {
        const a = yield* seedOwner("agent-tenant-a")
        const b = yield* seedOwner("agent-tenant-b")
        const id = yield* createAgent(a.key, a.project.id, { name: "A secret agent" })
        for (const projectAgentId of [id, ProjectAgentId.generate()]) {
          expect(yield* fails(b.key, "update_project_agent", { projectAgentId, name: "Stolen" })).toMatchObject({
            code: "not_found",
            message: `projectAgentId: project agent ${projectAgentId} not found`
          })
        }
        expect(yield* fails(b.key, "list_project_agents", { projectId: a.project.id })).toMatchObject({ code: "not_found" })
        expect((yield* agentById(a.key, a.project.id, id))?.name).toBe("A secret agent")
      }))
  })
})
