import { useQueryClient } from "@tanstack/react-query"
import { useRouterState } from "@tanstack/react-router"
import { Option, Schema } from "effect"
import { type FormEvent, useCallback, useMemo, useState } from "react"
import type { TaskList } from "../../../catalog/Lists.js"
import { BoardGroupBy, DEFAULT_BOARD_GROUP_BY, ViewMode } from "../../../catalog/domain/TaskList.js"
import { describeError } from "../lib/api"
import { useReloadOnChange } from "../lib/projectChanges"
import { LiveRunsProvider } from "../board/liveRuns"
import { type TaskToolArgs, useToolMutation, useToolQuery } from "../board/taskTools"
import { useBoardMoves } from "../board/useBoardMoves"
import { boardPath, followLink, navigate, taskPath } from "../lib/router"
import { BoardColumns, BoardDnd, DroppableList } from "../board/BoardColumns"
import { BoardFilters } from "../board/BoardFilters"
import { applyFilters, columnsOf, filterChoices, type Filters, NO_FILTERS, type Task } from "../board/columns"
import { TaskTable } from "../board/TaskTable"
import "../board/Board.css"

type List = Schema.Schema.Type<typeof TaskList>

const decodeGroup = Schema.decodeUnknownOption(BoardGroupBy)
const decodeView = Schema.decodeUnknownOption(ViewMode)

/** The board's place in the URL: `?list=REF&view=list&group=priority`, so a view can be shared and reloaded. */
const useBoardQuery = (projectId: string) => {
  const query = new URLSearchParams(useRouterState({ select: (state) => state.location.searchStr }))
  const set = (name: string, value: string | undefined) => {
    const next = new URLSearchParams(window.location.search)
    if (value === undefined || value === "") next.delete(name)
    else next.set(name, value)
    navigate(boardPath(projectId, next), { replace: true })
  }
  return { list: query.get("list") ?? "", view: query.get("view"), group: query.get("group"), set }
}

const count = (n: number) => `${n} task${n === 1 ? "" : "s"}`

const NewTask = ({ projectId, list }: { readonly projectId: string; readonly list: List | undefined }) => {
  const [name, setName] = useState("")
  const create = useToolMutation("create_task")
  const submit = (event: FormEvent) => {
    event.preventDefault()
    if (name.trim() === "") return
    create.mutate({ projectId, name, ...(list === undefined ? {} : { listId: list.listId }) }, {
      onSuccess: () => setName(""),
      onSettled: () => create.client.invalidateQueries({ queryKey: ["list_tasks"] })
    })
  }
  return (
    <form className="new-task" onSubmit={submit} aria-label="New task">
      <label className="visually-hidden" htmlFor="new-task-name">New task's name</label>
      <input
        id="new-task-name"
        type="text"
        value={name}
        placeholder={`New task in ${list?.name ?? "the Backlog"}`}
        onChange={(event) => setName(event.currentTarget.value)}
      />
      <button type="submit" disabled={create.isPending || name.trim() === ""}>Add task</button>
      {create.isError ? <p className="field-error" role="alert">{describeError(create.error)}</p> : null}
    </form>
  )
}

/**
 * A project's tasks as a board or a table, for the whole project or one List: columns by the
 * List's grouping (status, priority, owner, label), a card dragged to another column changes that
 * field, one dropped between two cards goes there (Alt+ArrowUp/Down by keyboard), and one dropped
 * on a List's tab moves there. Read again when the project's changes stream
 * names a task, List or label; a card whose task has a running thread shows it live.
 */
