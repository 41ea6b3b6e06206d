import { Command, Options } from "@effect/cli"
import { SqlClient } from "@effect/sql"
import { Console, Effect, Layer, Option, Schema } from "effect"
import { ApiKeys } from "../src/platform/auth/ApiKeys.js"
import { renormalize } from "../src/threads/Renormalize.js"
import * as Database from "../src/platform/sql/Database.js"
import { ApiKeyId, ProjectId } from "../catalog/domain/Ids.js"
import { DisplayName, Email, OrganizationSlug, ProjectRef } from "../catalog/domain/Identity.js"
import { OrganizationRole, ProjectRole } from "../catalog/domain/Roles.js"
import * as Trellis from "../src/server/Trellis.js"
import { Memberships } from "../src/orgs/Memberships.js"
import { Organizations } from "../src/orgs/Organizations.js"
import { Projects } from "../src/projects/Projects.js"
import { Users } from "../src/orgs/Users.js"
import { databaseOptions } from "./Environment.js"
import { signinLink } from "./SignInLink.js"

const json = Options.boolean("json").pipe(Options.withDescription("Print machine-readable JSON"))

type Printable = { readonly json: unknown; readonly text: string }

/** Runs an admin action on the database, printing its result, or its error with exit code 1. */
const run = <E extends { readonly message: string }, R>(
  asJson: boolean,
  action: Effect.Effect<Printable, E, R>
) =>
  Effect.gen(function*() {
    const layer = Trellis.adminServices().pipe(Layer.provideMerge(Database.layer(yield* databaseOptions("trellis admin"))))
    yield* action.pipe(
      Effect.provide(layer),
      Effect.matchEffect({
        onSuccess: (out) => Console.log(asJson ? JSON.stringify(out.json, null, 2) : out.text),
        onFailure: (error) =>
          Effect.zipRight(
            asJson ? Console.error(JSON.stringify({ error: { message: error.message } })) : Console.error(`error: ${error.message}`),
            Effect.sync(() => {
              process.exitCode = 1
            })
          )
      })
    )
  })

const organizationOption = Options.text("org").pipe(Options.withDescription("Organization slug or ID"))

const orgCreate = Command.make("create", {
  json,
  slug: Options.text("slug").pipe(Options.withSchema(OrganizationSlug)),
  name: Options.text("name").pipe(Options.withSchema(DisplayName("name", 120)))
}, (args) =>
  run(
    args.json,
    Effect.gen(function*() {
      const org = yield* (yield* Organizations).create({ slug: args.slug, name: args.name })
      return {
        json: { organizationId: org.id, slug: org.slug, name: org.name },
        text: `Created organization ${org.slug} (${org.id})`
      }
    })
  ))

const userCreate = Command.make("create", {
  json,
  name: Options.text("name").pipe(Options.withSchema(DisplayName("name", 120))),
  email: Options.text("email").pipe(Options.withSchema(Email)),
  org: organizationOption.pipe(Options.optional, Options.withDescription("Also make the user a member of this organization")),
  role: Options.choice("role", OrganizationRole.literals).pipe(Options.withDefault("member"))
}, (args) =>
  run(
    args.json,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const user = yield* sql.withTransaction(Effect.gen(function*() {
        const user = yield* (yield* Users).create({ name: args.name, email: args.email })
        if (Option.isSome(args.org)) {
          const org = yield* (yield* Organizations).find(args.org.value)
          yield* (yield* Memberships).addToOrganization(org.id, user.id, args.role)
        }
        return user
      })).pipe(Effect.catchTag("SqlError", Effect.die))
      return { json: { userId: user.id, name: user.name, email: user.email }, text: `Created user ${user.email} (${user.id})` }
    })
  ))

