import { keepPreviousData, useQuery, useQueryClient } from "@tanstack/react-query"
import { useCallback } from "react"
import { type ArgumentsOf, callTool, isSignedOut, type Loaded, type ResultOf, type ToolError, type ToolName } from "./api"
import { settle, toolKey } from "./queries"

/**
 * A tool's result for the component's lifetime, from the app's query cache (./queries.ts): what
 * another part of the page, or an earlier visit, read shows at once, and is read again on mount,
 * when `args` change and on `reload()` (which pages call when the project's changes stream names
 * what they show). With `keepPrevious`, the last answer stays shown (`refreshing`) while changed
 * arguments load, so a filter toggle does not blank the page and what the person opened in it stays
 * open. A refresh that fails keeps the last answer, so a lost connection or a restarting server does
 * not tear the page down, unless the session ended: then the page must say so.
 */
export const useTool = <N extends ToolName>(
  name: N,
  args: ArgumentsOf<N>,
  options: { readonly keepPrevious?: boolean } = {}
): readonly [Loaded<ResultOf<N>>, () => void] => {
  const client = useQueryClient()
  const queryKey = toolKey(name, args)
  const query = useQuery<ResultOf<N>, ToolError>({
    queryKey,
    queryFn: ({ signal }) => callTool(name, args, signal).then(settle),
    // The pages on this hook have no other trigger to read again than arriving and the changes
    // stream: a cached answer is shown, never trusted.
    staleTime: 0,
    refetchOnMount: "always",
    ...(options.keepPrevious === true ? { placeholderData: keepPreviousData } : {})
  })
  // `key` stands for `name` and `args`: a new object of equal arguments is not a new query.
  const key = JSON.stringify(queryKey)
  const reload = useCallback(() => {
    void client.invalidateQueries({ queryKey, exact: true })
  }, [client, key])

  const signedOut = query.error !== null && isSignedOut(query.error)
  if (query.data !== undefined && !signedOut) return [{ _tag: "Ready", value: query.data, refreshing: query.isFetching }, reload]
  if (query.error !== null) return [{ _tag: "Failed", error: query.error }, reload]
  return [{ _tag: "Loading" }, reload]
}
