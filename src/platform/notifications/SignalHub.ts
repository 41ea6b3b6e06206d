import { Effect, Queue, type Scope } from "effect"

/**
 * Signals routed by key: a publish reaches only the subscribers of its key. A broadcast hub woke
 * every subscriber for every signal to let each discard the ones not meant for it, which under a
 * burst of claims cost every open stream a fiber wake-up per claim anywhere.
 */
export interface SignalHub {
  readonly publish: (key: string) => Effect.Effect<void>
  /** A queue receiving one item per signal of the key, from now until the scope closes. */
  readonly subscribe: (key: string) => Effect.Effect<Queue.Dequeue<void>, never, Scope.Scope>
}

export const makeSignalHub = (): SignalHub => {
  const subscribers = new Map<string, Set<Queue.Queue<void>>>()
  const publish = (key: string) =>
    Effect.sync(() => {
      const queues = subscribers.get(key)
      if (queues !== undefined) for (const queue of queues) queue.unsafeOffer(undefined)
    })
  const subscribe = (key: string) =>
    Effect.acquireRelease(
      Effect.tap(Queue.unbounded<void>(), (queue) =>
        Effect.sync(() => {
          subscribers.set(key, (subscribers.get(key) ?? new Set()).add(queue))
        })),
      (queue) =>
        Effect.zipRight(
          Effect.sync(() => {
            const queues = subscribers.get(key)
            queues?.delete(queue)
            if (queues?.size === 0) subscribers.delete(key)
          }),
          Queue.shutdown(queue)
        )
    )
  return { publish, subscribe }
}
