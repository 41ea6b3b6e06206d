/**
 * Statements with parameters run on PGlite as named prepared statements, each call in one round
 * trip into the WebAssembly backend. `PGlite.query` parses and plans the SQL on every call and
 * makes six calls into the backend for it (parse, describe, bind, describe, execute, sync); the
 * application runs the same few hundred statements over and over (npm run bench:tasks, embedded:
 * bare SQL get/list/search 272/365/295 → 997/566/606 req/s).
 */
import { type PGlite, parse, protocol, type QueryOptions, type Results } from "@electric-sql/pglite"

/**
 * Statements kept prepared at once. The application's SQL texts are few, but some are built
 * with a list of placeholders as long as their input (`IN (…)`), so the cache is bounded: the
 * least recently used is closed.
 */
const CAPACITY = 256

interface Prepared {
  readonly name: string
  readonly paramTypes: ReadonlyArray<number>
}

/** Runs `sql` with `params` as a named prepared statement; the caller holds PGlite's session. */
export type RunPrepared = (sql: string, params: ReadonlyArray<unknown>, options?: QueryOptions) => Promise<Results<Record<string, unknown>>>

export const make = (pglite: PGlite): RunPrepared => {
  // A Map iterates in insertion order: re-inserting on use keeps the least recently used first.
  const prepared = new Map<string, Prepared>()
  let counter = 0
  // Closing is sent ahead of the next statement, in its round trip.
  let toClose: Array<Uint8Array> = []

  const exchange = (messages: ReadonlyArray<Uint8Array>) => pglite.execProtocolStream(Buffer.concat(messages))

  const prepare = async (sql: string): Promise<Prepared> => {
    const name = `trellis_${(counter++).toString(36)}`
    const replies = await exchange([
      ...toClose,
      protocol.serialize.parse({ name, text: sql }),
      protocol.serialize.describe({ type: "S", name }),
      protocol.serialize.sync()
    ])
    toClose = []
    const statement = { name, paramTypes: parse.parseDescribeStatementResults(replies) }
    prepared.set(sql, statement)
    const oldest = prepared.size > CAPACITY ? prepared.entries().next().value : undefined
    if (oldest !== undefined) {
      prepared.delete(oldest[0])
      toClose.push(protocol.serialize.close({ type: "S", name: oldest[1].name }))
    }
    return statement
  }

  const serialize = (statement: Prepared, params: ReadonlyArray<unknown>, options?: QueryOptions) =>
    params.map((value, index) => {
      if (value === null || value === undefined) return null
      const type = statement.paramTypes[index] ?? 0
      const serializer = options?.serializers?.[type] ?? pglite.serializers[type]
      return serializer !== undefined ? serializer(value) : String(value)
    })

  const run = async (sql: string, params: ReadonlyArray<unknown>, options: QueryOptions | undefined, retried: boolean) => {
    const known = prepared.get(sql)
    if (known !== undefined) {
      prepared.delete(sql)
      prepared.set(sql, known)
    }
    const statement = known ?? await prepare(sql)
    try {
      const replies = await exchange([
        ...toClose,
        protocol.serialize.bind({ statement: statement.name, values: serialize(statement, params, options) }),
        protocol.serialize.describe({ type: "P" }),
        protocol.serialize.execute({}),
        protocol.serialize.sync()
      ])
      toClose = []
      const [result] = parse.parseResults(replies, pglite.parsers, options)
      return result ?? { rows: [], fields: [] }
    } catch (error) {
      // Whatever failed, the next call prepares the statement anew.
      if (prepared.get(sql) === statement) prepared.delete(sql)
      toClose = [...toClose, protocol.serialize.close({ type: "S", name: statement.name })]
      // A table the statement reads changed shape since it was prepared (PostgreSQL: "cached plan
      // must not change result type"): prepared anew, it runs, unless a transaction it was part of
      // is now aborted and must fail as it would have.
      if (known !== undefined && !retried && Reflect.get(Object(error), "code") === "0A000" && !pglite.isInTransaction()) {
        return run(sql, params, options, true)
      }
      throw error
    }
  }

  return (sql, params, options) => pglite.runExclusive(() => run(sql, params, options, false))
}
