/**
 * An `@effect/sql` client running on PGlite (PostgreSQL compiled to WASM, in
 * process) that provides the same services as `@effect/sql-pg`:
 * `PgClient.PgClient` and `SqlClient.SqlClient`. Application code, `PgMigrator`
 * migrations and tests therefore run unchanged on PGlite and on PostgreSQL.
 *
 * PGlite is a single session, so a `Semaphore(1)` stands in for the pool: a
 * transaction holds the permit for its whole scope, every other statement
 * holds it only while it runs.
 */
import * as Reactivity from "@effect/experimental/Reactivity"
import * as PgClient from "@effect/sql-pg/PgClient"
import * as SqlClient from "@effect/sql/SqlClient"
import type { Connection } from "@effect/sql/SqlConnection"
import { SqlError } from "@effect/sql/SqlError"
import * as Statement from "@effect/sql/Statement"
import { PGlite, types, type ParserOptions, type QueryOptions, type SerializerOptions } from "@electric-sql/pglite"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as fs from "node:fs"
import * as path from "node:path"
import * as ClusterImage from "./ClusterImage.js"
import * as PgliteCluster from "./PgliteCluster.js"
import * as PglitePreparedStatements from "./PglitePreparedStatements.js"

export interface PgliteClientConfig {
  /** PGlite data directory (a filesystem path or `file://`, `memory://`, ...); `undefined` = in memory. */
  readonly dataDir?: string | undefined
  /** A `dumpDataDir()` tarball to start the database from. */
  readonly loadDataDir?: Blob | undefined
  readonly spanAttributes?: Record<string, unknown> | undefined
  readonly transformResultNames?: ((str: string) => string) | undefined
  readonly transformQueryNames?: ((str: string) => string) | undefined
}

/**
 * PGlite's start parameters with a smaller buffer pool. PostgreSQL's default shared_buffers
 * (128 MB) is sized for a server of many sessions; here it sits in PGlite's WebAssembly memory,
 * which never shrinks, so every page once cached stays resident. The rest of PostgreSQL's
 * memory settings are already per query and small. What it trades: pages beyond the pool are read
 * again through the filesystem (the OS page cache), see docs/decisions.md and npm run bench:tasks.
 */
export const PGLITE_START_PARAMS: ReadonlyArray<string> = [...PGlite.defaultStartParams, "-c", "shared_buffers=16MB"]

/** The raw PGlite instance behind the client (e.g. for `dumpDataDir()` snapshots). */
export class Pglite extends Context.Tag("trellis/db/PgliteClient/Pglite")<Pglite, PGlite>() {}

// ---------------------------------------------------------------------------
// Type parity with node-postgres (pg-types)
// ---------------------------------------------------------------------------

const asText = (value: string): string => value

// pg-types parses `date` as local midnight; PGlite's default gives UTC midnight.
const parseDate = (value: string): Date | number => {
  const ymd = /^(\d{4,})-(\d{2})-(\d{2})$/.exec(value)
  if (ymd) return new Date(Number(ymd[1]), Number(ymd[2]) - 1, Number(ymd[3]))
  return value === "infinity" ? Infinity : value === "-infinity" ? -Infinity : new Date(value)
}

/**
 * PGlite's defaults already match pg for bool, json/jsonb, int2/int4/float
 * (numbers), numeric (string, no parser) and timestamp/timestamptz (`Date`,
 * `timestamp` read as local time). PGlite turns int8 into a number/bigint;
 * pg keeps it a string. Array types (e.g. int8[]) reuse these element parsers.
 */
const parsers: ParserOptions = {
  [types.INT8]: asText,
  [types.NUMERIC]: asText,
  [types.DATE]: parseDate
}

const pad = (n: number, width = 2): string => String(n).padStart(width, "0")

// node-postgres sends a Date as local wall-clock time with its UTC offset;
// PGlite sends `toISOString()` (UTC). Same instant for timestamptz, but for
// `timestamp`/`date` columns the stored value differs unless TZ=UTC (and would
// not round-trip with the local-time parser), so serialize the way pg does.
const dateToPg = (date: Date): string => {
  const offset = -date.getTimezoneOffset()
  const abs = Math.abs(offset)
  return `${pad(date.getFullYear(), 4)}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}` +
    `T${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}.${pad(date.getMilliseconds(), 3)}` +
    `${offset < 0 ? "-" : "+"}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`
}

