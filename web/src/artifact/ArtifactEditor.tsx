import { type FormEvent, useRef, useState } from "react"
import { FormError, FormField } from "../forms/FormField"
import { type FormErrors, formErrorsOf, noFormErrors } from "../forms/fieldErrors"
import { useFocusOnRefusal } from "../forms/useFocusOnRefusal"
import { type Artifact, useToolMutation } from "./artifactTools"

/**
 * Edits the Markdown source (`update_task_artifact`): the server moves each open thread's anchor
 * with its text in the same write, and says which lost it; the page then shows them where they are.
 */
export const ArtifactEditor = ({ artifact, onDone }: {
  readonly artifact: Artifact
  /** Called with how many threads lost their text, or undefined when the edit is given up. */
  readonly onDone: (lostCount: number | undefined) => void
}) => {
  const [content, setContent] = useState(artifact.content)
  // What the edit started from: the page keeps reading the artifact, and an agent may change it meanwhile.
  const [opened, setOpened] = useState(artifact.content)
  const changedMeanwhile = artifact.content !== opened
  const [errors, setErrors] = useState<FormErrors>(noFormErrors)
  const form = useRef<HTMLFormElement>(null)
  useFocusOnRefusal(form, errors === noFormErrors ? undefined : errors)
  const update = useToolMutation("update_task_artifact")

  const submit = (event: FormEvent) => {
    event.preventDefault()
    setErrors(noFormErrors)
    // Saving over it would undo what was written since: the person sees it first.
    if (changedMeanwhile) return
    update.mutate({ artifactId: artifact.artifactId, content }, {
      onSuccess: (saved) => {
        void update.client.invalidateQueries({ queryKey: ["get_task_artifact"] })
        void update.client.invalidateQueries({ queryKey: ["list_artifact_comments"] })
        onDone(saved.lostCommentIds.length)
      },
      onError: (error) => setErrors(formErrorsOf(error, ["content"]))
    })
  }

  return (
    <form ref={form} className="artifact-editor" aria-label={`Edit ${artifact.name}`} onSubmit={submit} noValidate>
      <FormField id="artifact-content" label="Markdown" error={errors.fields.get("content")}>
        {(props) => <textarea {...props} rows={20} value={content} onChange={(e) => setContent(e.currentTarget.value)} />}
      </FormField>
      <FormError message={errors.form} />
      {changedMeanwhile
        ? (
          <div className="form-error field-error" role="alert">
            The document was changed while you edited it. Saving now would undo that change.{" "}
            <button
              type="button"
              className="quiet"
              onClick={() => {
                setOpened(artifact.content)
                setContent(artifact.content)
              }}
            >
              Start again from the new version
            </button>
          </div>
        )
        : null}
      <div className="form-actions">
        <button type="button" className="quiet" onClick={() => onDone(undefined)}>Cancel</button>
        <button type="submit" disabled={update.isPending || changedMeanwhile || content === artifact.content}>Save</button>
      </div>
    </form>
  )
}
