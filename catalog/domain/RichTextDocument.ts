import { Schema } from "effect"

/**
 * A ProseMirror document in its JSON form: what a task's description is stored and shown as. Apart
 * from ./RichText.ts, which converts it and brings markdown-it and ProseMirror (12 MB of a server's
 * memory), so that the contract and the server load those only once a description is converted.
 */
export const RichTextDocument = Schema.Struct({
  type: Schema.Literal("doc"),
  content: Schema.optional(Schema.Array(Schema.Unknown))
}).annotations({ identifier: "RichTextDocument", description: "ProseMirror JSON (TipTap StarterKit node and mark names)" })
export type RichTextDocument = typeof RichTextDocument.Type