const serializeDate = (value: unknown): string =>
  value instanceof Date ? dateToPg(value) : typeof value === "number" ? dateToPg(new Date(value)) : String(value)

const serializers: SerializerOptions = {
  [types.DATE]: serializeDate,
  [types.TIMESTAMP]: serializeDate,
  [types.TIMESTAMPTZ]: serializeDate
}

// ---------------------------------------------------------------------------
// Client
// ---------------------------------------------------------------------------

type TransformRows = (<A extends object>(rows: ReadonlyArray<A>) => ReadonlyArray<A>) | undefined

type PgliteConnection = Connection & {
  readonly executeWithoutTransform: (sql: string, params: ReadonlyArray<unknown>) => Effect.Effect<ReadonlyArray<object>, SqlError>
}

const messageOf = (cause: unknown): string => cause instanceof Error ? cause.message : String(cause)

// One result set -> itself; several (multi-statement SQL) -> all of them, as node-postgres returns.
const single = <A>(results: ReadonlyArray<A>): A | ReadonlyArray<A> => {
  const [only, ...rest] = results
  return only !== undefined && rest.length === 0 ? only : results
}

// PGlite treats a dataDir without a scheme (or with file://) as a node filesystem path.
const nodeFsPath = (dataDir: string | undefined): string | undefined =>
  dataDir === undefined ? undefined : dataDir.startsWith("file://") ? dataDir.slice(7) : dataDir.includes("://") ? undefined : dataDir

const quoteIdentifier = (name: string): string => `"${name.replace(/"/g, "\"\"")}"`

