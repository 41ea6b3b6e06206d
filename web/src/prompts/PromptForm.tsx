import { type FormEvent, useRef, useState } from "react"
import { PROMPT_KEY_RULE } from "../../../catalog/domain/Prompt.js"
import { FormError, FormField } from "../forms/FormField"
import { type FormErrors, formErrorsOf, noFormErrors } from "../forms/fieldErrors"
import { useFocusOnRefusal } from "../forms/useFocusOnRefusal"
import { type PromptToolResult, useToolMutation } from "./promptTools"

export type Prompt = PromptToolResult<"list_prompts">["prompts"][number]

/** Where a new prompt goes: the project, or the organization (by ID). */
export type PromptOwner =
  | { readonly scope: "project"; readonly projectId: string }
  | { readonly scope: "organization"; readonly organization: string }

const SHOWN = ["key", "content", "description", "category", "autoExpand", "autoSubmit"]
const textOrNull = (text: string) => text.trim() === "" ? null : text

/** Creates a prompt in `owner` (no `prompt`) or edits `prompt`; a refusal shows on the field it names. */
export const PromptForm = ({ owner, prompt, onDone }: {
  readonly owner: PromptOwner
  readonly prompt?: Prompt
  readonly onDone: () => void
}) => {
  const [key, setKey] = useState(prompt?.key ?? "")
  const [content, setContent] = useState(prompt?.content ?? "")
  const [description, setDescription] = useState(prompt?.description ?? "")
  const [category, setCategory] = useState(prompt?.category ?? "")
  const [autoExpand, setAutoExpand] = useState(prompt?.autoExpand ?? false)
  const [autoSubmit, setAutoSubmit] = useState(prompt?.autoSubmit ?? false)
  const [errors, setErrors] = useState<FormErrors>(noFormErrors)
  const formRef = useRef<HTMLFormElement>(null)
  useFocusOnRefusal(formRef, errors === noFormErrors ? undefined : errors)
  const create = useToolMutation("create_prompt")
  const update = useToolMutation("update_prompt")
  const prefix = prompt === undefined ? `new-${owner.scope}-prompt` : `prompt-${prompt.promptId}`

  const handlers = {
    onSuccess: () => {
      void create.client.invalidateQueries({ queryKey: ["list_prompts"] })
      onDone()
    },
    onError: (error: Parameters<typeof formErrorsOf>[0]) => setErrors(formErrorsOf(error, SHOWN))
  }
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault()
    setErrors(noFormErrors)
    const fields = { key, content, description: textOrNull(description), category: textOrNull(category), autoExpand, autoSubmit }
    if (prompt === undefined) create.mutate({ ...owner, ...fields }, handlers)
    else update.mutate({ promptId: prompt.promptId, ...fields }, handlers)
  }
  const label = prompt === undefined ? `New ${owner.scope} prompt` : `Edit /${prompt.key}`

  return (
    <form ref={formRef} className="editor-form" onSubmit={submit} noValidate aria-label={label}>
      <div className="form-grid">
        <FormField id={`${prefix}-key`} label="Command" hint={`${PROMPT_KEY_RULE}.`} error={errors.fields.get("key")}>
          {(props) => <input {...props} type="text" value={key} onChange={(e) => setKey(e.currentTarget.value)} />}
        </FormField>
        <FormField id={`${prefix}-category`} label="Category" error={errors.fields.get("category")}>
          {(props) => <input {...props} type="text" value={category} onChange={(e) => setCategory(e.currentTarget.value)} />}
        </FormField>
      </div>
      <FormField id={`${prefix}-description`} label="Description" error={errors.fields.get("description")}>
        {(props) => <input {...props} type="text" value={description} onChange={(e) => setDescription(e.currentTarget.value)} />}
      </FormField>
      <FormField
        id={`${prefix}-content`}
        label="Content"
        hint="What the command puts into the composer."
        error={errors.fields.get("content")}
      >
        {(props) => <textarea {...props} value={content} onChange={(e) => setContent(e.currentTarget.value)} />}
      </FormField>
      <label className="toggle">
        <input type="checkbox" checked={autoExpand} onChange={(e) => setAutoExpand(e.currentTarget.checked)} /> Expand in place when picked
      </label>
      <label className="toggle">
        <input type="checkbox" checked={autoSubmit} onChange={(e) => setAutoSubmit(e.currentTarget.checked)} /> Send right away when picked
      </label>
      <FormError message={errors.form} />
      <div className="form-actions">
        <button type="submit" disabled={create.isPending || update.isPending}>
          {prompt === undefined ? "Create prompt" : "Save prompt"}
        </button>
        <button type="button" className="quiet" onClick={onDone}>Cancel</button>
      </div>
    </form>
  )
}
