import * as Reactivity from "@effect/experimental/Reactivity"
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as PgClient from "@effect/sql-pg/PgClient"
import * as PgMigrator from "@effect/sql-pg/PgMigrator"
import * as SqlClient from "@effect/sql/SqlClient"
import { SqlError } from "@effect/sql/SqlError"
import { afterAll, describe, expect, it, layer } from "@effect/vitest"
import { Chunk, Deferred, Effect, Fiber, Layer, Option, Ref, Schedule, Stream, String as Str, TestServices } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as ClusterImage from "../../../src/platform/sql/ClusterImage.js"
import * as PgliteClient from "../../../src/platform/sql/PgliteClient.js"
import * as PgliteCluster from "../../../src/platform/sql/PgliteCluster.js"
import { dropTemplateDatabases } from "../../../src/platform/sql/TemplateDatabases.js"

/** Opens a client on its own PGlite, runs `f`, then closes it. */
const withClient = <A, E>(
  config: PgliteClient.PgliteClientConfig,
  f: (sql: PgClient.PgClient & { readonly pglite: PgliteClient.Pglite["Type"] }) => Effect.Effect<A, E>
) => Effect.scoped(Effect.flatMap(PgliteClient.make(config), f)).pipe(Effect.provide(Reactivity.layer))

const tmpDir = Effect.acquireRelease(
  Effect.sync(() => fs.mkdtempSync(path.join(os.tmpdir(), "pglite-client-"))),
  (dir) => Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true }))
)

/** The tests that only copy a built cluster share one, listed as the build lists it: initdb is most of their time. */
const imageRoot = fs.mkdtempSync(path.join(os.tmpdir(), "pglite-image-"))
const builtImage = Effect.runSync(Effect.cached(Effect.gen(function*() {
  const image = path.join(imageRoot, "image")
  yield* withClient({ dataDir: image }, (sql) => sql`CREATE TABLE built (note text); INSERT INTO built VALUES ('from the build')`)
  ClusterImage.listDirectories(image)
  return image
})))

