import { Array as Arr, Deferred, Effect, Option, Queue } from "effect"

/**
 * Group commit: concurrent callers' items are gathered and run together, one statement for many.
 * While a group runs, newcomers wait in the queue and go together in the next one, so a lone
 * caller pays no delay and a crowd pays one round trip per group instead of one each.
 */
export interface GroupCommit<A, B, E> {
  readonly submit: (item: A) => Effect.Effect<B, E>
}

interface Pending<A, B, E> {
  readonly item: A
  readonly result: Deferred.Deferred<B, E>
}

/**
 * `run` answers a group in order: its result `i` belongs to item `i`. `workers` groups may run at
 * once (each holds one connection); a group holds at most `maxSize` items. The workers live as
 * long as the scope.
 */
export const make = <A, B, E>(options: {
  readonly run: (items: Arr.NonEmptyReadonlyArray<A>) => Effect.Effect<ReadonlyArray<B>, E>
  readonly maxSize: number
  readonly workers: number
}) =>
  Effect.gen(function*() {
    const queue = yield* Effect.acquireRelease(Queue.unbounded<Pending<A, B, E>>(), Queue.shutdown)

    const runGroup = (group: Arr.NonEmptyReadonlyArray<Pending<A, B, E>>) =>
      options.run(Arr.map(group, (pending) => pending.item)).pipe(
        Effect.exit,
        Effect.flatMap((exit) =>
          Effect.forEach(group, (pending, i) =>
            Deferred.complete(
              pending.result,
              Effect.flatMap(exit, (results) =>
                Option.match(Arr.get(results, i), {
                  onNone: () => Effect.dieMessage(`group commit: no result for item ${i} of ${group.length}`),
                  onSome: Effect.succeed
                }))
            ), { discard: true })
        )
      )

    const worker = Effect.gen(function*() {
      const first = yield* Queue.take(queue)
      const rest = yield* Queue.takeUpTo(queue, options.maxSize - 1)
      yield* runGroup(Arr.prepend(Arr.fromIterable(rest), first))
    }).pipe(Effect.forever)

    yield* Effect.forkScoped(Effect.all(Arr.replicate(worker, options.workers), { concurrency: "unbounded", discard: true }))

    const submit = (item: A): Effect.Effect<B, E> =>
      Effect.flatMap(Deferred.make<B, E>(), (result) => Effect.zipRight(Queue.offer(queue, { item, result }), Deferred.await(result)))

    return { submit } satisfies GroupCommit<A, B, E>
  })
