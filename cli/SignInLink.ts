import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import { Console, Duration, Effect, Option, Schema } from "effect"
import * as fs from "node:fs"
import { LINK_TTL } from "../src/platform/auth/WebSessions.js"
import { SIGN_IN_LINK_PATH } from "../src/platform/http/WebSessionRoutes.js"
import { credentialsPath, home } from "./Environment.js"

const StoredCredentials = Schema.parseJson(Schema.Struct({ url: Schema.String, apiKey: Schema.String }))

/** The local credentials file (written at the first `trellis serve`), if it is there and readable. */
export const storedCredentials = (file: string) =>
  Effect.try(() => fs.readFileSync(file, "utf8")).pipe(
    Effect.flatMap(Schema.decodeUnknown(StoredCredentials)),
    Effect.option
  )

const Answer = Schema.Struct({ path: Schema.String })
const Refusal = Schema.Struct({ message: Schema.String })

class LinkFailed extends Schema.TaggedError<LinkFailed>()("LinkFailed", { message: Schema.String }) {}

/**
 * Asks the running server for a fresh one-time link for the credentials' key. It goes through the
 * server, not the database: the embedded database is held by `trellis serve`'s process while it
 * runs (src/platform/sql/DataDirLock.ts), and a server on PostgreSQL is asked the same way.
 */
const askServer = (server: string, apiKey: string, next: Option.Option<string>) =>
  Effect.gen(function*() {
    const client = yield* HttpClient.HttpClient
    const request = HttpClientRequest.post(new URL(SIGN_IN_LINK_PATH, server).toString()).pipe(
      HttpClientRequest.bearerToken(apiKey),
      HttpClientRequest.bodyUnsafeJson(Option.match(next, { onNone: () => ({}), onSome: (path) => ({ next: path }) }))
    )
    const response = yield* client.execute(request).pipe(
      Effect.mapError(() =>
        new LinkFailed({ message: `cannot reach the server at ${server}: is \`trellis serve\` running? (--server names another)` })
      )
    )
    const body = yield* response.json.pipe(Effect.orElseSucceed(() => undefined))
    if (response.status !== 200) {
      const refusal = Schema.decodeUnknownOption(Refusal)(body)
      return yield* new LinkFailed({
        message: `the server refused (HTTP ${response.status}): ${
          Option.match(refusal, { onNone: () => "no reason given", onSome: (r) => r.message })
        }`
      })
    }
    const answer = yield* Schema.decodeUnknown(Answer)(body).pipe(
      Effect.mapError(() =>
        new LinkFailed({ message: `the server at ${server} did not answer with a link: is it a Trellis server of this version?` })
      )
    )
    return new URL(answer.path, server).toString()
  }).pipe(Effect.scoped, Effect.provide(FetchHttpClient.layer))

export const signinLink = Command.make("signin-link", {
  json: Options.boolean("json").pipe(Options.withDescription("Print machine-readable JSON")),
  server: Options.text("server").pipe(
    Options.withDescription("The running server's URL; default: the one in the credentials file"),
    Options.optional
  ),
  next: Options.text("next").pipe(
    Options.withDescription("The app's page to open once signed in, e.g. /projects/…/threads"),
    Options.optional
  )
}, (args) =>
  Effect.gen(function*() {
    const file = credentialsPath(yield* home)
    const credentials = yield* storedCredentials(file)
    const link = yield* Option.match(credentials, {
      onNone: () =>
        Effect.fail(new LinkFailed({ message: `no credentials at ${file}: run \`trellis serve\` once, or sign in with an API key` })),
      onSome: (stored) => askServer(Option.getOrElse(args.server, () => new URL(stored.url).origin), stored.apiKey, args.next)
    })
    const minutes = Duration.toMinutes(LINK_TTL)
    yield* Console.log(args.json ? JSON.stringify({ url: link, minutes }) : `Sign in: ${link} (one use, ${minutes} minutes)`)
  }).pipe(
    Effect.catchTag("LinkFailed", (error) =>
      Effect.zipRight(
        Console.error(`error: ${error.message}`),
        Effect.sync(() => {
          process.exitCode = 1
        })
      ))
  )).pipe(Command.withDescription("Print a fresh one-time sign-in link for the local credentials' key, from the running server"))
