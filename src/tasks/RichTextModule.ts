import { Effect } from "effect"

/**
 * The description converters (catalog/domain/RichText.ts), loaded the first time a description is
 * written or read as Markdown: markdown-it and ProseMirror hold 12 MB of the server's memory, which a
 * server that never touches a description does not need (npm run bench:memory).
 */
export const RichTextModule = Effect.promise(() => import("../../catalog/domain/RichText.js"))
