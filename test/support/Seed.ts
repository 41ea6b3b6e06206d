import { Effect } from "effect"
import type { ProjectId } from "../../catalog/domain/Ids.js"
import { ApiKeys } from "../../src/platform/auth/ApiKeys.js"
import type { Principal } from "../../src/platform/auth/Principal.js"
import { Memberships } from "../../src/orgs/Memberships.js"
import { Organizations } from "../../src/orgs/Organizations.js"
import { Projects } from "../../src/projects/Projects.js"
import { Users } from "../../src/orgs/Users.js"

/**
 * Who a test acts as: organizations, users, projects and API keys made through the services
 * (`ServiceTest.ts` provides them; so does `TestServer.ts`, with the whole backend).
 */

/** An API key for `userId` (every project, or those named), and the principal a request made with it has. */
export const createKey = (
  userId: Principal["userId"],
  projectIds: ReadonlyArray<ProjectId> | null,
  options: { readonly readOnly?: boolean } = {}
) =>
  Effect.gen(function*() {
    const apiKeys = yield* ApiKeys
    const { record, secret } = yield* apiKeys.create({ userId, name: "test", projectIds, readOnly: options.readOnly ?? false })
    const principal: Principal = { userId, apiKeyId: record.id, projectIds: record.projectIds, readOnly: record.readOnly }
    return { secret, record, principal }
  })

/** An organization with an owner, a project the owner administers, and an API key for them. */
export const seedOwner = (slug: string) =>
  Effect.gen(function*() {
    const organization = yield* (yield* Organizations).create({ slug, name: `Org ${slug}` })
    const user = yield* (yield* Users).create({ name: `Owner of ${slug}`, email: `owner@${slug}.test` })
    yield* (yield* Memberships).addToOrganization(organization.id, user.id, "owner")
    const project = yield* (yield* Projects).create({ organizationId: organization.id, name: "Main", ref: "MAIN" })
    const key = yield* createKey(user.id, null)
    return { organization, user, project, key: key.secret, principal: key.principal }
  })
