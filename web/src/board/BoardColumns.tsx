import {
  DndContext,
  type DragEndEvent,
  DragOverlay,
  type DragStartEvent,
  KeyboardSensor,
  PointerSensor,
  useDroppable,
  useSensor,
  useSensors
} from "@dnd-kit/core"
import { type ReactNode, useState } from "react"
import type { ListColor } from "../../../catalog/domain/TaskList.js"
import { type Column, type Task } from "./columns"
import { toNextTarget } from "./keyboardMoves"
import { CardBody, TaskCard } from "./TaskCard"

/** Where a card can be dropped: a column of the board, or a List (its tab). */
export type DropTarget = { readonly _tag: "Column"; readonly column: Column } | { readonly _tag: "List"; readonly listId: string }

const columnTarget = (key: string) => `column:${key}`
const listTarget = (listId: string) => `list:${listId}`

/** The drop target a droppable's id names, among the board's columns; any `list:` id is a List. */
const targetOf = (id: string, columns: ReadonlyArray<Column>): DropTarget | undefined => {
  if (id.startsWith("list:")) return { _tag: "List", listId: id.slice("list:".length) }
  const column = columns.find((column) => columnTarget(column.key) === id)
  return column === undefined ? undefined : { _tag: "Column", column }
}

/** The palette color of each project agent, by id: a card shows its delegated agent in it. */
export type AgentColors = ReadonlyMap<string, ListColor>

const ColumnView = ({ agentColors, column, onOpen, pending }: {
  readonly column: Column
  readonly pending: ReadonlySet<string>
  readonly agentColors: AgentColors
  readonly onOpen: (task: Task) => void
}) => {
  const { isOver, setNodeRef } = useDroppable({ id: columnTarget(column.key) })
  const headingId = `column-${column.key}`
  return (
    <section ref={setNodeRef} className={`column${isOver ? " over" : ""}`} aria-labelledby={headingId}>
      <h2 id={headingId}>
        {column.title} <span className="column-count">{column.tasks.length}</span>
      </h2>
      <ul className="cards" aria-label={`${column.title}: ${column.tasks.length} tasks`}>
        {column.tasks.map((task) => (
          <TaskCard
            key={task.taskId}
            task={task}
            pending={pending.has(task.taskId)}
            onOpen={onOpen}
            agentColor={task.delegatedToAgent === null ? undefined : agentColors.get(task.delegatedToAgent.projectAgentId)}
          />
        ))}
      </ul>
    </section>
  )
}

/** A List's tab that takes dropped cards: they move to that List. */
export const DroppableList = ({ listId, children }: { readonly listId: string; readonly children: (isOver: boolean) => ReactNode }) => {
  const { isOver, setNodeRef } = useDroppable({ id: listTarget(listId) })
  return <li ref={setNodeRef}>{children(isOver)}</li>
}

/**
 * The board's drag and drop: `children` (the List tabs) and the columns share one context, so a
 * card goes to another column (changing the field the board groups by) or to another List.
 */
export const BoardDnd = ({ agentColors, children, columns, onDrop }: {
  readonly children: ReactNode
  readonly columns: ReadonlyArray<Column>
  readonly agentColors: AgentColors
  readonly onDrop: (task: Task, target: DropTarget) => void
}) => {
  const sensors = useSensors(
    // A click on a card is not a drag: it moves 6 px first.
    useSensor(PointerSensor, { activationConstraint: { distance: 6 } }),
    // Enter opens the card's task; Space picks it up and puts it down.
    useSensor(KeyboardSensor, {
      coordinateGetter: toNextTarget,
      keyboardCodes: { start: ["Space"], cancel: ["Escape"], end: ["Space"] }
    })
  )
  const [dragged, setDragged] = useState<Task | undefined>(undefined)
  const start = (event: DragStartEvent) => {
    const id = String(event.active.id)
    setDragged(columns.flatMap((column) => column.tasks).find((task) => task.taskId === id))
  }
  const end = (event: DragEndEvent) => {
    setDragged(undefined)
    const target = event.over === null ? undefined : targetOf(String(event.over.id), columns)
    if (dragged !== undefined && target !== undefined) onDrop(dragged, target)
  }
  return (
    <DndContext sensors={sensors} onDragStart={start} onDragEnd={end} onDragCancel={() => setDragged(undefined)}>
      {children}
      <DragOverlay>
        {dragged === undefined ? null : (
          <div className="card lifted">
            <CardBody
              task={dragged}
              agentColor={dragged.delegatedToAgent === null ? undefined : agentColors.get(dragged.delegatedToAgent.projectAgentId)}
            />
          </div>
        )}
      </DragOverlay>
    </DndContext>
  )
}

export const BoardColumns = ({ agentColors, columns, onOpen, pending }: {
  readonly columns: ReadonlyArray<Column>
  readonly pending: ReadonlySet<string>
  readonly agentColors: AgentColors
  readonly onOpen: (task: Task) => void
}) => (
  <div className="board" role="region" aria-label="Board" tabIndex={0}>
    {columns.map((column) => <ColumnView key={column.key} column={column} pending={pending} agentColors={agentColors} onOpen={onOpen} />)}
  </div>
)
