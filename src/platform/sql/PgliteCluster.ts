/**
 * Creates an embedded database's cluster (PostgreSQL's initdb) in a short-lived child process.
 *
 * PGlite runs initdb in the opening process on a second PGlite and an initdb WebAssembly instance;
 * WebAssembly memory only grows and V8 does not give it back, so a server that created its cluster
 * kept ~900 MB resident for its whole life (then ~450 MB when started again on the same data).
 * Created in a child, those pages go back to the system when it exits; the server then opens
 * the cluster as on any later start (npm run bench:memory). What it costs: the first start opens
 * PGlite twice, about 2 s more.
 */
import { Effect } from "effect"
import { execFile } from "node:child_process"
import * as fs from "node:fs"
import { createRequire } from "node:module"
import * as path from "node:path"
import { SqlError } from "@effect/sql/SqlError"

// CommonJS, so that the child needs no module loader of its own (`node -e` is a script).
const pgliteEntry = (): string => createRequire(import.meta.url).resolve("@electric-sql/pglite")

const CHILD_SCRIPT = `const { PGlite } = require(process.argv[1])
PGlite.create({ dataDir: process.argv[2], startParams: JSON.parse(process.argv[3]) })
  .then((pg) => pg.close())
  .catch((error) => { process.stderr.write(String(error && error.stack || error)); process.exit(1) })`

/** True once initdb has run in `dataDir` (PostgreSQL writes PG_VERSION among its first files). */
export const exists = (dataDir: string): boolean => fs.existsSync(path.join(dataDir, "PG_VERSION"))

/**
 * Runs initdb for `dataDir` in a child process unless its cluster exists; `startParams` are the
 * ones the server will open it with.
 */
export const create = Effect.fn("PgliteCluster.create")(function*(dataDir: string, startParams: ReadonlyArray<string>) {
  if (exists(dataDir)) return
  yield* Effect.async<void, SqlError>((resume) => {
    const child = execFile(
      process.execPath,
      ["-e", CHILD_SCRIPT, pgliteEntry(), dataDir, JSON.stringify(startParams)],
      { maxBuffer: 16 * 1024 * 1024 },
      (error, _stdout, stderr) =>
        resume(
          error === null
            ? Effect.void
            : Effect.fail(new SqlError({ cause: error, message: `PgliteCluster: initdb in ${dataDir} failed: ${stderr || error.message}` }))
        )
    )
    return Effect.sync(() => child.kill())
  })
})