const projectCreate = Command.make("create", {
  json,
  org: organizationOption,
  name: Options.text("name").pipe(Options.withSchema(DisplayName("name", 120))),
  ref: Options.text("ref").pipe(Options.withSchema(ProjectRef))
}, (args) =>
  run(
    args.json,
    Effect.gen(function*() {
      const org = yield* (yield* Organizations).find(args.org)
      const project = yield* (yield* Projects).create({ organizationId: org.id, name: args.name, ref: args.ref })
      return {
        json: { projectId: project.id, name: project.name, ref: project.ref, organization: org.slug },
        text: `Created project ${project.ref} (${project.id}) in ${org.slug}`
      }
    })
  ))

const memberAdd = Command.make("add", {
  json,
  user: Options.text("user").pipe(Options.withDescription("User ID or email")),
  org: organizationOption.pipe(Options.optional),
  project: Options.text("project").pipe(Options.withSchema(ProjectId), Options.optional),
  role: Options.text("role").pipe(Options.withDescription("Organization: owner|admin|member; project: admin|member|viewer"))
}, (args) =>
  run(
    args.json,
    Effect.gen(function*() {
      const user = yield* (yield* Users).find(args.user)
      const memberships = yield* Memberships
      if (Option.isSome(args.project) === Option.isSome(args.org)) {
        return yield* Effect.fail({ message: "pass exactly one of --org or --project" })
      }
      if (Option.isSome(args.project)) {
        const role = yield* Schema.decodeUnknown(ProjectRole)(args.role).pipe(
          Effect.mapError(() => ({ message: `role: a project role is one of ${ProjectRole.literals.join(", ")}` }))
        )
        const project = yield* (yield* Projects).get(args.project.value)
        yield* memberships.addToProject(project.id, user.id, role)
        return { json: { userId: user.id, projectId: project.id, role }, text: `${user.email} is ${role} of project ${project.ref}` }
      }
      const role = yield* Schema.decodeUnknown(OrganizationRole)(args.role).pipe(
        Effect.mapError(() => ({ message: `role: an organization role is one of ${OrganizationRole.literals.join(", ")}` }))
      )
      const org = yield* (yield* Organizations).find(Option.getOrThrow(args.org))
      yield* memberships.addToOrganization(org.id, user.id, role)
      return { json: { userId: user.id, organizationId: org.id, role }, text: `${user.email} is ${role} of organization ${org.slug}` }
    })
  ))

const firstUser = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const rows = yield* sql<{ id: string }>`SELECT id FROM users ORDER BY created_at, id LIMIT 1`.pipe(Effect.orDie)
  if (rows[0] === undefined) {
    return yield* Effect.fail({ message: "there are no users yet: run `trellis serve` once, or `trellis admin user create`" })
  }
  return rows[0].id
})

const keyCreate = Command.make("create", {
  json,
  user: Options.text("user").pipe(
    Options.withDescription("User ID or email; default: the first user (the bootstrap owner)"),
    Options.optional
  ),
  name: Options.text("name").pipe(Options.withDefault("cli")),
  projects: Options.text("projects").pipe(
    Options.withDescription("Comma-separated project IDs the key is narrowed to; default: all the user's projects"),
    Options.optional
  ),
  readOnly: Options.boolean("read-only").pipe(
    Options.withDescription("The key sees and calls only read-only tools, and changes nothing through any route")
  )
}, (args) =>
  run(
    args.json,
    Effect.gen(function*() {
      const user = yield* (yield* Users).find(Option.isSome(args.user) ? args.user.value : yield* firstUser)
      const projects = yield* Projects
      const projectIds = yield* Option.match(args.projects, {
        onNone: () => Effect.succeed(null),
        onSome: (list) =>
          Effect.forEach(list.split(",").map((id) => id.trim()).filter((id) => id !== ""), (id) =>
            Schema.decodeUnknown(ProjectId)(id).pipe(
              Effect.mapError(() => ({ message: `projects: ${id} is not a project ID (proj_…)` })),
              Effect.flatMap((projectId) => projects.get(projectId)),
              Effect.map((project) => project.id)
            ))
      })
      if (projectIds !== null && projectIds.length === 0) {
        return yield* Effect.fail({ message: "projects: name at least one project ID, or omit --projects" })
      }
      const { record, secret } = yield* (yield* ApiKeys).create({ userId: user.id, name: args.name, projectIds, readOnly: args.readOnly })
      return {
        json: {
          apiKeyId: record.id,
          apiKey: secret,
          userId: user.id,
          name: record.name,
          projectIds: record.projectIds,
          readOnly: record.readOnly
        },
        text: `Created ${
          record.readOnly ? "read-only " : ""
        }API key ${record.id} for ${user.email}. It is shown once; store it now:\n${secret}`
      }
    })
  ))

