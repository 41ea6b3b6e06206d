import { SqlClient } from "@effect/sql"
import { Effect, Option } from "effect"
import { ApiKeys } from "../platform/auth/ApiKeys.js"
import { Memberships } from "./Memberships.js"
import { Organizations } from "./Organizations.js"
import { Projects } from "../projects/Projects.js"
import { Users } from "./Users.js"

/**
 * On an empty database: one organization, its owner, the `Demo` project and an API key, in
 * one transaction. Returns none when the database already has an organization.
 */
export const bootstrap = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const organizations = yield* Organizations
  const users = yield* Users
  const projects = yield* Projects
  const memberships = yield* Memberships
  const apiKeys = yield* ApiKeys
  return yield* sql.withTransaction(Effect.gen(function*() {
    if (!(yield* organizations.isEmpty)) return Option.none()
    const organization = yield* organizations.create({ slug: "demo", name: "Demo" })
    const user = yield* users.create({ name: "Demo Owner", email: "owner@demo.localhost" })
    yield* memberships.addToOrganization(organization.id, user.id, "owner")
    const project = yield* projects.create({ organizationId: organization.id, name: "Demo", ref: "DEMO" })
    yield* memberships.addToProject(project.id, user.id, "admin")
    const key = yield* apiKeys.create({ userId: user.id, name: "bootstrap", projectIds: null })
    return Option.some({ organization, user, project, apiKey: key.secret })
  })).pipe(
    // Another instance bootstrapped the same database first.
    Effect.catchTag("Conflict", () => Effect.succeedNone),
    Effect.orDie
  )
})
