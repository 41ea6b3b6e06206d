import { Duration, Effect, Layer, Schedule } from "effect"
import { TrellisConfig } from "../platform/TrellisConfig.js"
import { AgentSessions } from "./AgentSessions.js"
import { ClaimLeases } from "./ClaimLeases.js"

/**
 * Ends CLI sessions silent past their TTL and releases claim leases nobody renewed, so a dead
 * CLI's threads can be claimed again. Several backend instances may sweep at once: each pass
 * locks what it changes and skips what another instance holds.
 */
export const BridgeSweeperLive = Layer.scopedDiscard(
  Effect.gen(function*() {
    const sessions = yield* AgentSessions
    const leases = yield* ClaimLeases
    const { bridge } = yield* TrellisConfig
    const sweep = Effect.all([sessions.expireSilent(), leases.releaseStaleClaims()]).pipe(
      Effect.tap(([sessionClaims, staleClaims]) =>
        sessionClaims + staleClaims > 0
          ? Effect.logInfo(`bridge sweep released ${sessionClaims} claims of expired sessions and ${staleClaims} stale leases`)
          : Effect.void
      ),
      Effect.catchAllCause((cause) => Effect.logWarning("bridge sweep failed; will retry", cause))
    )
    yield* Effect.forkScoped(Effect.repeat(sweep, Schedule.spaced(Duration.millis(bridge.sweepIntervalMs))))
  })
)
