import { Effect, Queue, type Scope } from "effect"

/**
 * Values routed by key: a publish reaches only the subscribers of its key. A broadcast hub woke
 * every subscriber for every signal to let each discard the ones not meant for it, which under a
 * burst of claims cost every open stream a fiber wake-up per claim anywhere.
 */
export interface KeyedHub<A> {
  readonly publish: (key: string, value: A) => Effect.Effect<void>
  /** A queue receiving each value published under the key, from now until the scope closes. */
  readonly subscribe: (key: string) => Effect.Effect<Queue.Dequeue<A>, never, Scope.Scope>
}

export const makeKeyedHub = <A>(): KeyedHub<A> => {
  const subscribers = new Map<string, Set<Queue.Queue<A>>>()
  const publish = (key: string, value: A) =>
    Effect.sync(() => {
      const queues = subscribers.get(key)
      if (queues !== undefined) { for (const queue of queues) queue.unsafeOffer(value) }
    })
  const subscribe = (key: string) =>
    Effect.acquireRelease(
      Effect.tap(Queue.unbounded<A>(), (queue) =>
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

/** A hub whose values say only that the key changed. */
export interface SignalHub {
  readonly publish: (key: string) => Effect.Effect<void>
  readonly subscribe: (key: string) => Effect.Effect<Queue.Dequeue<void>, never, Scope.Scope>
}

export const makeSignalHub = (): SignalHub => {
  const hub = makeKeyedHub<void>()
  return { publish: (key) => hub.publish(key, undefined), subscribe: hub.subscribe }
}
