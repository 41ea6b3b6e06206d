/**
 * A task's page in Chromium against a real `trellis serve`: opened from its card, each field saved
 * as it changes (and read back over MCP), the description edited as rich text, a subtask and a
 * comment added, a refusal shown with the server's message, deleting with the cascade choice, an
 * unknown ref, and the page at 390×844. Screenshots land in test-results/web/.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { type Browser, type Page } from "playwright-core"
import { eventually } from "../e2e/support/Processes.js"
import { ProjectId } from "../../catalog/domain/Ids.js"
import { Mcp, messagesOf, type Serve, Thread } from "../e2e/support/Trellis.js"
import { registerCli, remoteBridgeClient } from "../support/FakeCli.js"
import {
  accessibilityProblems,
  DESKTOP,
  fitsWidth,
  launchChromium,
  openPage,
  PHONE,
  screenshot,
  signInLink,
  startBackend,
  stopBackend
} from "./support/Browser.js"

/** The automation prompt of the agent whose delegation offers a thread. */
const REVIEW_PROMPT = "Review this task and list what is missing."
const TaskRun = Schema.Struct({
  threadId: Schema.String,
  title: Schema.String,
  associatedTaskId: Schema.NullOr(Schema.String),
  cliMode: Schema.NullOr(Schema.String),
  target: Schema.Struct({ cliType: Schema.String, profileName: Schema.String })
})
const TaskRuns = Schema.Struct({ threads: Schema.Array(TaskRun) })
const Created = Schema.Struct({ taskId: Schema.String, refId: Schema.NullOr(Schema.String) })
const AgentCreated = Schema.Struct({ projectAgentId: Schema.String })
const Read = Schema.Struct({
  taskId: Schema.String,
  status: Schema.String,
  priority: Schema.String,
  taskTypeKey: Schema.String,
  dueDate: Schema.NullOr(Schema.Number),
  tags: Schema.Array(Schema.String),
  parentId: Schema.NullOr(Schema.String),
  assignee: Schema.NullOr(Schema.Struct({ userId: Schema.String })),
  delegatedToAgent: Schema.NullOr(Schema.Struct({ projectAgentId: Schema.String })),
  label: Schema.NullOr(Schema.Struct({ name: Schema.String })),
  descriptionMarkdown: Schema.String,
  subtasks: Schema.Array(Schema.Struct({ refId: Schema.String, name: Schema.String })),
  comments: Schema.Array(Schema.Struct({ content: Schema.String }))
})
const Missing = Schema.Struct({ tasks: Schema.Array(Schema.Struct({ identifier: Schema.String, error: Schema.optional(Schema.Unknown) })) })

