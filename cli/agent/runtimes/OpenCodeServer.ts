import * as Command from "@effect/platform/Command"
import * as CommandExecutor from "@effect/platform/CommandExecutor"
import { Deferred, Duration, Effect, ExecutionStrategy, Exit, Option, Scope, Stream, SynchronizedRef } from "effect"
import { randomBytes } from "node:crypto"
import * as http from "node:http"
import * as net from "node:net"
import { RuntimeFailed, stopRuntime } from "./Runtime.js"

/**
 * One long-lived `opencode serve` per CLI process (RUNTIMES.md §4.3), shared by every OpenCode
 * batch: on 127.0.0.1, a port the server picks, HTTP basic auth with a password made here. It
 * starts with the first batch that needs it and again after it died; a batch running on a
 * server that dies fails (retryable) through `died`.
 */

const START_TIMEOUT = Duration.seconds(60)
/** OpenCode's basic-auth user name when OPENCODE_SERVER_USERNAME is not set. */
const USERNAME = "opencode"
/** How much of the server's stderr is kept for a failure report. */
const STDERR_KEPT = 16 * 1024

export interface RunningServer {
  readonly baseUrl: string
  /** The `Authorization` header every request needs. */
  readonly authorization: string
  readonly pid: number
  /** Fails once the server process has exited. */
  readonly died: Effect.Effect<never, RuntimeFailed>
  readonly isAlive: Effect.Effect<boolean>
}

export interface OpenCodeServers {
  /** The running server, started (or restarted) first when there is none. */
  readonly acquire: (mcp: { readonly url: string; readonly apiKey: string }) => Effect.Effect<RunningServer, RuntimeFailed>
  /** Stops `server` if it is still the current one, so that the next batch starts a new one. */
  readonly discard: (server: RunningServer) => Effect.Effect<void>
}

/**
 * What OpenCode asks before it acts: left to itself it runs every command and edit unasked, so
 * `--approve` would mean nothing. Commands, edits, fetches and paths outside the checkout ask,
 * whatever the user's opencode.json says (this config is merged over it), and the agent's approval
 * policy answers or a person does. Reads, searches and listings stay free, as in the other runtimes.
 */
const ASKED_PERMISSIONS = { bash: "ask", edit: "ask", webfetch: "ask", websearch: "ask", external_directory: "ask" } as const

/** The MCP server every session gets (this backend, with the profile's key), and what it asks about. */
const serverConfig = (mcp: { readonly url: string; readonly apiKey: string }) =>
  JSON.stringify({
    mcp: { trellis: { type: "remote", url: mcp.url, headers: { Authorization: `Bearer ${mcp.apiKey}` } } },
    permission: ASKED_PERMISSIONS
  })

/**
 * A port free on 127.0.0.1 now. Asked for port 0, `opencode serve` takes 4096 whenever it can,
 * beside a server of ours still stopping there, and then was seen never to deliver events.
 */
const freePort = Effect.async<number, RuntimeFailed>((resume) => {
  const probe = net.createServer()
  probe.once(
    "error",
    (error) => resume(Effect.fail(new RuntimeFailed({ message: `No free port for opencode serve: ${error.message}`, stderr: "" })))
  )
  probe.listen(0, "127.0.0.1", () => {
    const address = probe.address()
    const port = typeof address === "object" && address !== null ? address.port : 0
    probe.close(() => resume(Effect.succeed(port)))
  })
})

