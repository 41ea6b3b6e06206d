import { NodeFileSystem } from "@effect/platform-node"
import { ConfigProvider, Effect, Exit, Scope } from "effect"
import type { TestProject } from "vitest/node"
import { databaseSnapshot } from "./DatabaseSnapshot.js"

/** The project's own environment (`DATABASE_URL` for the `*-postgres` projects), then the process's. */
const projectConfig = (project: TestProject) =>
  ConfigProvider.fromMap(
    new Map(Object.entries({ ...project.config.env }).flatMap(([name, value]) => typeof value === "string" ? [[name, value]] : []))
  ).pipe(ConfigProvider.orElse(() => ConfigProvider.fromEnv()))

/**
 * Vitest's globalSetup: migrates one database before any test file runs and tells the files
 * where it is (`inject` in `TestDatabase.ts`); the returned teardown removes it after the run.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const scope = Effect.runSync(Scope.make())
  const snapshot = await Effect.runPromise(
    Scope.extend(databaseSnapshot, scope).pipe(
      // Half made (a template created, its migration failed) is removed at once: no teardown follows a failed setup.
      Effect.onError((cause) => Scope.close(scope, Exit.failCause(cause))),
      Effect.provide(NodeFileSystem.layer),
      Effect.withConfigProvider(projectConfig(project))
    )
  )
  switch (snapshot._tag) {
    case "Pglite":
      project.provide("trellisPgliteSnapshot", snapshot.file)
      break
    case "Postgres":
      project.provide("trellisPostgresTemplate", snapshot.template)
      break
  }
  return () => Effect.runPromise(Scope.close(scope, Exit.void))
}
