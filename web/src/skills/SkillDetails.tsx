import { type FormEvent, useRef, useState } from "react"
import { SKILL_NAME_RULE } from "../../../catalog/domain/Skill.js"
import { FormError, FormField } from "../forms/FormField"
import { type FormErrors, formErrorsOf, noFormErrors } from "../forms/fieldErrors"
import { useFocusOnRefusal } from "../forms/useFocusOnRefusal"
import type { SkillToolResult } from "./skillTools"
import { SavedVersion, useSkillSave } from "./useSkillSave"

type Skill = SkillToolResult<"get_skill">

const SHOWN = ["name", "description", "category"]
const textOrNull = (text: string) => text.trim() === "" ? null : text

/** A Skill's name, description and category, saved together as one version. */
export const SkillDetails = ({ skill }: { readonly skill: Skill }) => {
  const [name, setName] = useState(skill.name)
  const [description, setDescription] = useState(skill.description ?? "")
  const [category, setCategory] = useState(skill.category ?? "")
  const [errors, setErrors] = useState<FormErrors>(noFormErrors)
  const formRef = useRef<HTMLFormElement>(null)
  useFocusOnRefusal(formRef, errors === noFormErrors ? undefined : errors)
  const { save, saving, version } = useSkillSave(skill.skillId)
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault()
    setErrors(noFormErrors)
    save({ name, description: textOrNull(description), category: textOrNull(category) }, {
      onError: (error) => setErrors(formErrorsOf(error, SHOWN))
    })
  }
  return (
    <form ref={formRef} className="editor-form" onSubmit={submit} noValidate aria-labelledby="skill-details-heading">
      <h2 id="skill-details-heading">Details</h2>
      <div className="form-grid">
        <FormField id="skill-name" label="Name" hint={SKILL_NAME_RULE} error={errors.fields.get("name")}>
          {(props) => <input {...props} type="text" value={name} onChange={(e) => setName(e.currentTarget.value)} />}
        </FormField>
        <FormField id="skill-category" label="Category" error={errors.fields.get("category")}>
          {(props) => <input {...props} type="text" value={category} onChange={(e) => setCategory(e.currentTarget.value)} />}
        </FormField>
      </div>
      <FormField id="skill-description" label="Description" error={errors.fields.get("description")}>
        {(props) => <input {...props} type="text" value={description} onChange={(e) => setDescription(e.currentTarget.value)} />}
      </FormField>
      <FormError message={errors.form} />
      <div className="form-actions">
        <button type="submit" disabled={saving}>Save details</button>
        <SavedVersion version={version} />
      </div>
    </form>
  )
}
