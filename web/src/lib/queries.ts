import { QueryClient, useMutation, useQuery, useQueryClient } from "@tanstack/react-query"
import { Either, type Schema } from "effect"
import type * as Tool from "../../../catalog/Tool.js"
import { makeToolCaller, type ToolError } from "./api"

/**
 * The app's query cache: a tool's result is kept under `[name, args]`, shared by every part of the
 * page that shows it, and read again only when the project's changes stream names what it holds
 * (./projectChanges.tsx): never on a timer, nor on focus.
 */
export const queryClient = new QueryClient({
  defaultOptions: {
    queries: {
      staleTime: Infinity,
      refetchOnWindowFocus: false,
      refetchOnReconnect: false,
      // A 429 already waited out its Retry-After in the client (./backoff.ts), and the changes
      // stream's reopening reads everything again after an outage.
      retry: false
    }
  }
})

/** A tool's Either as the promise TanStack Query takes: a failure rejects with the typed error. */
export const settle = <A>(result: Either.Either<A, ToolError>): Promise<A> =>
  Either.match(result, { onLeft: (error) => Promise.reject(error), onRight: (value) => Promise.resolve(value) })

/** The cache's key of a tool's result. */
export const toolKey = <N extends string, A>(name: N, args: A) => [name, args] as const

/** Query and mutation hooks for `tools`, called over MCP (./api.ts' makeToolCaller). */
export const makeToolHooks = <Tools extends { readonly [K in keyof Tools]: Tool.Any }>(tools: Tools) => {
  const call = makeToolCaller(tools)
  type Args<N extends keyof Tools> = Schema.Schema.Encoded<Tools[N]["input"]>
  type Result<N extends keyof Tools> = Schema.Schema.Type<Tools[N]["output"]>

  /** A read tool's result, cached under its name and arguments. */
  const useToolQuery = <N extends keyof Tools & string>(name: N, args: Args<N>) =>
    useQuery<Result<N>, ToolError>({
      queryKey: toolKey(name, args),
      queryFn: ({ signal }) => call(name, args, signal).then(settle)
    })

  /** A write tool; its callbacks are where the caller reads again what the write changed. */
  const useToolMutation = <N extends keyof Tools & string>(name: N) => {
    const client = useQueryClient()
    return { client, ...useMutation<Result<N>, ToolError, Args<N>>({ mutationFn: (args) => call(name, args).then(settle) }) }
  }

  return { useToolQuery, useToolMutation }
}