export const BoardPage = ({ projectId }: { readonly projectId: string }) => {
  const place = useBoardQuery(projectId)
  const [filters, setFilters] = useState<Filters>(NO_FILTERS)
  const [includeArchived, setIncludeArchived] = useState(false)

  const lists = useToolQuery("list_task_lists", { projectId, limit: 50 })
  const allLists = lists.data?.lists ?? []
  const list = allLists.find((candidate) => candidate.ref === place.list.toUpperCase() || candidate.listId === place.list)
  const tasksArgs: TaskToolArgs<"list_tasks"> = {
    projectId,
    includeArchived,
    ...(list === undefined ? {} : { listId: list.listId })
  }
  const tasks = useToolQuery("list_tasks", tasksArgs)
  const agents = useToolQuery("list_project_agents", { projectId })
  const agentColors = useMemo(
    () => new Map((agents.data?.agents ?? []).map((agent) => [agent.projectAgentId, agent.appearance.color])),
    [agents.data]
  )
  const client = useQueryClient()

  useReloadOnChange(
    () => {
      void client.invalidateQueries({ queryKey: ["list_tasks"] })
      void client.invalidateQueries({ queryKey: ["list_task_lists"] })
      void client.invalidateQueries({ queryKey: ["list_project_agents"] })
    },
    { tasks: true },
    1_000
  )

  const groupBy = Option.getOrElse(decodeGroup(place.group), () => list?.defaultBoardGroupBy ?? DEFAULT_BOARD_GROUP_BY)
  const view = Option.getOrElse(decodeView(place.view), () => list?.defaultViewMode ?? "board")
  const loaded = tasks.data?.tasks ?? []
  const choices = useMemo(() => filterChoices(loaded), [loaded])
  const shown = useMemo(() => applyFilters(loaded, filters), [loaded, filters])
  const columns = useMemo(() => columnsOf(groupBy, shown), [groupBy, shown])

  const open = useCallback((task: Task) => navigate(taskPath(projectId, task.refId)), [projectId])
  const { drop, failure, nudge, pending } = useBoardMoves(projectId, tasksArgs, columns)

  const listLink = (ref: string) => {
    const query = new URLSearchParams(window.location.search)
    if (ref === "") query.delete("list")
    else query.set("list", ref)
    return boardPath(projectId, query)
  }

  return (
    <LiveRunsProvider projectId={projectId}>
      <div className="board-page">
        <div className="page-head">
          <h1>{list === undefined ? "All tasks" : list.name}</h1>
          <div className="view-switch" role="group" aria-label="View">
            <button type="button" className="quiet" aria-pressed={view === "board"} onClick={() => place.set("view", "board")}>
              Board
            </button>
            <button type="button" className="quiet" aria-pressed={view === "list"} onClick={() => place.set("view", "list")}>List</button>
          </div>
          {view === "board" ?
            (
              <label className="filter">
                <span>Group by</span>
                <select value={groupBy} onChange={(event) => place.set("group", event.currentTarget.value)}>
                  {BoardGroupBy.literals.map((each) => <option key={each} value={each}>{each === "assignee" ? "owner" : each}</option>)}
                </select>
              </label>
            ) :
            null}
        </div>
        <BoardDnd columns={columns} onDrop={drop} agentColors={agentColors}>
          <nav aria-label="Lists">
            <ul className="list-tabs">
              <li>
                <a href={listLink("")} onClick={followLink} aria-current={list === undefined ? "page" : undefined}>All tasks</a>
              </li>
              {allLists.map((each) => (
                <DroppableList key={each.listId} listId={each.listId}>
                  {(isOver) => (
                    <a
                      href={listLink(each.ref)}
                      onClick={followLink}
                      className={isOver ? "over" : undefined}
                      aria-current={list?.listId === each.listId ? "page" : undefined}
                    >
                      {each.name}
                    </a>
                  )}
                </DroppableList>
              ))}
            </ul>
          </nav>
          <BoardFilters
            filters={filters}
            choices={choices}
            onChange={setFilters}
            includeArchived={includeArchived}
            onIncludeArchived={setIncludeArchived}
          />
          <NewTask projectId={projectId} list={list} />
          {failure === undefined ? null : <p className="page-status failure" role="alert">{failure}</p>}
          {tasks.isPending ? <p className="page-status" role="status">Loading tasks…</p> : null}
          {tasks.isError ? <p className="page-status" role="alert">Cannot load the tasks: {describeError(tasks.error)}</p> : null}
          {tasks.isSuccess ?
            (
              <>
                <p className="meta board-count" role="status">
                  {shown.length === loaded.length ? count(loaded.length) : `${shown.length} of ${count(loaded.length)}`}
                </p>
                {view === "board"
                  ? <BoardColumns columns={columns} pending={pending} agentColors={agentColors} onOpen={open} onNudge={nudge} />
                  : <TaskTable projectId={projectId} tasks={shown} />}
              </>
            ) :
            null}
        </BoardDnd>
      </div>
    </LiveRunsProvider>
  )
}
