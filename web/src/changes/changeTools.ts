import { GetThreadChanges } from "../../../catalog/ThreadChanges.js"
import { makeToolCaller } from "../lib/api"

/** The change report tool: it loads with the Changes panel, a chunk of its own. */
export const callChangesTool = makeToolCaller({ get_thread_changes: GetThreadChanges })
