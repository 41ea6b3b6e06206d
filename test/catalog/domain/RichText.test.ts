import { describe, expect, it } from "@effect/vitest"
import { Effect, Either } from "effect"
import * as RichText from "../../../catalog/domain/RichText.js"

const markdown = [
  "# Plan",
  "",
  "Some **bold**, *italic*, ~~struck~~ and `code` with a [link](https://example.com).",
  "",
  "* one",
  "* two",
  "",
  "3. three",
  "4. four",
  "",
  "> quoted",
  "",
  "```ts",
  "const x = 1",
  "```",
  "",
  "---",
  "",
  "line  ",
  "break"
].join("\n")

describe("rich text", () => {
  it.effect("Markdown becomes ProseMirror JSON with TipTap StarterKit names", () =>
    Effect.sync(() => {
      const doc = RichText.fromMarkdown(markdown)
      const text = JSON.stringify(doc)
      for (
        const name of [
          "heading",
          "paragraph",
          "bulletList",
          "orderedList",
          "listItem",
          "blockquote",
          "codeBlock",
          "horizontalRule",
          "hardBreak",
          "bold",
          "italic",
          "strike",
          "code",
          "link"
        ]
      ) {
        expect(text).toContain(`"type":"${name}"`)
      }
      expect(text).toContain("\"start\":3")
      expect(text).toContain("\"language\":\"ts\"")
    }))

  it.effect("Markdown survives the round trip through the stored form", () =>
    Effect.sync(() => {
      const back = Either.getOrThrow(RichText.toMarkdown(RichText.fromMarkdown(markdown)))
      expect(RichText.fromMarkdown(back)).toEqual(RichText.fromMarkdown(markdown))
    }))

  it.effect("plain text is kept as paragraphs", () =>
    Effect.sync(() => {
      const doc = RichText.fromMarkdown("just words\n\nmore words")
      expect(Either.getOrThrow(RichText.toMarkdown(doc))).toBe("just words\n\nmore words")
      expect(RichText.plainText(doc)).toBe("just words\nmore words")
    }))

  it.effect("serialized ProseMirror JSON is stored as given once it fits the schema", () =>
    Effect.sync(() => {
      const doc = { type: "doc", content: [{ type: "paragraph", content: [{ type: "text", text: "hi", marks: [{ type: "bold" }] }] }] }
      expect(RichText.normalize(JSON.stringify(doc), "description")).toEqual(Either.right(doc))
    }))

  it.effect("ProseMirror JSON with an unknown node is rejected naming the field", () =>
    Effect.sync(() => {
      const bad = JSON.stringify({ type: "doc", content: [{ type: "table" }] })
      const result = RichText.normalize(bad, "description")
      expect(result).toMatchObject({ _tag: "Left", left: { _tag: "InvalidArgument", message: expect.stringContaining("description:") } })
    }))

  it.effect("images, tables and raw HTML do not break conversion", () =>
    Effect.sync(() => {
      const doc = RichText.fromMarkdown("![alt](x.png)\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n<div>hi</div>")
      expect(RichText.plainText(doc)).toContain("<div>hi</div>")
    }))
})
