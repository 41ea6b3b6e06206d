import { type FormEvent, useRef, useState } from "react"
import { FormError, FormField } from "../forms/FormField"
import { type FormErrors, formErrorsOf, noFormErrors } from "../forms/fieldErrors"
import { useFocusOnRefusal } from "../forms/useFocusOnRefusal"
import { type Folder, fileTree } from "./fileTree"
import type { SkillToolResult } from "./skillTools"
import { type SkillChange, SavedVersion, useSkillSave } from "./useSkillSave"

type Skill = SkillToolResult<"get_skill">

export const SKILL_MD = "SKILL.md"

const FileLink = ({ path, name, open, onOpen }: {
  readonly path: string
  readonly name: string
  readonly open: string
  readonly onOpen: (path: string) => void
}) => (
  <button type="button" className="file-link" aria-current={path === open ? "true" : undefined} onClick={() => onOpen(path)}>
    {name}
  </button>
)

/** SKILL.md first, then folders, then the other files. */
const FolderView = ({ folder, open, onOpen }: {
  readonly folder: Folder
  readonly open: string
  readonly onOpen: (path: string) => void
}) => (
  <ul className="file-tree">
    {folder.files.filter((file) => file.path === SKILL_MD).map((file) => (
      <li key={file.path}>
        <FileLink path={file.path} name={file.name} open={open} onOpen={onOpen} />
      </li>
    ))}
    {folder.folders.map((sub) => (
      <li key={sub.path}>
        <span className="folder-name">{sub.name}/</span>
        <FolderView folder={sub} open={open} onOpen={onOpen} />
      </li>
    ))}
    {folder.files.filter((file) => file.path !== SKILL_MD).map((file) => (
      <li key={file.path}>
        <FileLink path={file.path} name={file.name} open={open} onOpen={onOpen} />
      </li>
    ))}
  </ul>
)

/** SKILL.md is the Skill's `content`; any other file is written with a `write` edit. */
const changeOf = (path: string, content: string): SkillChange =>
  path === SKILL_MD ? { content } : { edits: [{ op: "write", path, content }] }

/** The open file in a textarea; saving it is one save of the Skill, whose new version is shown. */
const FileEditor = ({ skill, path, content }: { readonly skill: Skill; readonly path: string; readonly content: string }) => {
  const [draft, setDraft] = useState(content)
  // The stored file changed under the editor (a batch of edits, another client): an untouched
  // draft follows it, a draft being typed is kept.
  const [base, setBase] = useState(content)
  if (content !== base) {
    setBase(content)
    if (draft === base) setDraft(content)
  }
  const [errors, setErrors] = useState<FormErrors>(noFormErrors)
  const formRef = useRef<HTMLFormElement>(null)
  useFocusOnRefusal(formRef, errors === noFormErrors ? undefined : errors)
  const { save, saving, version } = useSkillSave(skill.skillId)
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault()
    setErrors(noFormErrors)
    save(changeOf(path, draft), { onError: (error) => setErrors(formErrorsOf(error, ["content", "edits"])) })
  }
  const error = errors.fields.get("content") ?? errors.fields.get("edits")
  return (
    <form ref={formRef} className="editor-form file-editor" onSubmit={submit} noValidate aria-label={`Edit ${path}`}>
      <FormField id="skill-file-content" label={path} error={error}>
        {(props) => <textarea {...props} className="code" value={draft} onChange={(e) => setDraft(e.currentTarget.value)} />}
      </FormField>
      <FormError message={errors.form} />
      <div className="form-actions">
        <button type="submit" disabled={saving}>Save {path}</button>
        <SavedVersion version={version} />
      </div>
    </form>
  )
}

/** Adds a file with a `write` edit; a bad path or a cap is the tool's refusal, shown on the path. */
const NewFile = ({ skill, onAdded }: { readonly skill: Skill; readonly onAdded: (path: string) => void }) => {
  const [path, setPath] = useState("")
  const [content, setContent] = useState("")
  const [errors, setErrors] = useState<FormErrors>(noFormErrors)
  const formRef = useRef<HTMLFormElement>(null)
  useFocusOnRefusal(formRef, errors === noFormErrors ? undefined : errors)
  const { save, saving, version } = useSkillSave(skill.skillId)
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault()
    setErrors(noFormErrors)
    save({ edits: [{ op: "write", path, content }] }, {
      onAnswer: () => {
        onAdded(path)
        setPath("")
        setContent("")
      },
      onError: (error) => setErrors(formErrorsOf(error, ["edits"]))
    })
  }
  return (
    <form ref={formRef} className="editor-form" onSubmit={submit} noValidate aria-labelledby="new-file-heading">
      <h3 id="new-file-heading">New file</h3>
      <FormField id="new-file-path" label="Path" hint="Relative, with / between folders: scripts/run.sh" error={errors.fields.get("edits")}>
        {(props) => <input {...props} type="text" value={path} onChange={(e) => setPath(e.currentTarget.value)} />}
      </FormField>
      <FormField id="new-file-content" label="Content" error={undefined}>
        {(props) => <textarea {...props} className="code" value={content} onChange={(e) => setContent(e.currentTarget.value)} />}
      </FormField>
      <FormError message={errors.form} />
      <div className="form-actions">
        <button type="submit" disabled={saving || path.trim() === ""}>Add file</button>
        <SavedVersion version={version} />
      </div>
    </form>
  )
}

/** The Skill's file tree beside the open file's editor, and a form to add a file. */
export const SkillFiles = ({ skill }: { readonly skill: Skill }) => {
  const [open, setOpen] = useState(SKILL_MD)
  const contents = new Map([[SKILL_MD, skill.skillMd], ...skill.files.map((file) => [file.path, file.content] as const)])
  const shown = contents.has(open) ? open : SKILL_MD
  return (
    <section className="page-section" aria-labelledby="skill-files-heading">
      <h2 id="skill-files-heading">Files</h2>
      <div className="skill-files">
        <nav aria-label="Files of the Skill" className="tree-panel">
          <FolderView folder={fileTree([...contents.keys()])} open={shown} onOpen={setOpen} />
        </nav>
        <FileEditor key={shown} skill={skill} path={shown} content={contents.get(shown) ?? ""} />
      </div>
      <NewFile skill={skill} onAdded={setOpen} />
    </section>
  )
}
