import { NodeFileSystem } from "@effect/platform-node"
import { Effect, Exit, Scope } from "effect"
import type { TestProject } from "vitest/node"
import { databaseSnapshot } from "./DatabaseSnapshot.js"

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
      Effect.provide(NodeFileSystem.layer)
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
