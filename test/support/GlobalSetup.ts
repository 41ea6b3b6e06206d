import { NodeFileSystem } from "@effect/platform-node"
import { ConfigProvider, Effect, Exit, Scope } from "effect"
import type { TestProject } from "vitest/node"
import { type DatabaseSnapshot, databaseSnapshot } from "./DatabaseSnapshot.js"

/** One database's snapshot, the projects using it, and the scope that removes it after the last. */
interface SharedSnapshot {
  readonly snapshot: Promise<DatabaseSnapshot>
  readonly scope: Scope.CloseableScope
  users: number
}

declare global {
  /**
   * The run's snapshots by database (`""` for PGlite). Vitest sets the projects up one after
   * another before any file runs, each with its own copy of this module: what they share lives on
   * the process.
   */
  var trellisDatabaseSnapshots: Map<string, SharedSnapshot> | undefined
}

/** The project's own environment (`DATABASE_URL` for the `*-postgres` projects), then the process's. */
const projectEnv = (project: TestProject) =>
  new Map(Object.entries({ ...project.config.env }).flatMap(([name, value]) => typeof value === "string" ? [[name, value]] : []))

const makeSnapshot = (env: Map<string, string>, scope: Scope.CloseableScope) =>
  Effect.runPromise(
    Scope.extend(databaseSnapshot, scope).pipe(
      // Half made (a template created, its migration failed) is removed at once: no teardown follows a failed setup.
      Effect.onError((cause) => Scope.close(scope, Exit.failCause(cause))),
      Effect.provide(NodeFileSystem.layer),
      Effect.withConfigProvider(ConfigProvider.fromMap(env).pipe(ConfigProvider.orElse(() => ConfigProvider.fromEnv())))
    )
  )

/**
 * Vitest's globalSetup: migrates one database before any test file runs and tells the files
 * where it is (`inject` in `TestDatabase.ts`). The projects on the same database (service,
 * endpoint and browser on PGlite; service and endpoint on PostgreSQL) share one snapshot: a
 * migration is ~5 s of one core while nothing else runs. The last project's teardown removes it.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const env = projectEnv(project)
  const key = env.get("DATABASE_URL") ?? process.env["DATABASE_URL"] ?? ""
  const snapshots = (globalThis.trellisDatabaseSnapshots ??= new Map())
  let shared = snapshots.get(key)
  if (shared === undefined) {
    const scope = Effect.runSync(Scope.make())
    shared = { snapshot: makeSnapshot(env, scope), scope, users: 0 }
    snapshots.set(key, shared)
  }
  shared.users++
  const snapshot = await shared.snapshot.catch((error: unknown) => {
    snapshots.delete(key)
    throw error
  })
  switch (snapshot._tag) {
    case "Pglite":
      project.provide("trellisPgliteSnapshot", snapshot.file)
      break
    case "Postgres":
      project.provide("trellisPostgresTemplate", snapshot.template)
      break
  }
  const { scope } = shared
  return async () => {
    shared.users--
    if (shared.users > 0) return
    snapshots.delete(key)
    await Effect.runPromise(Scope.close(scope, Exit.void))
  }
}
