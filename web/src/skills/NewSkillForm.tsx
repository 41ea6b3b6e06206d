import { type FormEvent, useRef, useState } from "react"
import { SKILL_NAME_RULE } from "../../../catalog/domain/Skill.js"
import { FormError, FormField } from "../forms/FormField"
import { type FormErrors, formErrorsOf, noFormErrors } from "../forms/fieldErrors"
import { useFocusOnRefusal } from "../forms/useFocusOnRefusal"
import { navigate, skillPath } from "../lib/router"
import { useToolMutation } from "./skillTools"

/** Where a new Skill goes: the project, or the organization (by ID). */
export type SkillOwner =
  | { readonly scope: "project"; readonly projectId: string }
  | { readonly scope: "organization"; readonly organization: string }

const SHOWN = ["name", "content", "description", "category"]
const textOrNull = (text: string) => text.trim() === "" ? null : text

/** SKILL.md's frontmatter, which MCP clients need to be served the Skill. */
const template = (name: string, description: string) => `---\nname: ${name}\ndescription: ${description}\n---\n\n`

/** Creates a Skill (version 1) from its SKILL.md, then opens its page. */
export const NewSkillForm = ({ projectId, owner, onDone }: {
  readonly projectId: string
  readonly owner: SkillOwner
  readonly onDone: () => void
}) => {
  const [name, setName] = useState("")
  const [description, setDescription] = useState("")
  const [category, setCategory] = useState("")
  const [content, setContent] = useState<string | undefined>(undefined)
  const [errors, setErrors] = useState<FormErrors>(noFormErrors)
  const formRef = useRef<HTMLFormElement>(null)
  useFocusOnRefusal(formRef, errors === noFormErrors ? undefined : errors)
  const create = useToolMutation("create_skill")
  const prefix = `new-${owner.scope}-skill`
  const skillMd = content ?? template(name, description)
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault()
    setErrors(noFormErrors)
    create.mutate({ ...owner, name, content: skillMd, description: textOrNull(description), category: textOrNull(category) }, {
      onSuccess: ({ skillId }) => {
        void create.client.invalidateQueries({ queryKey: ["list_skills"] })
        navigate(skillPath(projectId, skillId))
      },
      onError: (error) => setErrors(formErrorsOf(error, SHOWN))
    })
  }
  return (
    <form ref={formRef} className="editor-form" onSubmit={submit} noValidate aria-label={`New ${owner.scope} Skill`}>
      <div className="form-grid">
        <FormField id={`${prefix}-name`} label="Name" hint={SKILL_NAME_RULE} error={errors.fields.get("name")}>
          {(props) => <input {...props} type="text" value={name} onChange={(e) => setName(e.currentTarget.value)} />}
        </FormField>
        <FormField id={`${prefix}-category`} label="Category" error={errors.fields.get("category")}>
          {(props) => <input {...props} type="text" value={category} onChange={(e) => setCategory(e.currentTarget.value)} />}
        </FormField>
      </div>
      <FormField id={`${prefix}-description`} label="Description" error={errors.fields.get("description")}>
        {(props) => <input {...props} type="text" value={description} onChange={(e) => setDescription(e.currentTarget.value)} />}
      </FormField>
      <FormField id={`${prefix}-content`} label="SKILL.md" hint="Stored as written; never blank." error={errors.fields.get("content")}>
        {(props) => <textarea {...props} className="code" value={skillMd} onChange={(e) => setContent(e.currentTarget.value)} />}
      </FormField>
      <FormError message={errors.form} />
      <div className="form-actions">
        <button type="submit" disabled={create.isPending}>Create Skill</button>
        <button type="button" className="quiet" onClick={onDone}>Cancel</button>
      </div>
    </form>
  )
}
