import { Layer } from "effect"
import { Memberships } from "../../src/orgs/Memberships.js"
import { Organizations } from "../../src/orgs/Organizations.js"
import { Users } from "../../src/orgs/Users.js"
import { ApiKeys } from "../../src/platform/auth/ApiKeys.js"
import { MigrationsLive } from "../../src/platform/sql/Migrations.js"
import { TrellisConfig, type TrellisConfigShape } from "../../src/platform/TrellisConfig.js"
import { Projects } from "../../src/projects/Projects.js"
import { TestDatabase } from "./TestDatabase.js"

/** What `Seed.ts` needs to make organizations, users, projects and keys. */
const Seeding = Layer.mergeAll(ApiKeys.Default, Organizations.Default, Users.Default, Projects.Default, Memberships.Default)

/**
 * The services under test (each `.Default` brings its own dependencies) and what seeding needs, on
 * the file's own migrated database: no HTTP server, no tool runner, no sweeper, no other feature.
 * A test of what a client sees over MCP uses `TestServer.ts` instead.
 */
export const ServiceTest = <ROut, E, RIn>(
  services: Layer.Layer<ROut, E, RIn>,
  config: Partial<TrellisConfigShape> = {}
) =>
  Layer.mergeAll(services, Seeding).pipe(
    Layer.provideMerge(TrellisConfig.layer(config)),
    Layer.provide(MigrationsLive),
    Layer.provideMerge(TestDatabase)
  )
