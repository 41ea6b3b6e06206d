import { Command, Options } from "@effect/cli"
import { Config, type ConfigError, Console, Duration, Effect, Layer, Option } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import * as Database from "../src/platform/sql/Database.js"
import { MCP_PATH } from "../src/server/McpRoute.js"
import { serveNode } from "../src/server/NodeServer.js"
import * as Trellis from "../src/server/Trellis.js"
import { bootstrap } from "../src/orgs/Bootstrap.js"
import { ApiKeys } from "../src/platform/auth/ApiKeys.js"
import { LINK_TTL, WebSessions } from "../src/platform/auth/WebSessions.js"
import { type BridgeTimings, bridgeRateLimitConfig, defaults, isLoopbackHost, rateLimitConfig } from "../src/platform/TrellisConfig.js"
import { stopWithLauncher } from "./agent/StopWithLauncher.js"
import { credentialsPath, databaseOptions } from "./Environment.js"
import { storedCredentials } from "./SignInLink.js"

const host = Options.text("host").pipe(
  Options.withDescription("Address to bind (TRELLIS_HOST)"),
  Options.withFallbackConfig(Config.string("TRELLIS_HOST")),
  Options.withDefault("127.0.0.1")
)

const port = Options.integer("port").pipe(
  Options.withDescription("Port to listen on; 0 picks a free one (TRELLIS_PORT)"),
  Options.withFallbackConfig(Config.integer("TRELLIS_PORT")),
  Options.withDefault(7420)
)

const allowedOrigins = Config.array(Config.string(), "TRELLIS_ALLOWED_ORIGINS").pipe(Config.withDefault([]))

const millis = (name: string, fallback: number) =>
  Config.integer(name).pipe(
    Config.validate({ message: "must be a positive number of milliseconds", validation: (ms) => ms > 0 }),
    Config.withDefault(fallback)
  )

/**
 * The CLI bridge timings; SPEC's defaults unless overridden (tests shorten them):
 * `TRELLIS_HEARTBEAT_INTERVAL_MS`, `TRELLIS_SESSION_TTL_MS`, `TRELLIS_CLAIM_LEASE_MS`, `TRELLIS_SWEEP_INTERVAL_MS`.
 * A shortened session TTL shortens the default heartbeat interval with it (a third of the TTL).
 */
const bridgeTimings: Effect.Effect<BridgeTimings, ConfigError.ConfigError> = Effect.gen(function*() {
  const sessionTtlMs = yield* millis("TRELLIS_SESSION_TTL_MS", defaults.bridge.sessionTtlMs)
  return {
    sessionTtlMs,
    heartbeatIntervalMs: yield* millis(
      "TRELLIS_HEARTBEAT_INTERVAL_MS",
      Math.max(1, Math.min(defaults.bridge.heartbeatIntervalMs, Math.floor(sessionTtlMs / 3)))
    ),
    claimLeaseMs: yield* millis("TRELLIS_CLAIM_LEASE_MS", defaults.bridge.claimLeaseMs),
    sweepIntervalMs: yield* millis("TRELLIS_SWEEP_INTERVAL_MS", defaults.bridge.sweepIntervalMs)
  }
})

// With DATABASE_URL nothing else creates the home directory, so the credentials file must.
const writeCredentials = (file: string, credentials: object) =>
  Effect.sync(() => {
    fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 })
    fs.writeFileSync(file, JSON.stringify(credentials, null, 2) + "\n", { mode: 0o600 })
  })

/**
 * A one-time sign-in link for the owner of the local credentials: none when there is no such file
 * or its key was revoked. Only the link's token is new; the key itself is never printed again.
 */
const signInLink = (baseUrl: string, apiKey: Option.Option<string>) =>
  Effect.gen(function*() {
    const apiKeys = yield* ApiKeys
    const sessions = yield* WebSessions
    if (Option.isNone(apiKey)) return Option.none<string>()
    const principal = yield* Effect.option(apiKeys.authenticate(apiKey.value))
    if (Option.isNone(principal)) return Option.none<string>()
    const token = yield* sessions.issueLink(principal.value.apiKeyId)
    return Option.some(`${baseUrl}/signin?token=${encodeURIComponent(token)}`)
  })

