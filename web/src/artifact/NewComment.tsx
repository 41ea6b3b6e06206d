import { type FormEvent, useRef, useState } from "react"
import { occurrences } from "../../../catalog/domain/Anchor.js"
import { FormError, FormField } from "../forms/FormField"
import { type FormErrors, formErrorsOf, noFormErrors } from "../forms/fieldErrors"
import { useFocusOnRefusal } from "../forms/useFocusOnRefusal"
import { useToolMutation } from "./artifactTools"
import type { Snippet } from "./ArtifactDocument"

const SHOWN = ["anchorText", "occurrence", "content"]

/**
 * Starts a thread: the snippet comes from a selection in the document (or is typed, for a keyboard
 * alone), which of its matches when it occurs more than once, and the comment.
 */
export const NewComment = ({ artifactId, onCreated, selected, source }: {
  readonly artifactId: string
  readonly source: string
  /** The latest selection; a new one replaces what the fields hold. */
  readonly selected: Snippet | undefined
  readonly onCreated: (threadId: string) => void
}) => {
  const [shown, setShown] = useState(selected)
  const [anchorText, setAnchorText] = useState(selected?.anchorText ?? "")
  const [occurrence, setOccurrence] = useState(selected?.occurrence ?? 1)
  const [content, setContent] = useState("")
  const [errors, setErrors] = useState<FormErrors>(noFormErrors)
  const form = useRef<HTMLFormElement>(null)
  useFocusOnRefusal(form, errors === noFormErrors ? undefined : errors)
  const create = useToolMutation("create_artifact_comment")

  if (selected !== shown) {
    setShown(selected)
    setAnchorText(selected?.anchorText ?? "")
    setOccurrence(selected?.occurrence ?? 1)
  }
  const matches = anchorText === "" ? 0 : occurrences(source, anchorText).length

  const submit = (event: FormEvent) => {
    event.preventDefault()
    setErrors(noFormErrors)
    create.mutate({ artifactId, anchorText, occurrence, content }, {
      onSuccess: (thread) => {
        setAnchorText("")
        setContent("")
        setOccurrence(1)
        void create.client.invalidateQueries({ queryKey: ["list_artifact_comments"] })
        onCreated(thread.commentId)
      },
      onError: (error) => setErrors(formErrorsOf(error, SHOWN))
    })
  }

  return (
    <form ref={form} className="new-artifact-comment" aria-label="New comment" onSubmit={submit} noValidate>
      <h2>New comment</h2>
      <FormField
        id="new-comment-anchor"
        label="Text to comment on"
        hint="Select text in the document, or type it exactly as written."
        error={errors.fields.get("anchorText")}
      >
        {(props) => <textarea {...props} rows={2} value={anchorText} onChange={(e) => setAnchorText(e.currentTarget.value)} />}
      </FormField>
      {matches > 1
        ? (
          <FormField id="new-comment-occurrence" label={`Which match (of ${matches})`} error={errors.fields.get("occurrence")}>
            {(props) => (
              <input
                {...props}
                type="number"
                min={1}
                max={matches}
                value={occurrence}
                onChange={(e) => setOccurrence(e.currentTarget.valueAsNumber)}
              />
            )}
          </FormField>
        )
        : null}
      <FormField id="new-comment-content" label="Comment" error={errors.fields.get("content")}>
        {(props) => <textarea {...props} rows={3} value={content} onChange={(e) => setContent(e.currentTarget.value)} />}
      </FormField>
      <FormError message={errors.form} />
      <div className="form-actions">
        <button type="submit" disabled={create.isPending || anchorText === "" || content.trim() === ""}>Comment</button>
      </div>
    </form>
  )
}