const keyRevoke = Command.make("revoke", {
  json,
  id: Options.text("id").pipe(Options.withSchema(ApiKeyId), Options.withDescription("The key's ID (key_…)"))
}, (args) =>
  run(
    args.json,
    Effect.gen(function*() {
      yield* (yield* ApiKeys).revoke(args.id)
      return { json: { apiKeyId: args.id, revoked: true }, text: `Revoked API key ${args.id}` }
    })
  ))

const keyList = Command.make("list", {
  json,
  user: Options.text("user").pipe(Options.withDescription("Only this user's keys (ID or email)"), Options.optional)
}, (args) =>
  run(
    args.json,
    Effect.gen(function*() {
      const userId = Option.isSome(args.user) ? (yield* (yield* Users).find(args.user.value)).id : null
      const keys = yield* (yield* ApiKeys).list(userId)
      const rows = keys.map((key) => ({
        apiKeyId: key.id,
        name: key.name,
        prefix: key.prefix,
        userId: key.userId,
        projectIds: key.projectIds,
        readOnly: key.readOnly,
        createdAt: key.createdAt.toISOString(),
        lastUsedAt: key.lastUsedAt?.toISOString() ?? null,
        revokedAt: key.revokedAt?.toISOString() ?? null
      }))
      const text = rows.map((key) =>
        `${key.apiKeyId}  ${key.prefix}…  ${key.name}  ${key.revokedAt === null ? "active" : "revoked"}  ` +
        `projects: ${key.projectIds === null ? "all" : key.projectIds.join(",")}${key.readOnly ? "  read-only" : ""}  last used: ${
          key.lastUsedAt ?? "never"
        }`
      ).join("\n")
      return { json: { keys: rows }, text: text === "" ? "No API keys." : text }
    })
  ))

const eventsRenormalize = Command.make("renormalize", {
  json,
  thread: Options.text("thread").pipe(Options.withDescription("Only this thread's chunks"), Options.optional),
  batchSize: Options.integer("batch-size").pipe(
    Options.withSchema(Schema.Int.pipe(Schema.between(1, 10_000))),
    Options.withDefault(1000),
    Options.withDescription("Chunks per transaction")
  )
}, (args) =>
  run(
    args.json,
    Effect.gen(function*() {
      const result = yield* renormalize({
        threadId: Option.getOrUndefined(args.thread),
        batchSize: args.batchSize,
        onProgress: ({ changed, done, total }) =>
          args.json ? Effect.void : Console.error(`renormalized ${done}/${total} chunks (${changed} changed)`)
      }).pipe(Effect.catchTag("SqlError", Effect.die), Effect.catchTag("ParseError", Effect.die))
      return {
        json: result,
        text: `Renormalized ${result.done} chunks; ${result.changed} had a different event and were updated`
      }
    })
  )).pipe(Command.withDescription("Recompute stored normalized events from raw chunks after a normalizer upgrade"))

export const admin = Command.make("admin").pipe(
  Command.withDescription("Manage organizations, users, projects, memberships and API keys; print a sign-in link"),
  Command.withSubcommands([
    Command.make("org").pipe(Command.withSubcommands([orgCreate])),
    Command.make("user").pipe(Command.withSubcommands([userCreate])),
    Command.make("project").pipe(Command.withSubcommands([projectCreate])),
    Command.make("member").pipe(Command.withSubcommands([memberAdd])),
    Command.make("key").pipe(Command.withSubcommands([keyCreate, keyRevoke, keyList])),
    Command.make("events").pipe(Command.withSubcommands([eventsRenormalize])),
    signinLink
  ])
)