const start = (parent: Scope.Scope, executor: CommandExecutor.CommandExecutor, mcp: { readonly url: string; readonly apiKey: string }) =>
  Effect.gen(function*() {
    const scope = yield* Scope.fork(parent, ExecutionStrategy.sequential)
    const password = randomBytes(24).toString("base64url")
    const started = Effect.gen(function*() {
      const port = yield* freePort
      const process = yield* Command.start(
        Command.make("opencode", "serve", "--hostname", "127.0.0.1", "--port", String(port)).pipe(
          Command.env({
            OPENCODE_SERVER_PASSWORD: password,
            OPENCODE_SERVER_USERNAME: USERNAME,
            OPENCODE_ENABLE_QUESTION_TOOL: "1",
            OPENCODE_CONFIG_CONTENT: serverConfig(mcp)
          })
        )
      ).pipe(
        Effect.mapError((error) => new RuntimeFailed({ message: `Cannot start opencode serve: ${error.message}`, stderr: "" })),
        Effect.provideService(CommandExecutor.CommandExecutor, executor)
      )
      // Runs before the platform's own release, which would wait for the exit without limit.
      yield* Effect.addFinalizer(() => stopRuntime(process))
      const listening = yield* Deferred.make<string>()
      // Both outputs are read for as long as the server runs: a full pipe would stall it.
      yield* process.stdout.pipe(
        Stream.decodeText(),
        Stream.splitLines,
        Stream.runForEach((line) => {
          const url = /https?:\/\/127\.0\.0\.1:\d+/.exec(line)?.[0]
          return line.includes("listening") && url !== undefined ? Deferred.succeed(listening, url) : Effect.void
        }),
        Effect.ignore,
        Effect.forkDaemon
      )
      let stderr = ""
      yield* process.stderr.pipe(
        Stream.decodeText(),
        Stream.runForEach((piece) =>
          Effect.sync(() => {
            stderr = (stderr + piece).slice(-STDERR_KEPT)
          })
        ),
        Effect.ignore,
        Effect.forkDaemon
      )
      const exited = yield* Deferred.make<never, RuntimeFailed>()
      yield* process.exitCode.pipe(
        Effect.orElseSucceed(() => -1),
        Effect.flatMap((code) =>
          Deferred.fail(
            exited,
            new RuntimeFailed({ message: `opencode serve exited with code ${code} mid-run; the run can be retried`, stderr })
          )
        ),
        Effect.forkDaemon
      )
      const baseUrl = yield* Deferred.await(listening).pipe(
        Effect.raceFirst(Deferred.await(exited)),
        Effect.interruptible,
        Effect.timeoutFail({
          duration: START_TIMEOUT,
          onTimeout: () => new RuntimeFailed({ message: "opencode serve did not start", stderr })
        })
      )
      const authorization = `Basic ${Buffer.from(`${USERNAME}:${password}`).toString("base64")}`
      const server: RunningServer = {
        baseUrl,
        authorization,
        pid: process.pid,
        died: Deferred.await(exited),
        // Its exit not reported yet is not enough: a SIGKILLed server's exit can come late (see
        // `retire`), and a batch handed a dead server would fail although a new one could run it.
        isAlive: Effect.flatMap(
          Deferred.isDone(exited),
          (done) => (done ? Effect.succeed(false) : Effect.map(refuses(baseUrl, authorization), (gone) => !gone))
        )
      }
      return { server, scope }
    }).pipe(Scope.extend(scope))
    return yield* started.pipe(Effect.tapError(() => Scope.close(scope, Exit.void)))
  })

/**
 * Whether the server is gone though its exit was not reported: its port refuses connections, or
 * the request's connection is lost without an answer (a SIGKILLed server still accepts connections
 * while it is torn down, and resets them once it is gone). A slow answer (a busy server) is no sign
 * of death, and an answer of any status is life. The request goes over a connection of its own: a
 * kept-alive connection that the server dropped while idle is lost without an answer too (fetch sends
 * the request again on a new one only sometimes), and a live server taken for dead is started twice.
 */
export const refuses = (baseUrl: string, authorization: string): Effect.Effect<boolean> =>
  Effect.async<boolean>((resume) => {
    let settled = false
    const settle = (gone: boolean) => {
      if (settled) return
      settled = true
      resume(Effect.succeed(gone))
    }
    const request = http.get(`${baseUrl}/session/status`, { headers: { authorization }, agent: false, timeout: 2000 }, (response) => {
      response.resume()
      settle(false)
    })
    request.once("timeout", () => {
      settle(false)
      request.destroy()
    })
    request.once("error", () => settle(true))
    return Effect.sync(() => {
      settled = true
      request.destroy()
    })
  })

/**
 * Stops a server in the background: a SIGKILLed `opencode serve` can stop answering long before
 * its exit is reported (seen on the pinned binary), and the platform waits for that exit without
 * limit, so waiting here would hold up every batch behind the next server's start.
 */
const retire = (scope: Scope.CloseableScope) => Effect.asVoid(Effect.forkDaemon(Scope.close(scope, Exit.void)))

/** The CLI process's OpenCode server, stopped when the scope (the `start` command) ends. */
export const makeOpenCodeServers = Effect.gen(function*() {
  const parent = yield* Scope.Scope
  const executor = yield* CommandExecutor.CommandExecutor
  const current = yield* SynchronizedRef.make<Option.Option<{ readonly server: RunningServer; readonly scope: Scope.CloseableScope }>>(
    Option.none()
  )
  const servers: OpenCodeServers = {
    acquire: (mcp) =>
      SynchronizedRef.modifyEffect(current, (running) =>
        Effect.gen(function*() {
          if (Option.isSome(running)) {
            if (yield* running.value.server.isAlive) return [running.value.server, running] as const
            yield* retire(running.value.scope)
          }
          const next = yield* start(parent, executor, mcp)
          yield* Effect.logInfo(`opencode serve started on ${next.server.baseUrl} (pid ${next.server.pid})`)
          return [next.server, Option.some(next)] as const
        })),
    discard: (server) =>
      SynchronizedRef.updateEffect(current, (running) =>
        Option.isSome(running) && running.value.server === server
          ? Effect.as(retire(running.value.scope), Option.none())
          : Effect.succeed(running))
  }
  return servers
})
