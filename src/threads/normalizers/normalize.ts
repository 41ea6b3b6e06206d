import type { CliType, RuntimeTransport } from "../../../catalog/domain/CliType.js"
import { type ChunkNormalizer, lineNormalizer, misread } from "./LineNormalizer.js"
import type { NormalizedEvent } from "../../../catalog/events/NormalizedEvent.js"
import { CLI_STOPPED_TYPE, CLI_WARNING_TYPE } from "../../../catalog/bridge/AgentApi.js"
import { normalizeClaudeChunk } from "./ClaudeCode.js"
import { normalizeCodexAppServerChunk } from "./CodexAppServer.js"
import { normalizeCodexExecChunk } from "./CodexExec.js"
import { normalizeGeminiChunk } from "./Gemini.js"
import { normalizeOpenCodeRunChunk, normalizeOpenCodeServerChunk } from "./OpenCode.js"

/** Where a thread's chunks come from: its runtime, and the transport when the runtime has several. */
export interface ChunkSource {
  readonly cliType: CliType
  readonly transport?: RuntimeTransport | undefined
}

const unsupported: ChunkNormalizer = (type, data) => ({ kind: "unknown", reason: "unsupported-runtime", rawType: type, rawData: data })

/** The generic side knows runtimes and transports only; each module owns its stream's format. */
export const normalizerFor = (source: ChunkSource): ChunkNormalizer => {
  switch (source.cliType) {
    case "claude":
      return normalizeClaudeChunk
    case "codex":
      return source.transport === "exec" ? normalizeCodexExecChunk : normalizeCodexAppServerChunk
    case "opencode":
      return source.transport === "run" ? normalizeOpenCodeRunChunk : normalizeOpenCodeServerChunk
    case "gemini":
      return normalizeGeminiChunk
    default:
      return unsupported
  }
}

const normalizeCliWarning = lineNormalizer((
  _,
  line
) => (typeof line["message"] === "string" ? [{ kind: "warning", message: line["message"] }] : [misread]))

/** The turn's owner stopped it: the turn's status, as a runtime that reports one gives it. */
const normalizeCliStopped = lineNormalizer((_, line) => [{
  kind: "metadata",
  otherJson: JSON.stringify({ turnStatus: "stopped", ...(typeof line["message"] === "string" ? { error: line["message"] } : {}) })
}])

/** Normalizes one raw chunk at insert time: pure, total, one event (possibly a bundle). */
export const normalizeChunk = (source: ChunkSource, type: string, data: string): NormalizedEvent =>
  type === CLI_WARNING_TYPE
    ? normalizeCliWarning(type, data)
    : type === CLI_STOPPED_TYPE
    ? normalizeCliStopped(type, data)
    : normalizerFor(source)(type, data)
