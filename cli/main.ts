import * as Command from "@effect/cli/Command"
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { Effect } from "effect"
import { VERSION } from "../catalog/Version.js"

/**
 * Each subcommand's module is loaded only when it is the one asked for: `trellis agent start`,
 * which runs for days beside the user's other programs, does not carry the backend in memory.
 * Help and unknown commands load them all. For the same reason the agent's modules (and the
 * bridge API they share with the backend) import `@effect/platform/X`, `@effect/platform-node/X`
 * and `@effect/cli/X` rather than the packages' index: an index loads every module of its
 * package, ~24 MB of the agent's memory it never uses.
 */
const subcommands = {
  serve: () => Effect.promise(() => import("./Serve.js")).pipe(Effect.map((module) => module.serve)),
  admin: () => Effect.promise(() => import("./Admin.js")).pipe(Effect.map((module) => module.admin)),
  agent: () => Effect.promise(() => import("./agent/AgentCommands.js")).pipe(Effect.map((module) => module.agent)),
  docs: () => Effect.promise(() => import("./Docs.js")).pipe(Effect.map((module) => module.docs))
} as const

const isSubcommand = (name: string | undefined): name is keyof typeof subcommands => name !== undefined && Object.hasOwn(subcommands, name)

const load = Effect.gen(function*() {
  const asked = process.argv[2]
  if (isSubcommand(asked)) return [yield* subcommands[asked]()] as const
  return [yield* subcommands.serve(), yield* subcommands.admin(), yield* subcommands.agent(), yield* subcommands.docs()] as const
})

Effect.gen(function*() {
  const trellis = Command.make("trellis").pipe(
    Command.withDescription("Trellis: work tracking for people and coding agents, over MCP"),
    Command.withSubcommands(yield* load)
  )
  return yield* Command.run(trellis, { name: "trellis", version: VERSION })(process.argv)
}).pipe(
  Effect.provide(NodeContext.layer),
  NodeRuntime.runMain
)
