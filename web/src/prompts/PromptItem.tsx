import { useState } from "react"
import { deletePrompt } from "./deletePrompt"
import { type Prompt, PromptForm, type PromptOwner } from "./PromptForm"
import { useToolMutation } from "./promptTools"

/** One prompt: its command and what it inserts; Edit opens its form, Delete asks first (web only, SPEC). */
export const PromptItem = ({ owner, prompt }: { readonly owner: PromptOwner; readonly prompt: Prompt }) => {
  const [mode, setMode] = useState<"view" | "edit" | "confirm">("view")
  const [deleting, setDeleting] = useState(false)
  const [refused, setRefused] = useState<string | undefined>(undefined)
  const { client } = useToolMutation("update_prompt")
  const headingId = `prompt-heading-${prompt.promptId}`
  const remove = () => {
    setDeleting(true)
    setRefused(undefined)
    void deletePrompt(prompt.promptId).then((message) => {
      setDeleting(false)
      if (message !== undefined) setRefused(message)
      else void client.invalidateQueries({ queryKey: ["list_prompts"] })
    })
  }
  return (
    <li className="item">
      <article aria-labelledby={headingId}>
        <div className="item-head">
          <h3 id={headingId}>/{prompt.key}</h3>
          {prompt.category === null ? null : <span className="badge">{prompt.category}</span>}
          {prompt.autoExpand ? <span className="badge">expands</span> : null}
          {prompt.autoSubmit ? <span className="badge">sends</span> : null}
          {mode === "view"
            ? (
              <>
                <button type="button" className="quiet" onClick={() => setMode("edit")} aria-label={`Edit /${prompt.key}`}>Edit</button>
                <button type="button" className="quiet danger" onClick={() => setMode("confirm")} aria-label={`Delete /${prompt.key}`}>
                  Delete
                </button>
              </>
            )
            : null}
        </div>
        {prompt.description === null ? null : <p>{prompt.description}</p>}
        <pre>{prompt.content}</pre>
        {mode === "edit" ? <PromptForm owner={owner} prompt={prompt} onDone={() => setMode("view")} /> : null}
        {mode === "confirm"
          ? (
            <div className="confirm" role="group" aria-label={`Delete /${prompt.key}`}>
              <p>Delete /{prompt.key} for good?</p>
              <button type="button" className="danger" onClick={remove} disabled={deleting}>Delete</button>
              <button type="button" className="quiet" onClick={() => setMode("view")}>Cancel</button>
            </div>
          )
          : null}
        {refused === undefined ? null : <p className="field-error" role="alert">{refused}</p>}
      </article>
    </li>
  )
}
