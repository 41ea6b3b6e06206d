import { Cause, Chunk, type Duration, Effect, Exit, Option, Queue, Stream } from "effect"
import type { RawLine } from "./runtimes/Runtime.js"

/**
 * A runtime's lines as upload groups: what arrived within `window` of a group's first line, up
 * to `lines` lines and about `bytes` bytes. Between the runtime and the uploads there is room
 * for two groups (lines and bytes): one filling while the other is taken. Past that the
 * runtime's stdout is not read, its pipe fills and the runtime waits — the agent's memory does
 * not grow with a runtime faster than the backend.
 *
 * Not `Stream.groupedWithin`: a runtime's lines arrive one per chunk, and its hand-off per
 * chunk costs ~50 µs a line, more than everything else the agent does with a line.
 */

export interface GroupLimits {
  readonly lines: number
  readonly bytes: number
  readonly window: Duration.DurationInput
}

/** The runtime's stream ended (how), after every line before it. */
interface End<E> {
  readonly _tag: "End"
  readonly exit: Exit.Exit<void, E>
}


export const groupLines = <E, R>(lines: Stream.Stream<RawLine, E, R>, limits: GroupLimits): Stream.Stream<ReadonlyArray<RawLine>, E, R> =>
  Stream.unwrapScoped(Effect.gen(function* () {
    const queue = yield* Queue.bounded<RawLine | End<E>>(2 * limits.lines + 1)
    // Room is counted in KiB: a line takes at least one, and never more than there is.
    const roomKib = Math.max(1, Math.floor((2 * limits.bytes) / 1024))
    const room = yield* Effect.makeSemaphore(roomKib)
    const kib = (line: RawLine): number => Math.min(roomKib, Math.max(1, Math.ceil(line.data.length / 1024)))
    yield* lines.pipe(
      Stream.runForEach((line) => Effect.zipRight(room.take(kib(line)), Queue.offer(queue, line))),
      Effect.exit,
      Effect.flatMap((exit) => Queue.offer(queue, { _tag: "End", exit })),
      Effect.forkScoped
    )
    let ended: Exit.Exit<void, E> | undefined

    const take = (max: number) =>
      Effect.gen(function* () {
        const taken = Chunk.toReadonlyArray(yield* Queue.takeUpTo(queue, max))
        const group: Array<RawLine> = []
        for (const item of taken) {
          if ("_tag" in item) ended = item.exit
          else group.push(item)
        }
        yield* room.release(group.reduce((sum, line) => sum + kib(line), 0))
        return group
      })

    /** Waits for at least one item, then takes what is there. */
    const takeFirst = Effect.gen(function* () {
      const first = yield* Queue.take(queue)
      const rest = yield* take(limits.lines - 1)
      if ("_tag" in first) {
        ended = first.exit
        return rest
      }
      yield* room.release(kib(first))
      return [first, ...rest]
    })

    const nextGroup: Effect.Effect<ReadonlyArray<RawLine>, Option.Option<E>> = Effect.gen(function* () {
      if (ended !== undefined) {
        return yield* Exit.isSuccess(ended) ? Effect.fail(Option.none()) : Effect.failCause(Cause.map(ended.cause, Option.some))
      }
      // The first line opens the group; what else arrives within the window joins it.
      const group = [...(yield* takeFirst)]
      if (group.length < limits.lines && ended === undefined) {
        yield* Effect.sleep(limits.window)
        group.push(...(yield* take(limits.lines - group.length)))
      }
      if (group.length === 0) return yield* nextGroup
      return group
    })

    return Stream.repeatEffectOption(nextGroup)
  }))
