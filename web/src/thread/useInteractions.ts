import { Either } from "effect"
import type { Interaction } from "../../../catalog/domain/Interaction.js"
import { useCallback, useEffect, useRef, useState } from "react"
import { announceSettled } from "../lib/waitingSignal"
import { lookUpInteraction } from "./interactionRoutes"
import { useReloadOnChange, type Watched } from "../lib/projectChanges"

/** An interaction and what the page knows of where it comes from (its thread, for a list across threads). */
export interface Entry<T> {
  readonly interaction: Interaction
  readonly context: T
}

export interface Interactions<T> {
  /** Every interaction seen since the page opened, in the order first seen; settled ones stay to show how they ended. */
  readonly entries: ReadonlyArray<Entry<T>>
  readonly loaded: boolean
  readonly error: string | undefined
  /** Records a settlement this page made (the answer route's reply). */
  readonly settle: (interaction: Interaction) => void
  readonly reload: () => void
}

/** Still waiting on the person: pending, and not past its own expiry on this clock. */
export const isWaiting = (interaction: Interaction, now = Date.now()): boolean =>
  interaction.status === "pending" && (interaction.expiresAt === null || Date.parse(interaction.expiresAt) > now)

type Load<T> = (signal: AbortSignal) => Promise<Either.Either<ReadonlyArray<Entry<T>>, string>>

/**
 * The pending interactions `load` finds, read again when `key` changes (the thread's
 * `hasPendingInteraction` and last activity: a new request changes both) and when the project's
 * changes stream names what is `watched` (at most every `spacingMs`). One that leaves the pending list without this page answering it was settled
 * elsewhere (another tab), expired, or ended with its batch: it is looked up once to show which.
 */
export const useInteractions = <T>(load: Load<T>, key: string, watched: Watched, spacingMs = 0): Interactions<T> => {
  const [entries, setEntries] = useState<ReadonlyArray<Entry<T>>>([])
  const [loaded, setLoaded] = useState(false)
  const [error, setError] = useState<string | undefined>(undefined)
  const [generation, setGeneration] = useState(0)
  const loadRef = useRef(load)
  loadRef.current = load
  const reload = useCallback(() => setGeneration((n) => n + 1), [])

  const settle = useCallback((interaction: Interaction) => {
    announceSettled()
    setEntries((previous) =>
      previous.map((entry) => (entry.interaction.interactionId === interaction.interactionId ? { ...entry, interaction } : entry))
    )
  }, [])

  useEffect(() => {
    const abort = new AbortController()
    loadRef.current(abort.signal).then((result) => {
      if (abort.signal.aborted) return
      setLoaded(true)
      if (Either.isLeft(result)) {
        setError(result.left)
        return
      }
      setError(undefined)
      const fresh = new Map(result.right.map((entry) => [entry.interaction.interactionId, entry]))
      setEntries((previous) => {
        const known = new Set(previous.map((entry) => entry.interaction.interactionId))
        const gone = previous.filter((entry) => entry.interaction.status === "pending" && !fresh.has(entry.interaction.interactionId))
        for (const entry of gone) {
          void lookUpInteraction(entry.interaction.interactionId).then((found) => {
            if (Either.isRight(found)) settle(found.right)
          })
        }
        return [
          ...previous.map((entry) => {
            const update = fresh.get(entry.interaction.interactionId)
            // A settlement this page already knows is never undone by an older read.
            return update === undefined || entry.interaction.status !== "pending" ? entry : update
          }),
          ...result.right.filter((entry) => !known.has(entry.interaction.interactionId))
        ]
      })
    }, () => undefined)
    return () => abort.abort()
  }, [key, generation, settle])

  useReloadOnChange(reload, watched, spacingMs)

  return { entries, loaded, error, settle, reload }
}
