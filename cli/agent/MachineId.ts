import * as FileSystem from "@effect/platform/FileSystem"
import * as Path from "@effect/platform/Path"
import { randomUUID } from "node:crypto"
import { Effect } from "effect"

/**
 * This machine's id for the backend, which runs a thread only on the machine holding its runtime
 * session. Generated once and kept in the config directory, beside the profiles: it survives a
 * hostname change (which would otherwise strand threads), and a config directory copied to
 * another machine only makes both look like one, where a resume then falls back to a fresh
 * session with the conversation summarised.
 */
export const machineId = (configDir: string) =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    const file = path.join(configDir, "machine-id")
    const kept = yield* fs.readFileString(file).pipe(Effect.map((text) => text.trim()), Effect.orElseSucceed(() => ""))
    if (kept !== "") return kept
    const fresh = randomUUID()
    // An id that cannot be kept would change with every start and strand the threads it ran:
    // better not to start.
    yield* fs.makeDirectory(configDir, { recursive: true, mode: 0o700 }).pipe(
      Effect.zipRight(fs.writeFileString(file, `${fresh}\n`, { mode: 0o600 }))
    )
    return fresh
  })
