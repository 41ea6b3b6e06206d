import { Config, Effect, Option } from "effect"
import * as path from "node:path"
import * as Database from "../src/platform/sql/Database.js"

/** Trellis keeps its local state here: the embedded database and credentials.json. */
export const home = Config.string("TRELLIS_HOME").pipe(
  Config.withDefault(".trellis"),
  Config.map((dir) => path.resolve(dir))
)

export const databaseUrl = Config.option(Config.redacted("DATABASE_URL"))

export const credentialsPath = (homeDir: string) => path.join(homeDir, "credentials.json")

/** The database options of this process, from the environment. */
export const databaseOptions = (command: string) =>
  Effect.gen(function*() {
    return { home: yield* home, databaseUrl: yield* databaseUrl, command } satisfies Database.DatabaseOptions
  })

export const isEmbedded = (options: Database.DatabaseOptions) => Option.isNone(options.databaseUrl)
