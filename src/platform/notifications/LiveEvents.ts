import { PgClient } from "@effect/sql-pg"
import { Chunk, Duration, Effect, Option, Schedule, Schema, Stream } from "effect"
import { makeKeyedHub, makeSignalHub, type SignalHub } from "./SignalHub.js"

/**
 * Change signals for live subscribers, carried by PostgreSQL `NOTIFY` so that every backend
 * instance on the database hears every other's writes. A signal says only *what* changed
 * (a thread, a profile's queue); subscribers re-read from their cursor, so a lost or merged
 * signal costs a query, never an event.
 */

const THREAD_CHANNEL = "trellis_thread"
const PROFILE_CHANNEL = "trellis_profile"
/** A thread's state changed, told to its project (payload: a `ThreadChange`): what a page of the project waits on. */
const PROJECT_CHANNEL = "trellis_project"
/** An API key was revoked (payload: its id): what ends the streams opened with it, on every instance. */
export const KEY_REVOKED_CHANNEL = "trellis_key_revoked"

/**
 * How a lost LISTEN is retried: soon at first, then less and less often, never more than every
 * 30 s, jittered so that instances restarted together do not retry in step. Retried forever: live
 * delivery must come back by itself when the database does.
 */
export const RELISTEN = Schedule.exponential(Duration.millis(200)).pipe(
  Schedule.modifyDelay((delay) => Duration.min(delay, Duration.seconds(30))),
  Schedule.jittered
)

/** Publishes what `listen` delivers, listening again (on `RELISTEN`) whenever it fails or ends. */
export const relay = <E, R>(channel: string, listen: Stream.Stream<string, E, R>, publish: (payload: string) => Effect.Effect<void>) =>
  listen.pipe(
    Stream.runForEach(publish),
    Effect.zipRight(Effect.fail("the LISTEN stream ended" as const)),
    Effect.tapErrorCause((cause) => Effect.logWarning(`LISTEN ${channel} stopped; listening again`, cause)),
    Effect.retry(RELISTEN)
  )

/**
 * What changed, as a project's listeners are told: a thread's state, whether a machine (a CLI
 * profile) is online, or the project's content (tasks, Lists, labels, artifacts). Whose it is and whether it is shared go with it, so a listener is told only
 * of what its user may read (see ThreadVisibility; a profile is its owner's alone).
 */
/** `seq`: the change's number in the project change log (migration 0017), what a resumed stream goes on after. */
const Told = { projectId: Schema.String, seq: Schema.Number }
export const ThreadChange = Schema.Struct({
  ...Told,
  threadId: Schema.String,
  owner: Schema.String,
  shared: Schema.Boolean
})
export const ProfileChange = Schema.Struct({
  ...Told,
  profileId: Schema.String,
  owner: Schema.String
})
/**
 * A task, List, label or artifact written (the database's triggers send these: migration 0012), or
 * a project agent, prompt or Skill (0016; `organization`: one of the organization's, told to each
 * of its projects).
 */
export const ContentChange = Schema.Struct({
  ...Told,
  kind: Schema.Literal("task", "list", "label", "artifact", "agent", "prompt", "skill"),
  id: Schema.String,
  organization: Schema.optionalWith(Schema.Boolean, { default: () => false })
})
export const ProjectChange = Schema.Union(ThreadChange, ProfileChange, ContentChange)
export type ProjectChange = typeof ProjectChange.Type
const decodeProjectChange = Schema.decodeUnknownOption(Schema.parseJson(ProjectChange))
/** A change as the log holds it (`change` with its project and number). */
export const decodeLoggedChange = Schema.decodeUnknownOption(ProjectChange)

