import { type KeyboardCoordinateGetter, KeyboardCode } from "@dnd-kit/core"

/**
 * Arrow keys move a picked-up card to the next drop target in their direction (a column to the
 * left or right, a List tab above), instead of dnd-kit's default of 25 pixels a press.
 */
export const toNextTarget: KeyboardCoordinateGetter = (event, { context }) => {
  const { collisionRect, droppableContainers, droppableRects, over } = context
  if (collisionRect === null) return undefined
  const horizontal = event.code === KeyboardCode.Right || event.code === KeyboardCode.Left
  const vertical = event.code === KeyboardCode.Up || event.code === KeyboardCode.Down
  if (!horizontal && !vertical) return undefined
  event.preventDefault()

  const targets = droppableContainers.getEnabled().flatMap((container) => {
    const rect = droppableRects.get(container.id)
    return rect === undefined || container.id === over?.id ? [] : [{ id: container.id, rect }]
  })
  const from = over === null ? undefined : droppableRects.get(over.id)
  const x = from?.left ?? collisionRect.left
  const y = from?.top ?? collisionRect.top
  const candidates = targets.filter(({ rect }) => {
    switch (event.code) {
      case KeyboardCode.Right:
        return rect.left > x && Math.abs(rect.top - y) < rect.height
      case KeyboardCode.Left:
        return rect.left < x && Math.abs(rect.top - y) < rect.height
      case KeyboardCode.Up:
        return rect.top < y
      default:
        return rect.top > y
    }
  })
  const nearest = candidates.sort((a, b) => Math.hypot(a.rect.left - x, a.rect.top - y) - Math.hypot(b.rect.left - x, b.rect.top - y))[0]
  return nearest === undefined ? undefined : { x: nearest.rect.left + 8, y: nearest.rect.top + 8 }
}