describe("PgliteClient", () => {
  afterAll(() => fs.rmSync(imageRoot, { recursive: true, force: true }))

  layer(PgliteClient.layer({}))((it) => {
    it.effect("round-trips rows with node-postgres types (int8/numeric as string, timestamptz as Date, jsonb, text[], bool)", () =>
      Effect.gen(function*() {
        const sql = yield* PgClient.PgClient
        yield* sql`CREATE TABLE items (
          id bigserial PRIMARY KEY,
          total numeric(10, 2) NOT NULL,
          at timestamptz NOT NULL,
          local_at timestamp NOT NULL,
          day date NOT NULL,
          data jsonb NOT NULL,
          tags text[] NOT NULL,
          done boolean NOT NULL
        )`
        const at = new Date("2024-05-06T07:08:09.123Z")
        const day = new Date(2024, 4, 6)
        const [inserted] = yield* sql`INSERT INTO items ${
          sql.insert({
            total: "12.50",
            at,
            local_at: at,
            day,
            data: sql.json({ a: 1, nested: { b: [1, 2] } }),
            tags: ["x", "y,z"],
            done: false
          })
        } RETURNING id`
        expect(inserted).toEqual({ id: "1" })

        // An object as a plain parameter to a jsonb column, a Date parameter in a WHERE clause.
        yield* sql`UPDATE items SET data = ${{ a: 2 }}, done = ${true}, tags = ${["only"]} WHERE at = ${at}`

        const rows = yield* sql`SELECT id, total, at, local_at, day, data, tags, done, 9007199254740993::int8 AS big FROM items`
        expect(rows).toEqual([{
          id: "1",
          total: "12.50",
          at,
          local_at: at,
          day,
          data: { a: 2 },
          tags: ["only"],
          done: true,
          big: "9007199254740993"
        }])
        expect(rows[0]?.["at"]).toBeInstanceOf(Date)
        const [matched] = yield* sql`SELECT count(*) AS n FROM items WHERE ${"y"} = ANY(tags) OR ${"only"} = ANY(tags)`
        expect(matched).toEqual({ n: "1" })
      }))

    it.effect("runs multi-statement SQL without params, values and streams", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        yield* sql.unsafe("CREATE TABLE multi (n int8 NOT NULL); INSERT INTO multi VALUES (1), (2)").unprepared
        expect(yield* sql.unsafe("SELECT 1 AS a; SELECT 2 AS b")).toEqual([[{ a: 1 }], [{ b: 2 }]])
        expect(yield* sql`SELECT n, n * 10 AS n FROM multi ORDER BY 1`.values).toEqual([["1", "10"], ["2", "20"]])
        const streamed = yield* Stream.runCollect(sql`SELECT n FROM multi ORDER BY n`.stream)
        expect(Chunk.toReadonlyArray(streamed)).toEqual([{ n: "1" }, { n: "2" }])
      }))

    it.effect("a transaction that fails rolls back everything", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        yield* sql`CREATE TABLE tx_all (n int NOT NULL)`
        const error = yield* Effect.gen(function*() {
          yield* sql`INSERT INTO tx_all VALUES (1)`
          yield* sql`INSERT INTO tx_all VALUES (2)`
          return yield* Effect.fail("boom" as const)
        }).pipe(sql.withTransaction, Effect.flip)
        expect(error).toBe("boom")
        expect(yield* sql`SELECT * FROM tx_all`).toEqual([])
      }))

    it.effect("a nested transaction rolls back to its savepoint and keeps the outer work", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        yield* sql`CREATE TABLE tx_nested (n int NOT NULL)`
        yield* Effect.gen(function*() {
          yield* sql`INSERT INTO tx_nested VALUES (1)`
          const inner = yield* Effect.gen(function*() {
            yield* sql`INSERT INTO tx_nested VALUES (2)`
            return yield* Effect.fail("inner" as const)
          }).pipe(sql.withTransaction, Effect.flip)
          expect(inner).toBe("inner")
          yield* sql`INSERT INTO tx_nested VALUES (3)`
        }).pipe(sql.withTransaction)
        expect(yield* sql`SELECT n FROM tx_nested ORDER BY n`).toEqual([{ n: 1 }, { n: 3 }])
      }))

    it.effect("another fiber's plain insert never joins a concurrent transaction (survives its rollback)", () =>
      TestServices.provideLive(Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        yield* sql`CREATE TABLE tx_concurrent (who text NOT NULL)`
        const events = yield* Ref.make<ReadonlyArray<string>>([])
        const log = (event: string) => Ref.update(events, (all) => [...all, event])
        const inTransaction = yield* Deferred.make<void>()

        const transaction = yield* Effect.gen(function*() {
          yield* sql`INSERT INTO tx_concurrent VALUES ('tx-1')`
          yield* Deferred.succeed(inTransaction, undefined)
          yield* Effect.sleep("200 millis")
          yield* sql`INSERT INTO tx_concurrent VALUES ('tx-2')`
          return yield* Effect.fail("rollback" as const)
        }).pipe(sql.withTransaction, Effect.flip, Effect.zipLeft(log("transaction ended")), Effect.fork)
        const plain = yield* Deferred.await(inTransaction).pipe(
          Effect.zipRight(sql`INSERT INTO tx_concurrent VALUES ('plain')`),
          Effect.zipRight(log("plain insert done")),
          Effect.fork
        )

        expect(yield* Fiber.join(transaction)).toBe("rollback")
        yield* Fiber.join(plain)
        expect(yield* sql`SELECT who FROM tx_concurrent`).toEqual([{ who: "plain" }])
        expect(yield* Ref.get(events)).toEqual(["transaction ended", "plain insert done"])
      })))

    it.effect("PgMigrator.layer runs migrations on it", () =>
      Effect.gen(function*() {
        const Migrations = PgMigrator.layer({
          loader: PgMigrator.fromRecord({
            "1_create_widgets": Effect.gen(function*() {
              const sql = yield* SqlClient.SqlClient
              yield* sql`CREATE TABLE widgets (id serial PRIMARY KEY, name text NOT NULL);
                CREATE INDEX widgets_name ON widgets (name)`
            }),
            "2_seed_widgets": Effect.gen(function*() {
              const sql = yield* SqlClient.SqlClient
              yield* sql`INSERT INTO widgets ${sql.insert({ name: "gear" })}`
            })
          })
        }).pipe(Layer.provide(NodeContext.layer))
        yield* Effect.provide(Effect.void, Migrations)
        yield* Effect.provide(Effect.void, Migrations) // a second run has nothing to do
        const sql = yield* SqlClient.SqlClient
        expect(yield* sql`SELECT migration_id, name FROM effect_sql_migrations ORDER BY 1`).toEqual([
          { migration_id: 1, name: "create_widgets" },
          { migration_id: 2, name: "seed_widgets" }
        ])
        expect(yield* sql`SELECT name FROM widgets`).toEqual([{ name: "gear" }])
      }))

    it.effect("listen/notify delivers a payload", () =>
      TestServices.provideLive(Effect.gen(function*() {
        const pg = yield* PgClient.PgClient
        const received = yield* pg.listen("Trellis_Events").pipe(Stream.take(1), Stream.runCollect, Effect.fork)
        // LISTEN runs once the forked stream starts: notify until the listener got one. The pause
        // between notifies matters: the semaphore is not FIFO, so a tight notify loop would keep
        // re-taking the permit before the waiting LISTEN gets it.
        yield* pg.notify("Trellis_Events", "hello").pipe(
          Effect.zipRight(Fiber.poll(received)),
          Effect.repeat({ until: Option.isSome, schedule: Schedule.spaced("10 millis") })
        )
        expect(Chunk.toReadonlyArray(yield* Fiber.join(received))).toEqual(["hello"])
      })))

    it.effect("a unique violation keeps the pg code 23505 on the SqlError cause", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        yield* sql`CREATE TABLE uniq (email text UNIQUE)`
        yield* sql`INSERT INTO uniq VALUES ('a@example.com')`
        const error = yield* Effect.flip(sql`INSERT INTO uniq VALUES ('a@example.com')`)
        expect(error).toBeInstanceOf(SqlError)
        expect(error.cause).toMatchObject({ code: "23505", constraint: "uniq_email_key" })
        expect(error.message).toContain("duplicate key")
      }))

    it.effect("the Pglite tag exposes the raw instance for dumpDataDir snapshots", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        yield* sql`CREATE TABLE snap (n int); INSERT INTO snap VALUES (42)`
        const pglite = yield* PgliteClient.Pglite
        const snapshot = yield* Effect.promise(() => pglite.dumpDataDir())
        const rows = yield* withClient({ loadDataDir: snapshot }, (copy) => copy`SELECT n FROM snap`)
        expect(rows).toEqual([{ n: 42 }])
      }))
  })

  it.effect("transformQueryNames/transformResultNames map names like sql-pg", () =>
    withClient({ transformQueryNames: Str.camelToSnake, transformResultNames: Str.snakeToCamel }, (sql) =>
      Effect.gen(function*() {
        yield* sql`CREATE TABLE ${sql("someThings")} (${sql("createdBy")} text)`
        yield* sql`INSERT INTO ${sql("someThings")} ${sql.insert({ createdBy: "ann" })}`
        expect(yield* sql`SELECT * FROM some_things`).toEqual([{ createdBy: "ann" }])
      })))

  it.effect("a dataDir on disk persists across close and reopen", () =>
    Effect.scoped(Effect.gen(function*() {
      // PGlite does not create missing parents: make() must create `nested/`.
      const dataDir = path.join(yield* tmpDir, "nested", "pgdata")
      const first = yield* withClient({ dataDir }, (sql) =>
        Effect.as(sql`CREATE TABLE kept (note text); INSERT INTO kept VALUES ('still here')`, sql.pglite))
      expect(first.closed).toBe(true)
      const rows = yield* withClient({ dataDir }, (sql) =>
        sql`SELECT note FROM kept`)
      expect(rows).toEqual([{ note: "still here" }])
    })), 120_000)

  it.effect(
    "a fresh dataDir's cluster is created by a child process, once, and opened with a 16 MB buffer pool",
    () =>
      Effect.scoped(Effect.gen(function*() {
        const dataDir = path.join(yield* tmpDir, "pgdata")
        yield* PgliteCluster.create(dataDir, PgliteClient.PGLITE_START_PARAMS)
        expect(PgliteCluster.exists(dataDir)).toBe(true)
        const created = fs.statSync(path.join(dataDir, "PG_VERSION")).mtimeMs
        const rows = yield* withClient({ dataDir }, (sql) => sql`SHOW shared_buffers`)
        expect(rows).toEqual([{ shared_buffers: "16MB" }])
        // An existing cluster is opened as it is, never created again.
        yield* PgliteCluster.create(dataDir, PgliteClient.PGLITE_START_PARAMS)
        expect(fs.statSync(path.join(dataDir, "PG_VERSION")).mtimeMs).toBe(created)
      })),
    120_000
  )

  it.effect(
    "a new data directory starts as a copy of the build's cluster; one that has a cluster is never overwritten",
    () =>
      Effect.scoped(Effect.gen(function*() {
        const root = yield* tmpDir
        const image = yield* builtImage
        const fresh = path.join(root, "fresh")
        ClusterImage.copyTo(fresh, image)
        expect(yield* withClient({ dataDir: fresh }, (sql) => sql`SELECT note FROM built`)).toEqual([{ note: "from the build" }])
        yield* withClient({ dataDir: fresh }, (sql) => sql`UPDATE built SET note = 'written since'`)
        ClusterImage.copyTo(fresh, image)
        expect(yield* withClient({ dataDir: fresh }, (sql) => sql`SELECT note FROM built`)).toEqual([{ note: "written since" }])
        // A build without a cluster (run from source) copies nothing: the cluster is created instead.
        const elsewhere = path.join(root, "elsewhere")
        ClusterImage.copyTo(elsewhere, path.join(root, "no-image"))
        expect(fs.existsSync(elsewhere)).toBe(false)
      })),
    120_000
  )

  it.effect(
    "a copy of the build's cluster that lost its empty directories, as a package does, gets them back and opens",
    () =>
      Effect.scoped(Effect.gen(function*() {
        const root = yield* tmpDir
        const image = yield* builtImage
        const empty = fs.readdirSync(image, { recursive: true, encoding: "utf8" })
          .filter((entry) => fs.statSync(path.join(image, entry)).isDirectory() && fs.readdirSync(path.join(image, entry)).length === 0)
        expect(empty).toContain("pg_tblspc")
        // What `npm pack` ships: every file, no empty directory.
        const shipped = path.join(root, "shipped")
        fs.cpSync(image, shipped, { recursive: true })
        for (const directory of empty) fs.rmdirSync(path.join(shipped, directory))
        const fresh = path.join(root, "fresh")
        ClusterImage.copyTo(fresh, shipped)
        for (const directory of empty) expect(fs.existsSync(path.join(fresh, directory)), directory).toBe(true)
        expect(fs.readdirSync(fresh)).not.toContain("trellis-directories.json")
        expect(yield* withClient({ dataDir: fresh }, (sql) => sql`SELECT note FROM built`)).toEqual([{ note: "from the build" }])
      })),
    120_000
  )

  it.effect(
    "a data directory without PG_VERSION (a first copy cut short) is copied again whole by the next start",
    () =>
      Effect.scoped(Effect.gen(function*() {
        const image = yield* builtImage
        const fresh = path.join(yield* tmpDir, "fresh")
        ClusterImage.copyTo(fresh, image)
        // As if the process died mid-copy: a relation file half written, the cluster's marker not yet there.
        fs.rmSync(path.join(fresh, "PG_VERSION"))
        const relation = fs.readdirSync(path.join(fresh, "base", "5")).find((name) =>
          /^\d+$/.test(name) && fs.statSync(path.join(fresh, "base", "5", name)).size > 0
        )
        if (relation === undefined) throw new Error("the image has no relation file")
        fs.truncateSync(path.join(fresh, "base", "5", relation), 1)
        ClusterImage.copyTo(fresh, image)
        expect(yield* withClient({ dataDir: fresh }, (sql) => sql`SELECT note FROM built`)).toEqual([{ note: "from the build" }])
      })),
    120_000
  )

  it.effect(
    "the build's cluster leaves out initdb's template databases: a copy of it opens and runs the application's, in a third of the files",
    () =>
      Effect.scoped(Effect.gen(function*() {
        const root = yield* tmpDir
        const image = path.join(root, "image")
        const files = (dir: string) => fs.readdirSync(dir, { recursive: true }).length
        fs.cpSync(yield* builtImage, image, { recursive: true })
        const withTemplates = files(image)
        yield* withClient({ dataDir: image }, (sql) => Effect.provideService(dropTemplateDatabases, SqlClient.SqlClient, sql))
        expect(files(image)).toBeLessThan(withTemplates / 2)
        const fresh = path.join(root, "fresh")
        ClusterImage.copyTo(fresh, image)
        expect(yield* withClient({ dataDir: fresh }, (sql) => sql`SELECT datname FROM pg_database`)).toEqual([{ datname: "postgres" }])
        yield* withClient({ dataDir: fresh }, (sql) => sql`INSERT INTO built VALUES ('written since')`)
        expect(yield* withClient({ dataDir: fresh }, (sql) => sql`SELECT note FROM built ORDER BY note`)).toEqual([
          { note: "from the build" },
          { note: "written since" }
        ])
      })),
    120_000
  )

  it.effect(
    "an in-memory database has the same 16 MB buffer pool",
    () => withClient({}, (sql) => Effect.map(sql`SHOW shared_buffers`, (rows) => expect(rows).toEqual([{ shared_buffers: "16MB" }]))),
    120_000
  )

  it.effect("a cluster that cannot be created fails with a SqlError naming the directory", () =>
    Effect.scoped(Effect.gen(function*() {
      const file = path.join(yield* tmpDir, "not-a-directory")
      fs.writeFileSync(file, "")
      const error = yield* Effect.flip(PgliteCluster.create(path.join(file, "pgdata"), PgliteClient.PGLITE_START_PARAMS))
      expect(error).toBeInstanceOf(SqlError)
      expect(error.message).toContain(file)
    })), 120_000)
})
