import { Cause, Chunk, type Duration, Effect, Exit, Option, Queue, Stream } from "effect"
import type { RawLine } from "./runtimes/Runtime.js"

/**
 * A runtime's lines as upload groups: what arrived within `window` of a group's first line, up
 * to `lines` lines and `bytes` bytes of upload body. Between the runtime and the uploads there
 * is room for two groups (lines and bytes): one filling while the other is taken. Past that the
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

/** `{"seq":…,"type":…,"data":…},` around a chunk's escaped type and data, with a seq of up to 16 digits. */
const CHUNK_FRAME_BYTES = 48

/**
 * What a line adds to the upload body: its type and data JSON-escaped, in UTF-8. Counting the
 * characters instead lets a group of quotes, backslashes or control characters (2 to 6 bytes
 * each once escaped) or of non-ASCII text grow past the backend's body cap.
 */
export const uploadBytes = (line: RawLine): number =>
  Buffer.byteLength(JSON.stringify(line.type)) + Buffer.byteLength(JSON.stringify(line.data)) + CHUNK_FRAME_BYTES

interface Sized {
  readonly line: RawLine
  readonly bytes: number
}

/** The runtime's stream ended (how), after every line before it. */
interface End<E> {
  readonly _tag: "End"
  readonly exit: Exit.Exit<void, E>
}

export const groupLines = <E, R>(lines: Stream.Stream<RawLine, E, R>, limits: GroupLimits): Stream.Stream<ReadonlyArray<RawLine>, E, R> =>
  Stream.unwrapScoped(Effect.gen(function*() {
    const queue = yield* Queue.bounded<Sized | End<E>>(2 * limits.lines + 1)
    // Room is counted in KiB: a line takes at least one, and never more than there is.
    const roomKib = Math.max(1, Math.floor((2 * limits.bytes) / 1024))
    const room = yield* Effect.makeSemaphore(roomKib)
    const kib = (item: Sized): number => Math.min(roomKib, Math.max(1, Math.ceil(item.bytes / 1024)))
    yield* lines.pipe(
      Stream.runForEach((line) => {
        const item = { line, bytes: uploadBytes(line) }
        return Effect.zipRight(room.take(kib(item)), Queue.offer(queue, item))
      }),
      Effect.exit,
      Effect.flatMap((exit) => Queue.offer(queue, { _tag: "End", exit })),
      Effect.forkScoped
    )
    let ended: Exit.Exit<void, E> | undefined
    // Taken from the queue but past the last group's bytes: they open the next group, and keep
    // their room until then.
    let held: Array<Sized> = []

    interface Group {
      readonly lines: Array<RawLine>
      bytes: number
    }

    /** Moves items into the group while its bytes allow (a first line always fits); the rest is held. */
    const add = (group: Group, items: ReadonlyArray<Sized | End<E>>) => {
      let freed = 0
      for (const item of items) {
        if ("_tag" in item) ended = item.exit
        else if (held.length > 0 || (group.lines.length > 0 && group.bytes + item.bytes > limits.bytes)) held.push(item)
        else {
          group.lines.push(item.line)
          group.bytes += item.bytes
          freed += kib(item)
        }
      }
      return room.release(freed)
    }

    const open = (group: Group) => held.length === 0 && ended === undefined && group.lines.length < limits.lines
    const fill = (group: Group) =>
      Queue.takeUpTo(queue, limits.lines - group.lines.length).pipe(Effect.flatMap((items) => add(group, Chunk.toReadonlyArray(items))))

    const nextGroup: Effect.Effect<ReadonlyArray<RawLine>, Option.Option<E>> = Effect.gen(function*() {
      const group: Group = { lines: [], bytes: 0 }
      const carried = held
      held = []
      yield* add(group, carried)
      if (group.lines.length === 0) {
        if (ended !== undefined) {
          return yield* Exit.isSuccess(ended) ? Effect.fail(Option.none()) : Effect.failCause(Cause.map(ended.cause, Option.some))
        }
        yield* add(group, [yield* Queue.take(queue)])
        if (group.lines.length === 0) return yield* nextGroup
      }
      // The first line opens the group; what else arrives within the window joins it.
      if (open(group)) yield* fill(group)
      if (open(group)) {
        yield* Effect.sleep(limits.window)
        if (open(group)) yield* fill(group)
      }
      return group.lines
    })

    return Stream.repeatEffectOption(nextGroup)
  }))
