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

/**
 * Where a card can be dropped: a column of the board, right above one of its cards (`beforeTaskId`;
 * null: below them all), or a List (its tab).
 */
export type DropTarget =
  | { readonly _tag: "Column"; readonly column: Column; readonly beforeTaskId: string | null }
  | { readonly _tag: "List"; readonly listId: string }

const columnTarget = (key: string) => `column:${key}`
const listTarget = (listId: string) => `list:${listId}`

/** The drop target a droppable's id names, among the board's columns; any `list:` id is a List. */
const targetOf = (id: string, columns: ReadonlyArray<Column>, dragged: Task, y: number | undefined): DropTarget | undefined => {
  if (id.startsWith("list:")) return { _tag: "List", listId: id.slice("list:".length) }
  const column = columns.find((column) => columnTarget(column.key) === id)
  return column === undefined ? undefined : { _tag: "Column", column, beforeTaskId: cardBelow(column, dragged, y) }
}

/**
 * The first card of the column drawn below `y` (the dropped card's middle), other than the dragged
 * one. Read from the cards on screen at the drop, not measured while dragging, so 2,000 cards
 * cost nothing until then.
 */
const cardBelow = (column: Column, dragged: Task, y: number | undefined): string | null => {
  if (y === undefined) return null
  const cards = document.querySelectorAll<HTMLElement>(`[data-column-key="${CSS.escape(column.key)}"] [data-task-id]`)
  for (const card of cards) {
    const box = card.getBoundingClientRect()
    if (card.dataset["taskId"] !== dragged.taskId && y < box.top + box.height / 2) return card.dataset["taskId"] ?? null
  }
  return null
}

/** The palette color of each project agent, by id: a card shows its delegated agent in it. */
export type AgentColors = ReadonlyMap<string, ListColor>

/** Alt+ArrowUp / Alt+ArrowDown on a card: one place up or down in its column. */
export type Nudge = (task: Task, columnKey: string, direction: -1 | 1) => void

const ColumnView = ({ agentColors, column, onNudge, onOpen, pending }: {
  readonly column: Column
  readonly pending: ReadonlySet<string>
  readonly agentColors: AgentColors
  readonly onOpen: (task: Task) => void
  readonly onNudge: Nudge
}) => {
  const { isOver, setNodeRef } = useDroppable({ id: columnTarget(column.key) })
  const headingId = `column-${column.key}`
  return (
    <section ref={setNodeRef} className={`column${isOver ? " over" : ""}`} aria-labelledby={headingId}>
      <h2 id={headingId}>
        {column.title} <span className="column-count">{column.tasks.length}</span>
      </h2>
      <ul className="cards" aria-label={`${column.title}: ${column.tasks.length} tasks`} data-column-key={column.key}>
        {column.tasks.map((task) => (
          <TaskCard
            key={task.taskId}
            task={task}
            pending={pending.has(task.taskId)}
            onOpen={onOpen}
            columnKey={column.key}
            onNudge={onNudge}
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
    if (dragged === undefined || event.over === null) return
    const box = event.active.rect.current.translated
    const target = targetOf(String(event.over.id), columns, dragged, box === null ? undefined : box.top + box.height / 2)
    if (target !== undefined) onDrop(dragged, target)
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

export const BoardColumns = ({ agentColors, columns, onNudge, onOpen, pending }: {
  readonly columns: ReadonlyArray<Column>
  readonly pending: ReadonlySet<string>
  readonly agentColors: AgentColors
  readonly onOpen: (task: Task) => void
  readonly onNudge: Nudge
}) => (
  <div className="board" role="region" aria-label="Board" tabIndex={0}>
    {columns.map((column) => (
      <ColumnView key={column.key} column={column} pending={pending} agentColors={agentColors} onOpen={onOpen} onNudge={onNudge} />
    ))}
  </div>
)
