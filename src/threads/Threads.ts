import { Effect } from "effect"
import { ThreadControls } from "./ThreadControls.js"
import { ThreadCreation } from "./ThreadCreation.js"
import { ThreadGroups } from "./ThreadGroups.js"
import { ThreadListing } from "./ThreadListing.js"
import { MessagePages } from "./MessagePages.js"
import { ThreadMessages } from "./ThreadMessages.js"
import { ThreadRows } from "./ThreadRows.js"
import { TurnStops } from "./TurnStops.js"

/**
 * Threads as the tools, the client routes and the other thread services use them. Each part lives
 * in its own module: reading rows (ThreadRows), listing (ThreadListing), creation (ThreadCreation),
 * groups and workflow runs (ThreadGroups), messages (ThreadMessages) and the owner's controls
 * (ThreadControls) and stopping a running turn (TurnStops).
 */
export class Threads extends Effect.Service<Threads>()("trellis/Threads", {
  effect: Effect.gen(function* () {
    const rows = yield* ThreadRows
    const listing = yield* ThreadListing
    const creation = yield* ThreadCreation
    const groups = yield* ThreadGroups
    const messages = yield* ThreadMessages
    const controls = yield* ThreadControls
    const pages = yield* MessagePages
    const stops = yield* TurnStops

    return {
      get: rows.get,
      listProject: listing.listProject,
      listMembers: listing.listMembers,
      listMessages: messages.listMessages,
      messagePage: pages.page,
      wholeMessage: pages.message,
      create: creation.create,
      send: messages.send,
      retry: messages.retry,
      setDone: controls.setDone,
      setFlag: controls.setFlag,
      setQueueHeld: controls.setQueueHeld,
      startFresh: controls.startFresh,
      requestStop: stops.request,
      awaitStop: stops.await,
      createWorkflowRun: groups.createWorkflowRun,
      findOwn: rows.findOwn
    } as const
  }),
  dependencies: [
    ThreadRows.Default,
    ThreadListing.Default,
    ThreadCreation.Default,
    ThreadGroups.Default,
    ThreadMessages.Default,
    MessagePages.Default,
    ThreadControls.Default,
    TurnStops.Default
  ]
}) {}
