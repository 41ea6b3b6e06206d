import { Context, Either } from "effect"
import { ALWAYS_SERVED, TOOLSET_NAMES, type ToolsetName, toolsetOf } from "../../catalog/index.js"
import type { Tool } from "../../catalog/index.js"
import type { Principal } from "../platform/auth/Principal.js"

/** Why a connection may only read: its key was created read-only, or its URL asked (`?readonly=1`). */
export type ReadOnlyBy = "key" | "url"

/** Which tools a connection is served: the toolsets it asked for (null: all), and whether it may only read. */
export interface ToolAccess {
  readonly toolsets: ReadonlySet<ToolsetName> | null
  readonly readOnly: ReadOnlyBy | null
}

export class CurrentToolAccess extends Context.Tag("trellis/CurrentToolAccess")<CurrentToolAccess, ToolAccess>() {}

export const fullAccess: ToolAccess = { toolsets: null, readOnly: null }

const isToolset = (name: string): name is ToolsetName => TOOLSET_NAMES.some((toolset) => toolset === name)

const TRUE_VALUES = new Set(["1", "true", "yes"])
const FALSE_VALUES = new Set(["0", "false", "no", ""])

/**
 * The access a request asks for with `?toolsets=a,b` (or the `X-MCP-Toolsets` header; the URL
 * wins) and `?readonly=1`, narrowed by its key: a read-only key reads only, whatever the URL says.
 * Fails with the message naming the bad value and what is allowed.
 */
export const requestedAccess = (
  query: URLSearchParams,
  toolsetsHeader: string | undefined,
  principal: Principal
): Either.Either<ToolAccess, string> => {
  const listed = query.get("toolsets") ?? toolsetsHeader
  const names = listed === undefined || listed === null ? null : listed.split(",").map((name) => name.trim()).filter((name) => name !== "")
  const unknown = names?.filter((name) => !isToolset(name)) ?? []
  if (unknown.length > 0) {
    return Either.left(
      `toolsets: ${unknown.map((name) => `"${name}"`).join(", ")} ${
        unknown.length === 1 ? "is not a toolset" : "are not toolsets"
      } (toolsets: ${TOOLSET_NAMES.join(", ")})`
    )
  }
  const readonly = query.get("readonly")?.trim().toLowerCase()
  if (readonly !== undefined && !TRUE_VALUES.has(readonly) && !FALSE_VALUES.has(readonly)) {
    return Either.left(`readonly: must be 1 or 0 (or true/false), not "${readonly}"`)
  }
  return Either.right({
    toolsets: names === null ? null : new Set([ALWAYS_SERVED, ...names.filter(isToolset)]),
    readOnly: principal.readOnly ? "key" : readonly !== undefined && TRUE_VALUES.has(readonly) ? "url" : null
  })
}

/** Whether the connection is served `tool`; otherwise the message saying what would serve it. */
export const refusal = (access: ToolAccess, tool: Tool.Any): string | undefined => {
  const toolset = toolsetOf.get(tool.name)
  if (access.toolsets !== null && toolset !== undefined && !access.toolsets.has(toolset)) {
    return `${tool.name} is in the toolset "${toolset}", which this connection did not ask for: add it to ?toolsets= (or the X-MCP-Toolsets header)`
  }
  if (access.readOnly !== null && !tool.annotations.readOnly) {
    return access.readOnly === "key"
      ? `${tool.name} writes, and this API key is read-only`
      : `${tool.name} writes, and this connection is read-only (?readonly=1)`
  }
  return undefined
}