const fail = (error: { readonly message: string }) =>
  Console.error(`error: ${error.message}`).pipe(
    Effect.zipRight(Effect.sync(() => {
      process.exitCode = 1
    }))
  )

export const serve = Command.make("serve", { host, port }, (options) =>
  Effect.gen(function*() {
    const database = yield* databaseOptions("trellis serve")
    const rateLimit = yield* rateLimitConfig
    const bridgeRateLimit = yield* bridgeRateLimitConfig
    const requestTimeoutMs = yield* millis("TRELLIS_REQUEST_TIMEOUT_MS", defaults.requestTimeoutMs)
    const bridge = yield* bridgeTimings
    const origins = yield* allowedOrigins
    const loopbackOnly = isLoopbackHost(options.host)
    const explicitPublicUrl = yield* Config.option(Config.string("TRELLIS_PUBLIC_URL"))
    const urlFor = (port: number) =>
      Option.getOrElse(explicitPublicUrl, () => `http://${options.host.includes(":") ? `[${options.host}]` : options.host}:${port}`)
    const publicUrl = urlFor(options.port)

    const appUrl = yield* Config.option(Config.string("TRELLIS_APP_URL"))
    const services = Trellis.services({
      publicUrl,
      loopbackOnly,
      allowedOrigins: origins,
      rateLimit,
      bridgeRateLimit,
      requestTimeoutMs,
      appUrl,
      bridge
    })
    const app = services.pipe(Layer.provideMerge(Database.layer(database)))

    yield* Effect.gen(function*() {
      yield* stopWithLauncher
      const address = yield* serveNode(Trellis.routes, { host: options.host, port: options.port })
      const mcpUrl = `${urlFor(address.port)}${MCP_PATH}`
      const file = credentialsPath(database.home)
      const created = yield* bootstrap
      // Written before anything is printed, so whoever reads the banner finds the file complete.
      if (Option.isSome(created)) {
        const { apiKey, organization, project, user } = created.value
        yield* writeCredentials(file, {
          url: mcpUrl,
          apiKey,
          organization: organization.slug,
          userId: user.id,
          projectId: project.id,
          projectRef: project.ref
        })
      }

      const baseUrl = urlFor(address.port)
      const link = yield* signInLink(
        baseUrl,
        Option.isSome(created) ? Option.some(created.value.apiKey) : Option.map(yield* storedCredentials(file), (stored) => stored.apiKey)
      )

      yield* Console.log(`Trellis is running.`)
      yield* Console.log(`  MCP endpoint: ${mcpUrl}`)
      yield* Console.log(`  Web app:      ${baseUrl}/`)
      if (Option.isSome(link)) {
        yield* Console.log(`  Sign in:      ${link.value} (one use, ${Duration.toMinutes(LINK_TTL)} minutes)`)
      }
      yield* Console.log(`  Database:     ${Database.describe(database)}`)
      if (Option.isSome(created)) {
        const { apiKey, project, user } = created.value
        yield* Console.log(`  Credentials:  ${file} (new: an API key for ${user.email} in project ${project.ref})`)
        yield* Console.log(``)
        yield* Console.log(`Connect Claude Code:`)
        yield* Console.log(`  claude mcp add --transport http trellis ${mcpUrl} --header "Authorization: Bearer ${apiKey}"`)
      } else {
        yield* Console.log(`  Credentials:  ${fs.existsSync(file) ? file : "(none here; create a key with: trellis admin key create)"}`)
      }
      return yield* Effect.never
    }).pipe(
      Effect.scoped,
      Effect.provide(app),
      Effect.catchTags({
        DatabaseLocked: fail,
        ListenError: fail,
        SqlError: (error) => fail({ message: `cannot reach the database: ${error.message}` })
      })
    )
  })).pipe(Command.withDescription("Run the Trellis server (MCP endpoint at /api/mcp, web app at /)"))
