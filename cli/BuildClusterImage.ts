/**
 * `npm run build`'s last step: a migrated embedded database (without initdb's template databases) where the compiled server looks for
 * one to start a new data directory from (src/platform/sql/ClusterImage.ts).
 */
import * as Reactivity from "@effect/experimental/Reactivity"
import { NodeRuntime } from "@effect/platform-node"
import * as SqlClient from "@effect/sql/SqlClient"
import { Console, Effect } from "effect"
import * as fs from "node:fs"
import { IMAGE_DIR, listDirectories } from "../src/platform/sql/ClusterImage.js"
import { runMigrations } from "../src/platform/sql/Migrations.js"
import { dropTemplateDatabases } from "../src/platform/sql/TemplateDatabases.js"
import * as PgliteClient from "../src/platform/sql/PgliteClient.js"

const build = Effect.gen(function*() {
  yield* Effect.sync(() => fs.rmSync(IMAGE_DIR, { recursive: true, force: true }))
  yield* Effect.scoped(Effect.flatMap(
    PgliteClient.make({ dataDir: IMAGE_DIR }),
    (client) => Effect.zipRight(runMigrations, dropTemplateDatabases).pipe(Effect.provideService(SqlClient.SqlClient, client))
  ))
  yield* Effect.sync(() => listDirectories(IMAGE_DIR))
  yield* Console.log(`the embedded database's first cluster: ${IMAGE_DIR}`)
}).pipe(Effect.provide(Reactivity.layer))

NodeRuntime.runMain(build)