export class LiveEvents extends Effect.Service<LiveEvents>()("trellis/LiveEvents", {
  scoped: Effect.gen(function*() {
    const pg = yield* PgClient.PgClient
    const threads = makeSignalHub()
    const profiles = makeSignalHub()
    const revokedKeys = makeSignalHub()
    const projects = makeKeyedHub<ProjectChange>()

    yield* Effect.forkScoped(relay(THREAD_CHANNEL, pg.listen(THREAD_CHANNEL), threads.publish))
    yield* Effect.forkScoped(relay(PROFILE_CHANNEL, pg.listen(PROFILE_CHANNEL), profiles.publish))
    yield* Effect.forkScoped(relay(PROJECT_CHANNEL, pg.listen(PROJECT_CHANNEL), (payload) =>
      Option.match(decodeProjectChange(payload), {
        onNone: () => Effect.void,
        onSome: (change) => projects.publish(change.projectId, change)
      })))
    yield* Effect.forkScoped(relay(KEY_REVOKED_CHANNEL, pg.listen(KEY_REVOKED_CHANNEL), revokedKeys.publish))

    // sql-pg's `notify` sends `NOTIFY "channel", $1`, which PostgreSQL rejects (a utility statement
    // takes no parameters); pg_notify is the same signal as a function, and is delivered at commit.
    const notify = (channel: string, payload: string) =>
      pg`SELECT pg_notify(${channel}, ${payload})`.pipe(
        Effect.catchAllCause((cause) => Effect.logWarning(`NOTIFY ${channel} failed`, cause))
      )

    /**
     * A thread's state or timeline changed; its profile's queue may have too (one statement for
     * all). Its project is told who may read it, read from the row in the same statement.
     */
    const threadChanged = (threadId: string, profileId: string | null) => {
      const project = pg`(SELECT trellis_tell_project(t.project_id, jsonb_build_object('threadId', t.id, 'owner', t.created_by,
          'shared', t.shared_at IS NOT NULL
            OR EXISTS (SELECT 1 FROM threads g WHERE g.id = t.parent_thread_id AND g.shared_at IS NOT NULL)))
        FROM threads t WHERE t.id = ${threadId})`
      return (profileId === null
        ? pg`SELECT pg_notify(${THREAD_CHANNEL}, ${threadId}), ${project}`
        : pg`SELECT pg_notify(${THREAD_CHANNEL}, ${threadId}), ${project}, pg_notify(${PROFILE_CHANNEL}, ${profileId})`).pipe(
          Effect.asVoid,
          Effect.catchAllCause((cause) => Effect.logWarning("NOTIFY failed", cause))
        )
    }

    /** The machines of these CLI sessions went online or offline: their projects are told. */
    const machinesChanged = (sessionIds: ReadonlyArray<string>) =>
      sessionIds.length === 0 ? Effect.void : pg`
        SELECT trellis_tell_project(p.project_id, jsonb_build_object('profileId', p.id, 'owner', p.user_id))
        FROM cli_profiles p WHERE p.id IN (SELECT s.profile_id FROM agent_sessions s WHERE s.id IN ${pg.in(sessionIds)})`.pipe(
        Effect.asVoid,
        Effect.catchAllCause((cause) => Effect.logWarning("NOTIFY failed", cause))
      )

    const chunksAdded = (threadId: string) => notify(THREAD_CHANNEL, threadId)

    /**
     * Subscribes now (call before reading the bootstrap so nothing falls between). Signals that
     * pile up while the subscriber re-reads are one signal: a burst of claims or chunks costs the
     * subscriber one read, not one per change.
     */
    const signals = (hub: SignalHub, key: string) =>
      Effect.map(
        hub.subscribe(key),
        (queue) =>
          Stream.fromQueue(queue).pipe(Stream.mapChunks((chunk) => Chunk.isEmpty(chunk) ? Chunk.empty<void>() : Chunk.of(undefined)))
      )

    return {
      threadChanged,
      machinesChanged,
      chunksAdded,
      threadSignals: (threadId: string) => signals(threads, threadId),
      queueSignals: (profileId: string) => signals(profiles, profileId),
      keyRevokedSignals: (apiKeyId: string) => signals(revokedKeys, apiKeyId),
      /** The project's changes from now until the scope closes, each as it comes. */
      projectChanges: (projectId: string) => projects.subscribe(projectId)
    } as const
  })
}) {}
