import { describeError } from "../lib/api"
import { useReloadOnChange } from "../lib/projectChanges"
import { followLink, skillsPath } from "../lib/router"
import { DeleteSkill } from "../skills/DeleteSkill"
import { SkillDetails } from "../skills/SkillDetails"
import { SkillEdits } from "../skills/SkillEdits"
import { SKILL_MD, SkillFiles } from "../skills/SkillFiles"
import { useToolQuery } from "../skills/skillTools"
import "../forms/forms.css"

/** One Skill: its version, details, file tree with the open file's editor, a batch of edits, and deleting it. */
export const SkillPage = ({ projectId, skillId }: { readonly projectId: string; readonly skillId: string }) => {
  const skill = useToolQuery("get_skill", { skillId })
  const refetch = skill.refetch
  useReloadOnChange(() => void refetch(), { skills: true }, 500)
  return (
    <div className="skill-page">
      <a className="back" href={skillsPath(projectId)} onClick={followLink}>← Skills</a>
      {skill.isPending ? <p className="page-status" role="status">Loading…</p> : null}
      {skill.isError ? <p className="field-error" role="alert">{describeError(skill.error)}</p> : null}
      {skill.data === undefined ? null : (
        <>
          <div className="skill-head">
            <h1>{skill.data.name}</h1>
            <span className="badge">{skill.data.scope}</span>
            <span className="badge" aria-live="polite">version {skill.data.version}</span>
          </div>
          {skill.data.extensionProblem === null ? null : <p className="hint">Not served to MCP clients: {skill.data.extensionProblem}</p>}
          <SkillDetails key={`details-${skill.data.skillId}`} skill={skill.data} />
          <SkillFiles skill={skill.data} />
          <SkillEdits skillId={skill.data.skillId} paths={[SKILL_MD, ...skill.data.files.map((file) => file.path)]} />
          <DeleteSkill projectId={projectId} skillId={skill.data.skillId} name={skill.data.name} />
        </>
      )}
    </div>
  )
}
