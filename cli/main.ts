import { Command } from "@effect/cli"
import { NodeContext, NodeRuntime } from "@effect/platform-node"
import { Effect } from "effect"
import { SERVER_VERSION } from "../src/mcp/McpServer.js"
import { admin } from "./Admin.js"
import { agent } from "./agent/AgentCommands.js"
import { docs } from "./Docs.js"
import { serve } from "./Serve.js"

const trellis = Command.make("trellis").pipe(
  Command.withDescription("Trellis: work tracking for people and coding agents, over MCP"),
  Command.withSubcommands([serve, admin, agent, docs])
)

Command.run(trellis, { name: "trellis", version: SERVER_VERSION })(process.argv).pipe(
  Effect.provide(NodeContext.layer),
  NodeRuntime.runMain
)
