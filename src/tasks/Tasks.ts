import { Effect } from "effect"
import { TaskComments } from "./TaskComments.js"
import { TaskLinks } from "./TaskLinks.js"
import { TaskReads } from "./TaskReads.js"
import { TaskSearch } from "./TaskSearch.js"
import { TaskTree } from "./TaskTree.js"
import { TaskWrites } from "./TaskWrites.js"

// What other features and tests take from here since before the split.
export { requireWrite, type ResolvedTask } from "./TaskAccess.js"
export type { TaskFilter } from "./TaskReads.js"
export { StoredLink, TaskRow } from "./TaskRow.js"
export type { TaskSearchInput } from "./TaskSearch.js"
export type { NewTask, TaskChanges } from "./TaskWrites.js"

/**
 * Every task operation behind one service, so the tools, artifacts, threads and tests depend on
 * a single Tag (and can stand one in, as TaskPurge's test does) while each part stays a small
 * service of its own.
 */
export class Tasks extends Effect.Service<Tasks>()("trellis/Tasks", {
  effect: Effect.gen(function* () {
    const reads = yield* TaskReads
    const writes = yield* TaskWrites
    const links = yield* TaskLinks
    const comments = yield* TaskComments
    const search = yield* TaskSearch
    const tree = yield* TaskTree
    return {
      resolve: reads.resolve,
      list: reads.list,
      details: reads.details,
      create: writes.create,
      update: writes.update,
      linksOf: links.linksOf,
      updateLink: links.update,
      addComment: comments.add,
      search: search.search,
      move: tree.move,
      moveToList: tree.moveToList,
      remove: tree.remove,
      purgeDeleted: tree.purgeDeleted
    } as const
  }),
  dependencies: [TaskReads.Default, TaskWrites.Default, TaskLinks.Default, TaskComments.Default, TaskSearch.Default, TaskTree.Default]
}) {}
