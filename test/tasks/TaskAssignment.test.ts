import { SqlClient } from "@effect/sql"
import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { Projects } from "../../src/projects/Projects.js"
import { Users } from "../../src/orgs/Users.js"
import { createProjectAgent, TestServer } from "../support/TestServer.js"
import { seedOwner } from "../support/Seed.js"
import { fails, ok, scopedTo } from "../support/TaskTools.js"
import { createTask, getTask, joinAs, listTasks, noRateLimit } from "./TaskFixtures.js"

describe("assignment: assigneeId and delegatedToAgentId", () => {
  layer(TestServer(noRateLimit))((it) => {
    it.effect("the removed assignee object argument is rejected with an error saying to use assigneeId", () =>
      Effect.gen(function*() {
        const { key, project, user } = yield* seedOwner("removed-assignee")
        const scope = scopedTo(project.id)
        expect(yield* fails(key, "create_task", { name: "X", assignee: { userId: user.id } }, scope)).toMatchObject({
          code: "invalid_argument",
          message: expect.stringMatching(/assignee: .*assigneeId/)
        })
        expect(yield* listTasks(key, project.id)).toEqual([])
        const { taskId } = yield* createTask(key, project.id)
        expect(yield* fails(key, "update_task", { taskId, assignee: { userId: user.id } })).toMatchObject({
          code: "invalid_argument",
          message: expect.stringMatching(/assignee: .*assigneeId/)
        })
        expect((yield* getTask(key, taskId)).assignee).toBeNull()
      }))

    it.effect("payloads carry assignee { userId, name, email } and delegatedToAgent { projectAgentId, name }", () =>
      Effect.gen(function*() {
        const { key, project } = yield* seedOwner("projections")
        const member = yield* joinAs(project.id, "projections", "member", "Mia Member")
        const agentId = yield* createProjectAgent(key, project.id, "Builder bot")
        const { taskId } = yield* createTask(key, project.id, { assigneeId: member.user.id, delegatedToAgentId: agentId })
        const expected = {
          assignee: { userId: member.user.id, name: "Mia Member", email: "member@projections.test" },
          delegatedToAgent: { projectAgentId: agentId, name: "Builder bot" }
        }
        expect(yield* getTask(key, taskId)).toMatchObject(expected)
        expect((yield* listTasks(key, project.id))[0]).toMatchObject(expected)
      }))

    it.effect("clearing the delegation keeps the owner", () =>
      Effect.gen(function*() {
        const { key, project } = yield* seedOwner("clear-delegation")
        const member = yield* joinAs(project.id, "clear-delegation", "member")
        const agentId = yield* createProjectAgent(key, project.id, "Agent")
        const { taskId } = yield* createTask(key, project.id, { assigneeId: member.user.id, delegatedToAgentId: agentId })
        yield* ok(key, "update_task", { taskId, delegatedToAgentId: null })
        expect(yield* getTask(key, taskId)).toMatchObject({ assignee: { userId: member.user.id }, delegatedToAgent: null })
      }))

    it.effect("changing the owner keeps the delegation", () =>
      Effect.gen(function*() {
        const { key, project, user } = yield* seedOwner("change-owner")
        const member = yield* joinAs(project.id, "change-owner", "member")
        const agentId = yield* createProjectAgent(key, project.id, "Agent")
        const { taskId } = yield* createTask(key, project.id, { delegatedToAgentId: agentId })
        expect(yield* getTask(key, taskId)).toMatchObject({ assignee: { userId: user.id }, delegatedToAgent: { projectAgentId: agentId } })
        yield* ok(key, "update_task", { taskId, assigneeId: member.user.id })
        expect(yield* getTask(key, taskId)).toMatchObject({
          assignee: { userId: member.user.id },
          delegatedToAgent: { projectAgentId: agentId }
        })
        yield* ok(key, "update_task", { taskId, assigneeId: null })
        expect(yield* getTask(key, taskId)).toMatchObject({ assignee: null, delegatedToAgent: { projectAgentId: agentId } })
      }))

    it.effect("delegating an ownerless task makes the caller its owner unless assigneeId: null is passed, on create and update", () =>
      Effect.gen(function*() {
        const { key, project, user } = yield* seedOwner("delegate")
        const member = yield* joinAs(project.id, "delegate", "member")
        const agentId = yield* createProjectAgent(key, project.id, "Agent")
        // create
        const owned = yield* createTask(key, project.id, { delegatedToAgentId: agentId })
        expect(yield* getTask(key, owned.taskId)).toMatchObject({
          assignee: { userId: user.id },
          delegatedToAgent: { projectAgentId: agentId }
        })
        const ownerless = yield* createTask(key, project.id, { delegatedToAgentId: agentId, assigneeId: null })
        expect(yield* getTask(key, ownerless.taskId)).toMatchObject({ assignee: null, delegatedToAgent: { projectAgentId: agentId } })
        const explicit = yield* createTask(key, project.id, { delegatedToAgentId: agentId, assigneeId: member.user.id })
        expect((yield* getTask(key, explicit.taskId)).assignee?.userId).toBe(member.user.id)
        // update: the caller (here the member, not the creator) becomes the owner
        const plain = yield* createTask(key, project.id)
        yield* ok(member.key, "update_task", { taskId: plain.taskId, delegatedToAgentId: agentId })
        expect(yield* getTask(key, plain.taskId)).toMatchObject({
          assignee: { userId: member.user.id },
          delegatedToAgent: { projectAgentId: agentId }
        })
        const stays = yield* createTask(key, project.id)
        yield* ok(member.key, "update_task", { taskId: stays.taskId, delegatedToAgentId: agentId, assigneeId: null })
        expect(yield* getTask(key, stays.taskId)).toMatchObject({ assignee: null, delegatedToAgent: { projectAgentId: agentId } })
        // a task that has an owner keeps it when delegated by someone else
        yield* ok(key, "update_task", { taskId: explicit.taskId, delegatedToAgentId: null })
        yield* ok(key, "update_task", { taskId: explicit.taskId, delegatedToAgentId: agentId })
        expect((yield* getTask(key, explicit.taskId)).assignee?.userId).toBe(member.user.id)
      }))

    it.effect("an agent of another project and an assignee who is not a project member are rejected, and nothing changes", () =>
      Effect.gen(function*() {
        const { key, organization, project } = yield* seedOwner("assign-rules")
        const scope = scopedTo(project.id)
        const other = yield* (yield* Projects).create({ organizationId: organization.id, name: "Other", ref: "OTHER" })
        const foreignAgent = yield* createProjectAgent(key, other.id, "Foreign agent")
        const outsider = yield* joinAs(other.id, "assign-rules", "member")
        const nobody = yield* (yield* Users).create({ name: "Nobody", email: "nobody@assign-rules.test" })
        for (const agentId of [foreignAgent, "agent_" + "0".repeat(32), "not-an-agent"]) {
          const error = yield* fails(key, "create_task", { name: "X", delegatedToAgentId: agentId }, scope)
          expect(error.message).toContain("delegatedToAgentId")
        }
        for (const userId of [outsider.user.id, nobody.id, "user_" + "0".repeat(32)]) {
          expect(yield* fails(key, "create_task", { name: "X", assigneeId: userId }, scope)).toMatchObject({
            code: "invalid_argument",
            message: expect.stringContaining("assigneeId: ")
          })
        }
        expect(yield* listTasks(key, project.id)).toEqual([])
        const { taskId } = yield* createTask(key, project.id)
        expect((yield* fails(key, "update_task", { taskId, delegatedToAgentId: foreignAgent })).message).toContain("delegatedToAgentId")
        expect(yield* fails(key, "update_task", { taskId, assigneeId: outsider.user.id })).toMatchObject({
          code: "invalid_argument",
          message: expect.stringContaining("assigneeId: ")
        })
        // A failing field leaves the others unwritten too.
        expect((yield* fails(key, "update_task", { taskId, name: "Renamed", delegatedToAgentId: foreignAgent })).message).toContain(
          "delegatedToAgentId"
        )
        expect(yield* getTask(key, taskId)).toMatchObject({ name: "A task", assignee: null, delegatedToAgent: null })
      }))

    it.effect("an archived project agent cannot be delegated to", () =>
      Effect.gen(function*() {
        const { key, project } = yield* seedOwner("archived-agent")
        const agentId = yield* createProjectAgent(key, project.id, "Retired")
        // Nothing archives an agent yet but the database.
        yield* Effect.flatMap(SqlClient.SqlClient, (sql) =>
          sql`UPDATE project_agents SET archived_at = now() WHERE id = ${agentId}`.pipe(Effect.orDie))
        expect((yield* fails(key, "create_task", { name: "X", delegatedToAgentId: agentId }, scopedTo(project.id))).message).toContain(
          "delegatedToAgentId"
        )
      }))
  })
})
