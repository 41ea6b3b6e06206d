import { useDraggable } from "@dnd-kit/core"
import { memo, useMemo } from "react"
import type { ListColor } from "../../../catalog/domain/TaskList.js"
import type { Task } from "./columns"
import { LiveRunChip } from "./liveRuns"

/** What a card shows of a task, on the board and under the pointer while it is dragged. */
export const CardBody = ({ task, agentColor }: { readonly task: Task; readonly agentColor: ListColor | undefined }) => (
  <>
    <div className="card-top">
      <span className="card-ref">{task.refId}</span>
      {task.priority === "None" ? null : <span className={`card-priority priority-${task.priority.toLowerCase()}`}>{task.priority}</span>}
    </div>
    <p className="card-name">{task.name}</p>
    <div className="card-meta">
      {task.assignee === null ? null : <span className="card-owner" title="Owner">{task.assignee.name}</span>}
      {task.delegatedToAgent === null ? null : (
        <span className={`card-agent palette-${agentColor ?? "gray"}`} title="Delegated to">
          {task.delegatedToAgent.name}
        </span>
      )}
      {task.label === null ? null : <span className="card-label">{task.label.name}</span>}
      {task.subtaskCount === 0 ? null : (
        <span className="card-subtasks" aria-label={`${task.subtaskCount} subtasks`}>
          {task.subtaskCount} sub
        </span>
      )}
      {task.isArchived ? <span className="card-archived">Archived</span> : null}
    </div>
    <LiveRunChip taskId={task.taskId} />
  </>
)

/**
 * A task on the board: a click or Enter opens its page; dragged with a pointer, or picked up with
 * Space and moved between columns with the arrow keys (./keyboardMoves.ts); Alt+ArrowUp and
 * Alt+ArrowDown move it within its column. A card is re-rendered only when its task changes.
 */
export const TaskCard = memo(({ agentColor, columnKey, onNudge, onOpen, pending, task }: {
  readonly task: Task
  readonly pending: boolean
  readonly agentColor: ListColor | undefined
  readonly columnKey: string
  readonly onOpen: (task: Task) => void
  readonly onNudge: (task: Task, columnKey: string, direction: -1 | 1) => void
}) => {
  const { attributes, isDragging, listeners, setNodeRef } = useDraggable({ id: task.taskId })
  // Every card's useDraggable re-renders it when the drop target under a dragged card changes; the
  // same body element lets React skip what the card shows, leaving 2,000 cheap wrappers.
  const body = useMemo(() => <CardBody task={task} agentColor={agentColor} />, [task, agentColor])
  return (
    <li className="card-slot">
      <div
        ref={setNodeRef}
        className={`card${isDragging ? " dragging" : ""}${pending ? " pending" : ""}`}
        data-task-ref={task.refId}
        data-task-id={task.taskId}
        {...attributes}
        {...listeners}
        onClick={() => onOpen(task)}
        onKeyDown={(event) => {
          if (event.key === "Enter") onOpen(task)
          else if (event.altKey && (event.key === "ArrowUp" || event.key === "ArrowDown")) {
            event.preventDefault()
            onNudge(task, columnKey, event.key === "ArrowUp" ? -1 : 1)
          } else listeners?.["onKeyDown"]?.(event)
        }}
        aria-roledescription="Task card"
        aria-keyshortcuts="Alt+ArrowUp Alt+ArrowDown"
      >
        {body}
      </div>
    </li>
  )
})