export const make = (
  config: PgliteClientConfig = {}
): Effect.Effect<PgClient.PgClient & { readonly pglite: PGlite }, SqlError, Scope.Scope | Reactivity.Reactivity> =>
  Effect.gen(function*() {
    const fsPath = nodeFsPath(config.dataDir)
    // PGlite does not create missing parent directories.
    if (fsPath !== undefined) yield* Effect.sync(() => fs.mkdirSync(path.dirname(path.resolve(fsPath)), { recursive: true }))
    if (fsPath !== undefined && config.loadDataDir === undefined) {
      // A new data directory starts from the build's cluster if it has one, else from initdb.
      yield* Effect.sync(() => ClusterImage.copyTo(fsPath))
      yield* PgliteCluster.create(fsPath, PGLITE_START_PARAMS)
    }
    const pglite = yield* Effect.acquireRelease(
      Effect.tryPromise({
        try: () =>
          PGlite.create({
            parsers,
            serializers,
            startParams: [...PGLITE_START_PARAMS],
            ...(config.dataDir !== undefined ? { dataDir: config.dataDir } : {}),
            ...(config.loadDataDir !== undefined ? { loadDataDir: config.loadDataDir } : {})
          }),
        catch: (cause) => new SqlError({ cause, message: `PgliteClient: failed to start PGlite: ${messageOf(cause)}` })
      }),
      (pglite) => pglite.closed ? Effect.void : Effect.ignore(Effect.tryPromise(() => pglite.close()))
    )
    const semaphore = yield* Effect.makeSemaphore(1)
    const runPrepared = PglitePreparedStatements.make(pglite)

    // PGlite cannot cancel a running query, so wait for it even when interrupted:
    // the permit is then only released once the session is really free.
    const attempt = <A>(message: string, f: () => Promise<A>): Effect.Effect<A, SqlError> =>
      Effect.uninterruptible(Effect.tryPromise({
        try: f,
        catch: (cause) => new SqlError({ cause, message: `${message}: ${messageOf(cause)}` })
      }))

    const makeConnection = (
      lock: <A>(effect: Effect.Effect<A, SqlError>) => Effect.Effect<A, SqlError>
    ): PgliteConnection => {
      // node-postgres uses the simple query protocol when there are no parameters
      // (so multi-statement SQL works); mirror that with `exec`, else `query`.
      const results = (sql: string, params: ReadonlyArray<unknown>, options?: QueryOptions) =>
        lock(attempt("Failed to execute statement", () =>
          params.length === 0
            ? pglite.exec(sql, options)
            : runPrepared(sql, params, options).then((result) => [result])))
      const execute = (sql: string, params: ReadonlyArray<unknown>, transformRows: TransformRows) =>
        Effect.map(results(sql, params), (rs): ReadonlyArray<object> => {
          const rows = single(rs.map((r) => r.rows))
          return transformRows ? transformRows(rows) : rows
        })
      return {
        execute,
        executeUnprepared: execute,
        executeWithoutTransform: (sql, params) => execute(sql, params, undefined),
        executeRaw: (sql, params) => Effect.map(results(sql, params), single),
        executeValues: (sql, params) =>
          Effect.map(
            results(sql, params, { rowMode: "array" }),
            (rs) => rs.flatMap((r) => r.rows.map((row) => Array.isArray(row) ? row : Object.values(row)))
          ),
        // PGlite has no cursors: load all rows, then emit them.
        executeStream: (sql, params, transformRows) => Stream.unwrap(Effect.map(execute(sql, params, transformRows), Stream.fromIterable))
      }
    }
    // Used inside a transaction, which already holds the permit for its scope.
    const transactionConnection = makeConnection((effect) => effect)
    // Every statement outside a transaction holds the permit while it runs.
    const connection = makeConnection(semaphore.withPermits(1))

    // For work that bypasses the connections (LISTEN/UNLISTEN): take the
    // permit unless this fiber is already inside one of our transactions.
    const exclusive = <A>(effect: Effect.Effect<A, SqlError>): Effect.Effect<A, SqlError> =>
      Effect.flatMap(Effect.serviceOption(SqlClient.TransactionConnection), (tx) =>
        Option.isSome(tx) && tx.value[0] === transactionConnection ? effect : semaphore.withPermits(1)(effect))

    const client = yield* SqlClient.make({
      acquirer: Effect.succeed(connection),
      transactionAcquirer: Effect.as(
        Effect.acquireRelease(semaphore.take(1), () =>
          semaphore.release(1)),
        transactionConnection
      ),
      compiler: PgClient.makeCompiler(config.transformQueryNames),
      spanAttributes: [
        ...(config.spanAttributes ? Object.entries(config.spanAttributes) : []),
        ["db.system.name", "postgresql"],
        ["db.namespace", "postgres"],
        ["db.pglite.data_dir", config.dataDir ?? "memory://"]
      ],
      transformRows: config.transformResultNames
        ? Statement.defaultTransforms(config.transformResultNames).array
        : undefined
    })

    // sql-pg's compiler handles custom fragments of kind "PgJson" (JSON parameter).
    const pgJson = Statement.custom<PgClient.PgCustom>("PgJson")

    return Object.assign(client, {
      [PgClient.TypeId]: PgClient.TypeId,
      pglite,
      config: {
        database: "postgres",
        username: "postgres",
        applicationName: "trellis-pglite",
        spanAttributes: config.spanAttributes,
        transformResultNames: config.transformResultNames,
        transformQueryNames: config.transformQueryNames
      },
      json: (value: unknown) => pgJson(value),
      listen: (channel: string) =>
        Stream.asyncPush<string, SqlError>((emit) =>
          Effect.acquireRelease(
            exclusive(attempt("Failed to listen", () =>
              // Quoted like sql-pg's `LISTEN "channel"`: case-sensitive names.
              pglite.listen(quoteIdentifier(channel), (payload) => {
                // Like sql-pg, notifications without a payload are not emitted.
                if (payload) emit.single(payload)
              }))),
            (unlisten) => Effect.ignore(exclusive(attempt("Failed to unlisten", () => unlisten())))
          )
        ),
      // Runs on the current connection: inside a transaction it is delivered
      // at COMMIT (PGlite has no second session to notify from).
      notify: (channel: string, payload: string) => Effect.asVoid(client`SELECT pg_notify(${channel}, ${payload})`)
    })
  })

export const layer = (
  config: PgliteClientConfig = {}
): Layer.Layer<PgClient.PgClient | SqlClient.SqlClient | Pglite, SqlError> =>
  Layer.scopedContext(
    Effect.map(make(config), (client) =>
      Context.make(PgClient.PgClient, client).pipe(
        Context.add(SqlClient.SqlClient, client),
        Context.add(Pglite, client.pglite)
      ))
  ).pipe(Layer.provide(Reactivity.layer))
