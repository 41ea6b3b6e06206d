import { Slice } from "@tiptap/pm/model"
import type { EditorView } from "@tiptap/pm/view"
import { EditorContent, useEditor } from "@tiptap/react"
import StarterKit from "@tiptap/starter-kit"
import { Either } from "effect"
import { useState } from "react"
import { fromMarkdown, normalize } from "../../../catalog/domain/RichText.js"

/**
 * The description in a rich-text editor (Tiptap over the server's own schema: StarterKit's names,
 * catalog/domain/RichText.ts): Markdown shortcuts as you type (`## `, `- `, `**bold**`, `` `code` ``),
 * Markdown pasted as plain text becomes what it means, and what is saved is the document itself,
 * which agents then read as Markdown over MCP. Its own chunk: it loads when Edit is pressed.
 */

/** Plain text that reads as Markdown: a block marker at a line's start, or inline emphasis, code or a link. */
const MARKDOWN = /^(#{1,6} |[-*+] |\d+[.)] |> |```)|\*\*[^*]+\*\*|`[^`]+`|~~[^~]+~~|\[[^\]]+\]\([^)]+\)/m

/** Pastes Markdown text as the document it describes, parsed as the server parses it. */
const pasteMarkdown = (view: EditorView, event: ClipboardEvent): boolean => {
  const data = event.clipboardData
  if (data === null || data.types.includes("text/html")) return false
  const text = data.getData("text/plain")
  if (!MARKDOWN.test(text)) return false
  const content = view.state.schema.nodeFromJSON(fromMarkdown(text)).content
  view.dispatch(view.state.tr.replaceSelection(Slice.maxOpen(content)).scrollIntoView())
  return true
}

export const DescriptionEditor = ({ markdown, onCancel, onSave, saving }: {
  readonly markdown: string
  readonly saving: boolean
  /** The document to store (serialized ProseMirror JSON), or null for no description. */
  readonly onSave: (description: string | null) => void
  readonly onCancel: () => void
}) => {
  const [error, setError] = useState<string | undefined>(undefined)
  const editor = useEditor({
    extensions: [
      // The server's schema has no underline; links open from the page, not while editing.
      StarterKit.configure({ underline: false, link: { openOnClick: false, autolink: true, defaultProtocol: "https" } })
    ],
    // The Markdown parsed as the server parses it, into the editor's (same-named) schema; not undoable.
    onCreate: ({ editor: created }) => {
      const { state, view } = created
      const loaded = state.schema.nodeFromJSON(fromMarkdown(markdown))
      view.dispatch(state.tr.replaceWith(0, state.doc.content.size, loaded.content).setMeta("addToHistory", false))
      created.commands.focus("end")
    },
    editorProps: {
      attributes: {
        class: "description-editor",
        role: "textbox",
        "aria-multiline": "true",
        "aria-label": "Description",
        "aria-describedby": "task-description-help"
      },
      handlePaste: (view, event) => pasteMarkdown(view, event)
    }
  })

  const save = () => {
    if (editor.isEmpty) return onSave(null)
    // Checked as the server checks it (a link must be http(s), mailto, relative or #anchor): a
    // refusal names the rule here instead of after a round trip.
    Either.match(normalize(JSON.stringify(editor.getJSON()), "description"), {
      onLeft: (refused) => setError(refused.message),
      onRight: (document) => onSave(JSON.stringify(document))
    })
  }

  return (
    <form
      onSubmit={(event) => {
        event.preventDefault()
        save()
      }}
      onKeyDown={(event) => {
        if (event.key === "Enter" && (event.metaKey || event.ctrlKey)) {
          event.preventDefault()
          save()
        }
      }}
    >
      <EditorContent editor={editor} />
      <p id="task-description-help" className="meta">
        Markdown works as you type (<code>##</code>, <code>-</code>, <code>**bold**</code>) and when pasted; Ctrl+Enter saves.
      </p>
      {error === undefined ? null : <p className="field-error" role="alert">{error}</p>}
      <div className="form-actions">
        <button type="submit" disabled={saving}>Save</button>
        <button type="button" className="quiet" onClick={onCancel}>Cancel</button>
      </div>
    </form>
  )
}

export default DescriptionEditor
