import { Schema } from "effect"
import { ThreadMessage } from "../Threads.js"

/** The largest page of `GET /api/threads/:threadId/messages`; the web app reads {@link MESSAGE_PAGE_SIZE}. */
export const MAX_MESSAGE_PAGE = 100
export const MESSAGE_PAGE_SIZE = 50

/**
 * A page of a thread's conversation for a client that shows all of it (the MCP tool's window of 20
 * is SPEC's contract for agents). `cursor` is a message ID of the thread: the page starts past it.
 */
export const MessagePageParams = Schema.Struct({
  order: Schema.optional(Schema.Literal("newest", "oldest")).annotations({
    description:
      "Which end the first page starts from and which way `nextCursor` goes (default newest: the latest messages, then older ones)"
  }),
  cursor: Schema.optional(Schema.String.pipe(Schema.minLength(1, { message: () => "cursor: must not be empty" }))).annotations({
    description: "The `nextCursor` of the previous page: a message ID of this thread, which the page starts past"
  }),
  limit: Schema.optional(Schema.NumberFromString.pipe(
    Schema.int({ message: () => `limit: must be an integer from 1 to ${MAX_MESSAGE_PAGE}` }),
    Schema.between(1, MAX_MESSAGE_PAGE, { message: () => `limit: must be an integer from 1 to ${MAX_MESSAGE_PAGE}` })
  )).annotations({ description: `Messages in the page, 1 to ${MAX_MESSAGE_PAGE} (default ${MESSAGE_PAGE_SIZE})` })
})

export const MessagePage = Schema.Struct({
  messages: Schema.Array(ThreadMessage).annotations({
    description:
      "Oldest first whatever the order; text is capped as the tool caps it (truncated: true), the whole of one message is `GET …/messages/:messageId`"
  }),
  nextCursor: Schema.NullOr(Schema.String).annotations({ description: "Where the next page in the same order starts; null at the end" })
})