describe.skipIf(process.env["DATABASE_URL"] !== undefined).sequential("a task's page in Chromium", () => {
  let serve: Serve | undefined
  let mcp: Mcp | undefined
  let browser: Browser | undefined
  let page: Page | undefined
  let errors: Array<string> = []
  let ref = ""
  let agentId = ""
  let reviewerId = ""

  const backend = () => {
    if (serve === undefined || mcp === undefined || browser === undefined || page === undefined) {
      throw new Error("the backend or the browser did not start")
    }
    return { serve, mcp, browser, page }
  }
  const read = (taskId: string) => backend().mcp.call(Read, "get_task", { taskId, projectId: backend().serve.credentials.projectId })
  const freshLink = (next: string) => signInLink(backend().serve, next)
  const field = (label: string) => backend().page.locator("label.task-field", { has: backend().page.locator(`span:text-is("${label}")`) })
  const projectPath = (rest: string) => `/projects/${encodeURIComponent(backend().serve.credentials.projectId)}${rest}`

  beforeAll(async () => {
    const started = await startBackend("trellis-task-home-")
    serve = started.serve
    mcp = started.mcp
    const { projectId } = serve.credentials
    agentId = (await mcp.call(AgentCreated, "create_project_agent", { projectId, name: "Builder", appearance: { color: "teal" } }))
      .projectAgentId
    reviewerId = (await mcp.call(AgentCreated, "create_project_agent", {
      projectId,
      name: "Reviewer",
      appearance: { color: "purple" },
      automation: { enabled: true, prompt: REVIEW_PROMPT, cliType: "codex", mode: "plan", workspace: "worktree" }
    })).projectAgentId
    await mcp.call(Schema.Struct({}), "create_task_label", { projectId, name: "backend" })
    const created = await mcp.call(Created, "create_task", { projectId, name: "Ship the export", description: "First **draft**" })
    ref = created.refId ?? created.taskId
    await mcp.call(Created, "create_task", { projectId, name: "Another task" })
    browser = await launchChromium()
    const opened = await openPage(browser, DESKTOP)
    page = opened.page
    errors = opened.errors
    await page.goto(await freshLink(projectPath("/board")))
    await page.getByText("2 tasks", { exact: true }).waitFor({ timeout: 30_000 })
  }, 180_000)

  afterAll(() => stopBackend(browser, mcp))

  it("a card clicked on the board opens its task's page", async () => {
    const { page } = backend()
    await page.locator(`[data-task-ref="${ref}"]`).click()
    await page.getByRole("heading", { level: 1, name: "Ship the export" }).waitFor()
    expect(new URL(page.url()).pathname).toBe(projectPath(`/tasks/${ref}`))
    expect(await page.locator(".task-page strong").textContent()).toBe("draft")
  })

  it("each field is saved as it changes and read back over MCP", async () => {
    const task = await read(ref)
    await field("Status").locator("select").selectOption("In Progress")
    await field("Priority").locator("select").selectOption("High")
    await field("Type").locator("select").selectOption("feature")
    await field("Due").locator("input").fill("2027-03-15")
    await field("Label").locator("select").selectOption({ label: "backend" })
    await field("Tags").locator("input").fill("export, csv")
    await field("Tags").locator("input").press("Enter")
    await eventually(
      "every field to be saved",
      () => read(ref),
      (saved) =>
        saved.status === "In Progress" && saved.priority === "High" && saved.taskTypeKey === "feature" &&
        saved.dueDate === Date.UTC(2027, 2, 15) / 1000 && saved.label?.name === "backend" && saved.tags.join(",") === "export,csv"
    )
    expect(task.assignee).toBeNull()
    // SPEC: delegating a task with no owner makes the person who delegates it its owner.
    await field("Delegated to").locator("select").selectOption({ label: "Builder" })
    const delegated = await eventually("the delegation", () => read(ref), (saved) => saved.delegatedToAgent?.projectAgentId === agentId)
    expect(delegated.assignee).not.toBeNull()
    await expect.poll(() => field("Owner").locator("select").inputValue()).toBe(delegated.assignee?.userId)
  })

  it("the description is edited as rich text: Markdown shortcuts as typed and Markdown pasted become structure, read back over MCP as Markdown", async () => {
    const { page } = backend()
    await page.getByRole("button", { name: "Edit" }).click()
    const editor = page.getByRole("textbox", { name: "Description" })
    await editor.waitFor()
    expect(await editor.textContent()).toContain("First draft")
    await editor.click()
    await page.keyboard.press("ControlOrMeta+A")
    await page.keyboard.press("Backspace")
    // Typed: a heading, then a bullet list whose first item has an italic word.
    await page.keyboard.type("## Plan")
    await page.keyboard.press("Enter")
    await page.keyboard.type("- export as *CSV* ")
    await page.keyboard.type("now")
    await page.keyboard.press("Enter")
    await page.keyboard.type("then JSON")
    await page.keyboard.press("Enter")
    await page.keyboard.press("Enter")
    await expect.poll(() => editor.locator("h2").textContent()).toBe("Plan")
    expect(await editor.locator("ul > li").count()).toBe(2)
    expect(await editor.locator("ul em").textContent()).toBe("CSV")
    // Pasted as plain text, Markdown becomes what it means.
    const pasted = "1. **first** step\n2. `second` step"
    await page.evaluate(`(() => {
      const data = new DataTransfer()
      data.setData("text/plain", ${JSON.stringify(pasted)})
      const pastedOn = document.querySelector(".description-editor")
      pastedOn.dispatchEvent(new ClipboardEvent("paste", { clipboardData: data, bubbles: true, cancelable: true }))
    })()`)
    await expect.poll(() => editor.locator("ol > li").count()).toBe(2)
    expect(await editor.locator("ol strong").textContent()).toBe("first")
    expect(await accessibilityProblems(page)).toEqual([])
    await screenshot(page, "task-description-editor-1440")
    await page.getByRole("button", { name: "Save" }).click()
    await page.getByRole("heading", { level: 2, name: "Plan" }).waitFor()
    const saved = await eventually("the description", () => read(ref), (task) => task.descriptionMarkdown.includes("## Plan"))
    expect(saved.descriptionMarkdown).toBe("## Plan\n\n* export as *CSV* now\n\n* then JSON\n\n1. **first** step\n\n2. `second` step")
  })

  it("the task's runs show machine, runtime, state, tokens, cost and what each changed (opening its Changes panel); a new run appears first without a reload", async () => {
    const { mcp, page, serve } = backend()
    const run = <A, E>(effect: Effect.Effect<A, E>) => Effect.runPromise(Effect.orDie(effect))
    const client = await remoteBridgeClient(serve.baseUrl, serve.credentials.apiKey)
    const projectId = Schema.decodeUnknownSync(ProjectId)(serve.credentials.projectId)
    const { profile, sessionId } = await run(registerCli(client, projectId, { name: "runs-box" }))
    const target = { profileId: profile.profileId, pathId: profile.paths[0]?.pathId ?? "", cliType: "claude", taskId: ref, projectId }
    const first = await mcp.call(Thread, "create_thread", { ...target, content: "Export the rows" })
    const { thread: claimed } = await run(client.agent.claim({ payload: { sessionId, threadId: first.threadId } }))
    const epoch = claimed?.epoch ?? 0
    const batch = await run(client.agent.startBatch({ path: { threadId: first.threadId }, payload: { sessionId, epoch } }))
    const messageId = batch.drained ? "" : batch.assistantMessageId
    const line = (data: object) => ({ type: String(Reflect.get(data, "type")), data: JSON.stringify(data) })
    await run(client.agent.uploadChunks({
      path: { threadId: first.threadId },
      payload: {
        sessionId,
        epoch,
        messageId,
        chunks: [
          { seq: 0, ...line({ type: "assistant", uuid: "a1", message: { content: [{ type: "text", text: "Exported." }] } }) },
          {
            seq: 1,
            ...line({
              type: "result",
              subtype: "success",
              uuid: "r1",
              session_id: "s1",
              total_cost_usd: 0.5,
              usage: { input_tokens: 1000, output_tokens: 200 }
            })
          }
        ]
      }
    }))
    await run(client.agent.complete({ path: { threadId: first.threadId }, payload: { sessionId, epoch, messageId } }))
    // What the turn changed, as the CLI reports it after a turn.
    const changed = (path: string, additions: number, deletions: number) => ({
      path,
      status: "modified" as const,
      additions,
      deletions,
      binary: false,
      patch: `@@ -1,${deletions} +1,${additions} @@\n${"-old\n".repeat(deletions)}${"+new\n".repeat(additions)}`
    })
    await run(client.agent.reportChanges({
      path: { threadId: first.threadId },
      payload: {
        sessionId,
        epoch,
        baseCommit: "a".repeat(40),
        headCommit: "b".repeat(40),
        branch: "export-csv",
        files: [changed("src/export.ts", 4, 1), changed("docs/export.md", 1, 0)],
        truncated: false
      }
    }))
    // The next batch finds nothing waiting: the claim ends and the thread is idle.
    await run(client.agent.startBatch({ path: { threadId: first.threadId }, payload: { sessionId, epoch } }))

    const runs = page.locator(".task-section", { hasText: "Runs" })
    const rows = runs.locator(".task-run")
    await expect.poll(() => rows.first().textContent(), { timeout: 10_000 }).toContain("Finished")
    const finished = (await rows.first().textContent()) ?? ""
    for (const part of ["Export the rows", "$0.50", "runs-box", "claude", "1.2k tokens"]) expect(finished).toContain(part)
    await expect.poll(() => rows.first().locator(".run-changes").textContent(), { timeout: 10_000 }).toBe(
      "2 files changed +5 −1: review the changes"
    )

    await mcp.call(Thread, "create_thread", { ...target, content: "Write the docs" })
    await expect.poll(() => runs.locator(".task-run > a").allTextContents(), { timeout: 5_000 }).toEqual([
      "Write the docs",
      "Export the rows"
    ])
    expect(await rows.first().textContent()).toContain("Pending")
    await screenshot(page, "task-runs-1440")
    await runs.getByRole("link", { name: "Export the rows" }).click()
    await page.waitForURL((url) => url.pathname === projectPath(`/threads/${first.threadId}`))
    await page.goBack()
    // Its changes open the thread's Changes panel, open, at both files.
    await runs.locator(".run-changes a").click()
    await page.waitForURL((url) => url.pathname === projectPath(`/threads/${first.threadId}`) && url.hash === "#changes", {
      timeout: 10_000
    })
    const panel = page.locator("details#changes")
    await expect.poll(() => panel.getAttribute("open"), { timeout: 10_000 }).toBe("")
    expect(await panel.locator("li.change-file").count()).toBe(2)
    await page.goBack()
    await page.getByRole("heading", { level: 1, name: "Ship the export" }).waitFor()
  })

  it(
    "delegating to an agent with automation offers its prefilled thread: Don't start yet keeps the delegation, Start runs it on the task",
    async () => {
      const { mcp, page, serve } = backend()
      const projectId = Schema.decodeUnknownSync(ProjectId)(serve.credentials.projectId)
      const client = await remoteBridgeClient(serve.baseUrl, serve.credentials.apiKey)
      await Effect.runPromise(Effect.orDie(registerCli(client, projectId, { name: "review-box" })))
      const runsOfTask = async () => (await mcp.call(TaskRuns, "list_threads", { projectId, taskId: ref, includeDone: true })).threads
      const before = (await runsOfTask()).length
      const delegateTo = (name: string) => field("Delegated to").locator("select").selectOption({ label: name })
      const offered = async () => {
        await page.getByRole("heading", { level: 1, name: `New thread for ${ref}` }).waitFor({ timeout: 10_000 })
        const url = new URL(page.url())
        expect({ path: url.pathname, task: url.searchParams.get("task"), agent: url.searchParams.get("agent") })
          .toEqual({ path: projectPath("/new-thread"), task: ref, agent: reviewerId })
      }

      await page.goto(`${serve.baseUrl}${projectPath(`/tasks/${ref}`)}`)
      await page.getByRole("heading", { level: 1, name: "Ship the export" }).waitFor()
      await delegateTo("Reviewer")
      await offered()
      const message = await page.getByLabel("First message", { exact: true }).inputValue()
      expect(message.startsWith(`${REVIEW_PROMPT}\n\nTask ${ref}: Ship the export\n`)).toBe(true)
      expect(message).toContain(`/tasks/${ref}`)
      expect(await page.getByLabel("Runtime", { exact: true }).inputValue()).toBe("codex")
      expect(await page.getByLabel("Mode", { exact: true }).inputValue()).toBe("plan")
      expect(await page.getByLabel("Run in a new git worktree").isChecked()).toBe(true)
      expect(await page.getByLabel("Branch", { exact: true }).inputValue()).toBe(ref.toLowerCase())
      expect(await page.getByLabel("Project agent", { exact: true }).inputValue()).toBe(reviewerId)
      await screenshot(page, "delegation-offer-1440")
      expect(await accessibilityProblems(page)).toEqual([])

      await page.getByRole("button", { name: "Don't start yet" }).click()
      await page.getByRole("heading", { level: 1, name: "Ship the export" }).waitFor()
      expect((await read(ref)).delegatedToAgent?.projectAgentId).toBe(reviewerId)
      expect((await runsOfTask()).length).toBe(before)

      // Delegated again (after clearing it): this time Start.
      await delegateTo("No agent")
      await eventually("the delegation cleared", () => read(ref), (saved) => saved.delegatedToAgent === null)
      await delegateTo("Reviewer")
      await offered()
      await page.getByRole("button", { name: "Start", exact: true }).click()
      await page.waitForURL((url) => url.pathname.startsWith(projectPath("/threads/")), { timeout: 10_000 })
      const runs = await runsOfTask()
      expect(runs.length).toBe(before + 1)
      const started = runs.find((run) => page.url().endsWith(`/threads/${run.threadId}`))
      expect(started).toMatchObject({ title: `${ref}: Ship the export`, cliMode: "plan", target: { cliType: "codex" } })
      const [first] = await messagesOf(mcp, started?.threadId ?? "")
      expect(first?.text.startsWith(REVIEW_PROMPT)).toBe(true)

      // Delegating to an agent without automation stays on the task.
      await page.goto(`${serve.baseUrl}${projectPath(`/tasks/${ref}`)}`)
      await page.getByRole("heading", { level: 1, name: "Ship the export" }).waitFor()
      await expect.poll(() => page.locator(".task-section", { hasText: "Runs" }).locator(".task-run > a").first().textContent(), {
        timeout: 5_000
      }).toBe(`${ref}: Ship the export`)
      await delegateTo("Builder")
      await eventually("the delegation to Builder", () => read(ref), (saved) => saved.delegatedToAgent?.projectAgentId === agentId)
      expect(new URL(page.url()).pathname).toBe(projectPath(`/tasks/${ref}`))
    },
    60_000
  )

  it("a subtask added is listed with its ref and opens its own page", async () => {
    const { page } = backend()
    await page.getByPlaceholder("New subtask").fill("Write the CSV writer")
    await page.getByRole("button", { name: "Add subtask" }).click()
    const link = page.locator(".task-section", { hasText: "Subtasks" }).getByRole("link")
    await link.waitFor()
    const subtaskRef = (await link.textContent()) ?? ""
    const [subtask] = (await read(ref)).subtasks
    expect(subtask?.refId).toBe(subtaskRef)
    expect(subtask?.name).toBe("Write the CSV writer")
    await link.click()
    await page.getByRole("heading", { level: 1, name: "Write the CSV writer" }).waitFor()
    await page.goBack()
    await page.getByRole("heading", { level: 1, name: "Ship the export" }).waitFor()
  })

  it("the task moves under another task by ref and back to the top level; a move under its own subtask is refused with the tool's message", async () => {
    const { mcp, page, serve } = backend()
    const other = await mcp.call(Created, "create_task", { projectId: serve.credentials.projectId, name: "Export epic" })
    const otherRef = other.refId ?? other.taskId
    const [subtask] = (await read(ref)).subtasks
    const moveUnder = async (address: string) => {
      await page.getByLabel("Move under (a task's ref)").fill(address)
      await page.getByRole("button", { name: "Move", exact: true }).click()
    }
    await moveUnder(subtask?.refId ?? "")
    await page.getByRole("alert").filter({ hasText: `Not moved: parentId: ${subtask?.refId} is a subtask of ${ref}` }).waitFor()
    expect((await read(ref)).parentId).toBeNull()

    await moveUnder(otherRef)
    await eventually("the move", () => read(ref), (saved) => saved.parentId === other.taskId)
    await page.getByRole("link", { name: `${otherRef} Export epic` }).waitFor()
    await screenshot(page, "task-moved-1440")
    await page.getByRole("button", { name: "Move to the top level" }).click()
    await eventually("the move to the top level", () => read(ref), (saved) => saved.parentId === null)
    await page.getByText("A top-level task.").waitFor()
  })

  it("a comment added shows as Markdown and is stored as written", async () => {
    const { page } = backend()
    await page.getByPlaceholder("Comment (Markdown)").fill("Looks **good**")
    await page.getByRole("button", { name: "Comment", exact: true }).click()
    await page.locator(".task-comments strong", { hasText: "good" }).waitFor()
    expect((await read(ref)).comments.map((comment) => comment.content)).toEqual(["Looks **good**"])
  })

  it("a change the server refuses is shown with its message, naming the field", async () => {
    const { page } = backend()
    await page.getByRole("button", { name: "Rename" }).click()
    await page.getByLabel("Name", { exact: true }).fill("x".repeat(501))
    await page.getByRole("button", { name: "Save" }).click()
    const alert = page.getByRole("alert").filter({ hasText: "Not saved" })
    await alert.waitFor()
    expect(await alert.textContent()).toContain("name")
    expect(await alert.textContent()).toContain("500")
    await page.getByRole("heading", { level: 1, name: "Ship the export" }).waitFor()
    await screenshot(page, "task-desktop")
    expect(await accessibilityProblems(page, ".task-page")).toEqual([])
    expect(errors).toEqual([])
  })

  it("deleting with \"keep them, one level up\" keeps the subtasks and returns to the board", async () => {
    const { mcp, page, serve } = backend()
    const [subtask] = (await read(ref)).subtasks
    await page.getByRole("button", { name: "Delete task" }).click()
    await page.getByLabel("Keep them, one level up").check()
    await page.getByRole("button", { name: "Delete", exact: true }).click()
    await page.waitForURL((url) => url.pathname.endsWith("/board"))
    const found = await mcp.call(Missing, "get_tasks", { identifiers: [ref], projectId: serve.credentials.projectId })
    expect(found.tasks[0]?.error).toBeDefined()
    const kept = await read(subtask?.refId ?? "")
    expect(kept.parentId).toBeNull()
  })

  it("an unknown ref says the task cannot be shown", async () => {
    const { page } = backend()
    await page.goto(new URL(projectPath("/tasks/DEMO-99999"), backend().serve.baseUrl).toString())
    const alert = page.getByRole("alert")
    await alert.waitFor()
    expect(await alert.textContent()).toContain("Cannot show DEMO-99999")
  })

  it("on a phone the page is no wider than the screen", async () => {
    const { browser, mcp, page, serve } = backend()
    const task = await mcp.call(Created, "create_task", {
      projectId: serve.credentials.projectId,
      name: "A task with a long name that has to wrap on a narrow screen without scrolling sideways",
      description: "A link: https://example.com/a/very/long/path/that/should/wrap/rather/than/widen/the/page"
    })
    const phone = await openPage(browser, PHONE, { signedInAs: page })
    await phone.page.goto(`${serve.baseUrl}${projectPath(`/tasks/${task.refId ?? task.taskId}`)}`)
    await phone.page.getByRole("heading", { level: 1 }).waitFor({ timeout: 30_000 })
    expect(await fitsWidth(phone.page)).toBe(true)
    await screenshot(phone.page, "task-phone")
    expect(await accessibilityProblems(phone.page, ".task-page")).toEqual([])
    // The header is two rows (brand, project, search and sign-out; then the sections scrolling
    // sideways), not three rows of links; the current section is in view and the last one reachable.
    const nav = phone.page.getByRole("navigation", { name: "Sections" })
    const header = await phone.page.locator(".topbar").boundingBox()
    const row = await nav.getByRole("link", { name: "Threads" }).boundingBox()
    expect(header?.height ?? Infinity).toBeLessThan(2.5 * (row?.height ?? 0) + 40)
    const current = await nav.locator("a[aria-current='page']").boundingBox()
    expect((current?.x ?? -1) >= 0 && (current?.x ?? 0) + (current?.width ?? 0) <= PHONE.width).toBe(true)
    await nav.getByRole("link", { name: "Skills" }).click()
    await phone.page.getByRole("heading", { level: 1, name: "Skills" }).waitFor({ timeout: 30_000 })
    const skills = await nav.getByRole("link", { name: "Skills" }).boundingBox()
    expect((skills?.x ?? 0) + (skills?.width ?? Infinity)).toBeLessThanOrEqual(PHONE.width)
    await screenshot(phone.page, "header-phone")
    await phone.context.close()
  }, 60_000)
})
