import { Data } from "effect"
import { ErrorCode } from "./JsonRpc.js"

/** A JSON-RPC error answer to a well-formed request. */
export class McpError extends Data.TaggedError("McpError")<{
  readonly code: number
  readonly message: string
  readonly data?: unknown
}> {}

export const invalidParams = (message: string, data?: unknown): McpError =>
  new McpError({ code: ErrorCode.InvalidParams, message: `Invalid params: ${message}`, ...(data === undefined ? {} : { data }) })
