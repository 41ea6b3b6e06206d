import * as FileSystem from "@effect/platform/FileSystem"
import * as Path from "@effect/platform/Path"
import { Effect, Option, Schema } from "effect"
import { AgentSessionId } from "../../catalog/domain/Ids.js"

/**
 * The local journal that makes streaming lose nothing: every chunk is appended here before it is
 * uploaded, one file per assistant message, and the file is removed once the message is finished
 * on the backend. After a crash the files left are the chunks the backend may not have.
 */

export const JournalChunk = Schema.Struct({ seq: Schema.Int, type: Schema.String, data: Schema.String })
export type JournalChunk = typeof JournalChunk.Type

export const JournalHeader = Schema.Struct({
  threadId: Schema.String,
  messageId: Schema.String,
  epoch: Schema.Int,
  sessionId: AgentSessionId
})
export type JournalHeader = typeof JournalHeader.Type

const Line = Schema.parseJson(Schema.Union(
  Schema.Struct({ header: JournalHeader }),
  Schema.Struct({ chunk: JournalChunk })
))
const decodeLine = Schema.decodeUnknownOption(Line)
const encodeLine = Schema.encodeSync(Line)

export interface JournalFile {
  readonly header: JournalHeader
  readonly chunks: ReadonlyArray<JournalChunk>
  /** Lines that did not parse (a crash mid-write leaves at most the last one torn). */
  readonly torn: number
}

export class Journal extends Effect.Service<Journal>()("trellis/agent/Journal", {
  effect: Effect.fn(function*(directory: string) {
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    yield* fs.makeDirectory(directory, { recursive: true, mode: 0o700 }).pipe(Effect.orDie)

    const fileOf = (header: Pick<JournalHeader, "threadId" | "messageId">) =>
      path.join(directory, `${header.threadId}.${header.messageId}.jsonl`)

    const appendLines = (file: string, lines: ReadonlyArray<string>) =>
      fs.writeFileString(file, lines.map((l) => `${l}\n`).join(""), { flag: "a", mode: 0o600 }).pipe(Effect.orDie)

    /** Starts a message's journal (idempotent: an existing one is kept). */
    const open = (header: JournalHeader) =>
      Effect.gen(function*() {
        const file = fileOf(header)
        if (!(yield* fs.exists(file).pipe(Effect.orDie))) yield* appendLines(file, [encodeLine({ header })])
      })

    /**
     * One write per upload group. The chunks are typed already: plain JSON, not a Schema encode
     * per line (the hot path of streaming). No fsync: the journal guards against the CLI dying,
     * and the kernel keeps a dead process's writes.
     */
    const append = (header: JournalHeader, chunks: ReadonlyArray<JournalChunk>) =>
      appendLines(fileOf(header), chunks.map((chunk) => JSON.stringify({ chunk })))

    /** The message is settled on the backend: its chunks need not be kept. */
    const remove = (header: Pick<JournalHeader, "threadId" | "messageId">) => fs.remove(fileOf(header), { force: true }).pipe(Effect.orDie)

    const read = (file: string) =>
      Effect.gen(function*() {
        const text = yield* fs.readFileString(file).pipe(Effect.orDie)
        let header: JournalHeader | undefined
        const chunks: Array<JournalChunk> = []
        let torn = 0
        for (const raw of text.split("\n")) {
          if (raw === "") continue
          const line = decodeLine(raw)
          if (Option.isNone(line)) torn += 1
          else if ("header" in line.value) header = line.value.header
          else chunks.push(line.value.chunk)
        }
        return header === undefined ? Option.none() : Option.some<JournalFile>({ header, chunks, torn })
      })

    /** Every journal left behind, oldest message first. */
    const leftovers = Effect.gen(function*() {
      const names = yield* fs.readDirectory(directory).pipe(Effect.orDie)
      const files = []
      for (const name of names.filter((n) => n.endsWith(".jsonl")).sort()) {
        const file = yield* read(path.join(directory, name))
        if (Option.isSome(file)) files.push(file.value)
        else yield* fs.remove(path.join(directory, name), { force: true }).pipe(Effect.orDie)
      }
      return files
    })

    return {
      open,
      append,
      remove,
      leftovers,
      read: (header: Pick<JournalHeader, "threadId" | "messageId">) => read(fileOf(header))
    } as const
  })
}) {}
