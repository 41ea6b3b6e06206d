import { describe, expect, it } from "@effect/vitest"
import { Schema } from "effect"
import { ProjectAgent } from "../../catalog/Agents.js"
import { CliProfile } from "../../catalog/domain/CliProfile.js"
import { MAX_TITLE_LENGTH } from "../../catalog/domain/Thread.js"
import { argumentsOf, targetOf } from "../../web/src/newthread/draft.js"
import { delegationDraft, type DelegatedTask } from "../../web/src/newthread/delegation.js"

const hex = (n: number) => n.toString(16).padStart(32, "0")

const agent = (automation: object | null) =>
  Schema.decodeUnknownSync(ProjectAgent)({
    projectAgentId: `agent_${hex(7)}`,
    name: "Reviewer",
    description: null,
    prompt: "You review carefully.",
    category: null,
    appearance: { color: "teal" },
    automation,
    createdAt: "2026-11-27T00:00:00.000Z",
    updatedAt: "2026-11-27T00:00:00.000Z"
  })

const machine = (n: number, isOnline: boolean, runtimes: ReadonlyArray<string>) =>
  Schema.decodeUnknownSync(CliProfile)({
    profileId: `profile_${hex(n)}`,
    projectId: "DEMO",
    name: `box-${n}`,
    hostname: `box-${n}.local`,
    appVersion: "0.1.0",
    availableClis: runtimes.map((type) => ({ type, version: "1" })),
    paths: [{
      pathId: `path_${hex(n)}`,
      path: "/src",
      label: "src",
      gitRemoteUrl: null,
      kind: "checkout",
      parentPathId: null,
      branch: "main"
    }],
    isOnline,
    lastConnectedAt: null
  })

const task: DelegatedTask = {
  taskId: `task_${hex(12)}`,
  refId: "DEMO-12",
  name: "Export the rows as CSV",
  descriptionMarkdown: "Use **commas**.\n",
  taskUrl: "https://trellis.example/projects/DEMO/tasks/DEMO-12"
}

const automation = { enabled: true, prompt: "Review this task and report what is missing.", cliType: "codex", mode: "plan" }

describe("the thread a delegation offers", () => {
  it("its first message is the automation prompt, then the task's ref, name and link, then its description", () => {
    expect(delegationDraft(agent(automation), task, [machine(1, true, ["codex"])], undefined).content).toBe(
      "Review this task and report what is missing.\n\n" +
        "Task DEMO-12: Export the rows as CSV\nhttps://trellis.example/projects/DEMO/tasks/DEMO-12\n\n" +
        "Use **commas**."
    )
  })

  it("without an automation prompt or a description, the message is the task alone", () => {
    const bare = delegationDraft(agent({ enabled: true }), { ...task, descriptionMarkdown: "", taskUrl: null }, [], undefined)
    expect(bare.content).toBe("Task DEMO-12: Export the rows as CSV")
  })

  it("the task (by its ref) and the agent are bound, and the automation's runtime, model, effort and mode are chosen", () => {
    const draft = delegationDraft(
      agent({ ...automation, cliModel: "gpt-5", cliEffort: "high" }),
      task,
      [machine(1, true, ["codex"])],
      undefined
    )
    expect(draft).toMatchObject({
      taskId: "DEMO-12",
      projectAgentId: `agent_${hex(7)}`,
      cliType: "codex",
      cliModel: "gpt-5",
      cliEffort: "high",
      cliMode: "plan",
      title: "DEMO-12: Export the rows as CSV"
    })
  })

  it("a machine that is online and has the runtime is preselected over one offline or without it", () => {
    const profiles = [machine(1, false, ["codex"]), machine(2, true, ["claude"]), machine(3, true, ["claude", "codex"])]
    const draft = delegationDraft(agent(automation), task, profiles, { ...lastChoiceOn(1), cliType: "claude" })
    expect(targetOf(draft, profiles).profile?.name).toBe("box-3")
    expect(targetOf(draft, profiles).runtime?.type).toBe("codex")
  })

  it("with no machine online that has the runtime, one online is chosen; with none online, the last one used", () => {
    expect(delegationDraft(agent(automation), task, [machine(1, false, []), machine(2, true, ["claude"])], undefined).profileId)
      .toBe(`profile_${hex(2)}`)
    expect(delegationDraft(agent(automation), task, [machine(1, false, []), machine(2, false, [])], lastChoiceOn(2)).profileId)
      .toBe(`profile_${hex(2)}`)
  })

  it("workspace worktree: create_thread gets a worktree on a branch named after the task's ref, on the machine's checkout", () => {
    const profiles = [machine(4, true, ["codex"])]
    const draft = delegationDraft(agent({ ...automation, workspace: "worktree" }), task, profiles, undefined)
    expect(argumentsOf(draft, targetOf(draft, profiles), "DEMO").worktree).toEqual({ parentPathId: `path_${hex(4)}`, branch: "demo-12" })
  })

  it("workspace local (or none): the checkout itself, no worktree", () => {
    const profiles = [machine(4, true, ["codex"])]
    for (const workspace of [{ workspace: "local" }, {}]) {
      const draft = delegationDraft(agent({ ...automation, ...workspace }), task, profiles, undefined)
      expect(argumentsOf(draft, targetOf(draft, profiles), "DEMO").worktree).toBeUndefined()
    }
  })

  it("a task name longer than a thread title fits the title's limit", () => {
    const long = delegationDraft(agent(automation), { ...task, name: "x".repeat(MAX_TITLE_LENGTH) }, [], undefined)
    expect(long.title.length).toBe(MAX_TITLE_LENGTH)
    expect(long.title.startsWith("DEMO-12: xxx")).toBe(true)
  })
})

function lastChoiceOn(n: number) {
  return { profileId: `profile_${hex(n)}`, pathId: `path_${hex(n)}`, cliType: "", cliModel: "", cliEffort: "", cliMode: "" }
}
