/**
 * Seeds the project through the tools themselves (create_task_label, create_task_list,
 * create_task), so the data is exactly what agents would have written; no SQL shortcut.
 */
import type { Corpus, TaskSpec } from "./Corpus.js"
import { callTool, stringField, type McpTarget } from "./Mcp.js"

export interface Seeded {
  readonly sprintListId: string
  /** Refs of the top-level tasks, in corpus order. */
  readonly topLevelRefs: ReadonlyArray<string>
  readonly taskCount: number
  readonly seconds: number
}

export type Progress = (line: string) => void

const PROGRESS_STEPS = 20

/** Runs `work` on every item with at most `concurrency` in flight; results keep the items' order. */
const pool = async <A, B>(
  items: ReadonlyArray<A>,
  concurrency: number,
  work: (item: A, index: number) => Promise<B>
): Promise<Array<B>> => {
  const results = new Array<B>(items.length)
  let next = 0
  const worker = async () => {
    while (next < items.length) {
      const index = next++
      const item = items[index] as A
      results[index] = await work(item, index)
    }
  }
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker))
  return results
}

const taskArguments = (projectId: string, spec: TaskSpec): Record<string, unknown> => ({
  projectId,
  name: spec.name,
  description: spec.description,
  priority: spec.priority,
  taskTypeKey: spec.taskTypeKey,
  tags: spec.tags,
  ...(spec.label === undefined ? {} : { label: spec.label })
})

export const seed = async (
  target: McpTarget,
  projectId: string,
  corpus: Corpus,
  concurrency: number,
  progress: Progress
): Promise<Seeded> => {
  const started = performance.now()
  const total = corpus.topLevel.length + corpus.subtasks.length
  let created = 0
  const step = Math.max(1, Math.ceil(total / PROGRESS_STEPS))
  const createTask = async (args: Record<string, unknown>): Promise<string> => {
    const result = await callTool(target, { name: "create_task", arguments: args })
    created++
    if (created % step === 0 || created === total) {
      const seconds = (performance.now() - started) / 1000
      const rate = created / seconds
      progress(
        `seeded ${created}/${total} tasks in ${seconds.toFixed(1)} s (${rate.toFixed(0)} tasks/s, ~${
          ((total - created) / rate).toFixed(0)
        } s left)`
      )
    }
    return stringField(result, "refId")
  }

  // One at a time (a handful of calls): the tasks below name these labels and this List.
  for (const label of corpus.labels) {
    await callTool(target, { name: "create_task_label", arguments: { projectId, name: label.name, color: label.color } })
  }
  const sprint = await callTool(target, { name: "create_task_list", arguments: { projectId, name: "Sprint" } })
  const sprintListId = stringField(sprint, "listId")

  // Parents first: a subtask names its parent by the ref create_task returned for it.
  const topLevelRefs = await pool(
    corpus.topLevel,
    concurrency,
    (spec, index) => createTask({ ...taskArguments(projectId, spec), ...(corpus.sprint.has(index) ? { listId: sprintListId } : {}) })
  )
  await pool(corpus.subtasks, concurrency, (spec) => {
    const parentRef = topLevelRefs[spec.parentIndex]
    if (parentRef === undefined) throw new Error(`subtask of a missing parent #${spec.parentIndex}`)
    return createTask({ ...taskArguments(projectId, spec), parentId: parentRef })
  })

  return { sprintListId, topLevelRefs, taskCount: created, seconds: (performance.now() - started) / 1000 }
}
