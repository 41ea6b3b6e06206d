/**
 * What the benchmark sends, decided before anything is timed: the fixture lines each uploader
 * streams (the runtimes' largest recorded transcripts, from bench/normalize), cut into the
 * requests' chunk arrays and, for the bare-SQL baseline, into the very rows the server would store.
 */
import { normalizeChunk, type ChunkSource } from "../../src/threads/normalizers/normalize.js"
import { averageBytes, STREAMS, streamWorkload, type Line } from "../normalize/Streams.js"

/** The runtimes whose threads a CLI runs (create_thread's cliType; Gemini does not execute). */
export const INGEST_STREAMS = STREAMS.filter((stream) => stream.name !== "gemini")

export interface StreamLines {
  readonly name: string
  readonly source: ChunkSource
  /** The stream's fixture chunks repeated to one uploader's share of a round. */
  readonly lines: ReadonlyArray<Line>
  readonly averageBytes: number
}

export const streamLines = (stream: (typeof INGEST_STREAMS)[number], count: number): StreamLines => {
  const workload = streamWorkload(stream, count)
  const first = workload.lines[0]
  if (first === undefined) throw new Error(`${stream.name}: no fixture lines`)
  return { name: stream.name, source: first.source, lines: workload.lines, averageBytes: averageBytes(workload) }
}

/** One uploading thread: the streaming assistant message its chunks belong to, and its lines. */
export interface Uploader {
  readonly threadId: string
  readonly messageId: string
  readonly epoch: number
  readonly stream: StreamLines
}

/** The uploaders with only their first `lines` lines each (a warm-up round's share). */
export const shortened = (uploaders: ReadonlyArray<Uploader>, lines: number): ReadonlyArray<Uploader> =>
  uploaders.map((u) => ({ ...u, stream: { ...u.stream, lines: u.stream.lines.slice(0, lines) } }))

export interface UploadChunk {
  readonly seq: number
  readonly type: string
  readonly data: string
}

/** The uploader's lines as request bodies' chunk arrays of `batch` chunks, numbered from `firstSeq`. */
export const uploadBatches = (uploader: Uploader, batch: number, firstSeq: number): ReadonlyArray<ReadonlyArray<UploadChunk>> => {
  const batches: Array<ReadonlyArray<UploadChunk>> = []
  const { lines } = uploader.stream
  for (let start = 0; start < lines.length; start += batch) {
    batches.push(lines.slice(start, start + batch).map((line, i) => ({ seq: firstSeq + start + i, type: line.type, data: line.data })))
  }
  return batches
}

/** A thread_chunks row exactly as ChunkUploads.uploadChunks builds it, normalized_event included. */
export type ChunkRow = {
  readonly thread_id: string
  readonly message_id: string
  readonly seq: number
  readonly type: string
  readonly data: string
  readonly normalized_event: string
}

/** The same batches as rows, normalized here and now, so the baseline's timed part is only the INSERT. */
export const rowBatches = (uploader: Uploader, batch: number, firstSeq: number): ReadonlyArray<ReadonlyArray<ChunkRow>> =>
  uploadBatches(uploader, batch, firstSeq).map((chunks) =>
    chunks.map((chunk) => ({
      thread_id: uploader.threadId,
      message_id: uploader.messageId,
      seq: chunk.seq,
      type: chunk.type,
      data: chunk.data,
      normalized_event: JSON.stringify(normalizeChunk(uploader.stream.source, chunk.type, chunk.data))
    }))
  )

/** Nearest-rank percentile (p in 0..1) of unsorted values. */
export const percentile = (values: ReadonlyArray<number>, p: number): number => {
  if (values.length === 0) return Number.NaN
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))] ?? Number.NaN
}
