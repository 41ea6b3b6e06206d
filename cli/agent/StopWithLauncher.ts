import { Effect } from "effect"

/**
 * Started by cli/bin.js's launcher (see there), the process ends as on SIGTERM when its launcher
 * is gone: the IPC channel between them closes however the launcher died. Without a launcher
 * (NODE_OPTIONS set its own heap limits) there is no channel and this does nothing.
 */
export const stopWithLauncher = Effect.acquireRelease(
  Effect.sync(() => {
    const onDisconnect = () => process.kill(process.pid, "SIGTERM")
    process.channel?.unref()
    process.on("disconnect", onDisconnect)
    return onDisconnect
  }),
  (onDisconnect) => Effect.sync(() => process.off("disconnect", onDisconnect))
)
