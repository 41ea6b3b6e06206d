import { Either, Schema } from "effect"
import MarkdownIt from "markdown-it"
import { defaultMarkdownSerializer, MarkdownParser, MarkdownSerializer } from "prosemirror-markdown"
import { Schema as ProseMirrorSchema, type Node as ProseMirrorNode } from "prosemirror-model"
import { InvalidArgument } from "./Errors.js"
import { RichTextDocument } from "./RichTextDocument.js"

export { RichTextDocument } from "./RichTextDocument.js"

/**
 * Rich text as the web editor stores it: ProseMirror JSON whose node and mark names are
 * TipTap StarterKit's. Markdown and plain text are converted on the way in; Markdown is
 * derived on the way out, since agents read it best.
 */
export const schema = new ProseMirrorSchema({
  nodes: {
    doc: { content: "block+" },
    paragraph: { group: "block", content: "inline*" },
    heading: { group: "block", content: "inline*", attrs: { level: { default: 1 } }, defining: true },
    blockquote: { group: "block", content: "block+", defining: true },
    bulletList: { group: "block", content: "listItem+" },
    orderedList: { group: "block", content: "listItem+", attrs: { start: { default: 1 } } },
    listItem: { content: "paragraph block*", defining: true },
    codeBlock: { group: "block", content: "text*", marks: "", code: true, defining: true, attrs: { language: { default: null } } },
    horizontalRule: { group: "block" },
    hardBreak: { group: "inline", inline: true, selectable: false },
    text: { group: "inline" }
  },
  marks: {
    bold: {},
    italic: {},
    strike: {},
    code: { excludes: "_" },
    link: { attrs: { href: {}, title: { default: null } }, inclusive: false }
  }
})

// CommonMark plus strikethrough; no images or tables (the schema has no place for them), no raw HTML.
const tokenizer = MarkdownIt("commonmark", { html: false }).enable("strikethrough").disable("image")

const numberAttr = (value: string | null, fallback: number) => {
  const n = Number(value)
  return Number.isInteger(n) && n > 0 ? n : fallback
}

const parser = new MarkdownParser(schema, tokenizer, {
  paragraph: { block: "paragraph" },
  heading: { block: "heading", getAttrs: (token) => ({ level: numberAttr(token.tag.slice(1), 1) }) },
  blockquote: { block: "blockquote" },
  bullet_list: { block: "bulletList" },
  ordered_list: { block: "orderedList", getAttrs: (token) => ({ start: numberAttr(token.attrGet("start"), 1) }) },
  list_item: { block: "listItem" },
  code_block: { block: "codeBlock", noCloseToken: true },
  fence: { block: "codeBlock", getAttrs: (token) => ({ language: token.info.trim() || null }), noCloseToken: true },
  hr: { node: "horizontalRule" },
  hardbreak: { node: "hardBreak" },
  em: { mark: "italic" },
  strong: { mark: "bold" },
  s: { mark: "strike" },
  code_inline: { mark: "code", noCloseToken: true },
  link: { mark: "link", getAttrs: (token) => ({ href: token.attrGet("href"), title: token.attrGet("title") || null }) }
})

const defaults = defaultMarkdownSerializer

const serializer = new MarkdownSerializer({
  paragraph: defaults.nodes["paragraph"]!,
  heading: defaults.nodes["heading"]!,
  blockquote: defaults.nodes["blockquote"]!,
  horizontalRule: defaults.nodes["horizontal_rule"]!,
  bulletList: defaults.nodes["bullet_list"]!,
  listItem: defaults.nodes["list_item"]!,
  hardBreak: defaults.nodes["hard_break"]!,
  text: defaults.nodes["text"]!,
  orderedList: (state, node) => {
    const start = Number(node.attrs["start"]) || 1
    const width = String(start + node.childCount - 1).length
    state.renderList(node, " ".repeat(width + 2), (i) => {
      const label = String(start + i)
      return " ".repeat(width - label.length) + label + ". "
    })
  },
  codeBlock: (state, node) => {
    const fence = node.textContent.includes("```") ? "````" : "```"
    state.write(fence + (typeof node.attrs["language"] === "string" ? node.attrs["language"] : "") + "\n")
    state.text(node.textContent, false)
    state.write("\n")
    state.write(fence)
    state.closeBlock(node)
  }
}, {
  italic: defaults.marks["em"]!,
  bold: defaults.marks["strong"]!,
  strike: { open: "~~", close: "~~", mixable: true, expelEnclosingWhitespace: true },
  code: defaults.marks["code"]!,
  link: defaults.marks["link"]!
})

const asDocument = (node: ProseMirrorNode): RichTextDocument => {
  const json: unknown = node.toJSON()
  return Schema.decodeUnknownSync(RichTextDocument)(json)
}

export const fromMarkdown = (markdown: string): RichTextDocument => asDocument(parser.parse(markdown))

export const toMarkdown = (document: RichTextDocument): Either.Either<string, InvalidArgument> =>
  Either.map(toNode(document, "document"), (node) => serializer.serialize(node))

const toNode = (json: unknown, field: string): Either.Either<ProseMirrorNode, InvalidArgument> =>
  Either.try({
    try: () => {
      const node = schema.nodeFromJSON(json)
      node.check()
      return node
    },
    catch: (error) =>
      new InvalidArgument({
        message: `${field}: not a valid rich-text document (${error instanceof Error ? error.message : String(error)})`
      })
  })

/** Text that means to be ProseMirror JSON: an object with `"type": "doc"` somewhere in it, in any key order. */
const looksLikeDocument = (text: string): boolean => /^\s*\{[\s\S]*"type"\s*:\s*"doc"/.test(text)

const parseDocument = (text: string, field: string): Either.Either<unknown, InvalidArgument> =>
  Either.try({
    try: (): unknown => JSON.parse(text),
    catch: () => new InvalidArgument({ message: `${field}: looks like ProseMirror JSON but does not parse as JSON` })
  })

const SAFE_HREF = /^(https?:|mailto:|#|\/)/i

const checkLinks = (node: ProseMirrorNode, field: string): Either.Either<ProseMirrorNode, InvalidArgument> => {
  let unsafe: unknown = undefined
  node.descendants((child) => {
    for (const mark of child.marks) {
      const href: unknown = mark.attrs["href"]
      if (mark.type.name === "link" && (typeof href !== "string" || !SAFE_HREF.test(href.trim()))) unsafe = href
    }
  })
  return unsafe === undefined
    ? Either.right(node)
    : Either.left(
      new InvalidArgument({ message: `${field}: link ${JSON.stringify(unsafe)} must be an http(s), mailto, relative or #anchor URL` })
    )
}

/**
 * A description as given: serialized ProseMirror JSON (an object whose `type` is `doc`, checked
 * against the schema) or Markdown / plain text (converted). Returns the document to store.
 */
export const normalize = (input: string, field: string): Either.Either<RichTextDocument, InvalidArgument> =>
  looksLikeDocument(input)
    ? parseDocument(input, field).pipe(
      Either.flatMap((json) => toNode(json, field)),
      Either.flatMap((node) => checkLinks(node, field)),
      Either.map(asDocument)
    )
    : Either.right(fromMarkdown(input))

/** The plain text of a document, for search. */
export const plainText = (document: RichTextDocument): string =>
  Either.match(toNode(document, "document"), { onLeft: () => "", onRight: (node) => node.textBetween(0, node.content.size, "\n", " ") })
