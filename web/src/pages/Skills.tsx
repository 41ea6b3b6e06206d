import { useState } from "react"
import { describeError } from "../lib/api"
import { useReloadOnChange } from "../lib/projectChanges"
import { followLink, skillPath } from "../lib/router"
import { NewSkillForm, type SkillOwner } from "../skills/NewSkillForm"
import { useToolQuery } from "../skills/skillTools"
import "../forms/forms.css"

/** The Skills of one scope, each a link to its page; a scope the key cannot reach says so. */
const SkillScope = ({ projectId, owner, title, id }: {
  readonly projectId: string
  readonly owner: SkillOwner
  readonly title: string
  readonly id: string
}) => {
  const skills = useToolQuery("list_skills", owner)
  const refetch = skills.refetch
  useReloadOnChange(() => void refetch(), { skills: true }, 500)
  const [creating, setCreating] = useState(false)
  return (
    <section className="page-section" aria-labelledby={id}>
      <div className="page-head">
        <h2 id={id}>{title}</h2>
        {creating || !skills.isSuccess ? null : <button type="button" onClick={() => setCreating(true)}>New {owner.scope} Skill</button>}
      </div>
      {creating ? <NewSkillForm projectId={projectId} owner={owner} onDone={() => setCreating(false)} /> : null}
      {skills.isPending ? <p className="page-status" role="status">Loading…</p> : null}
      {skills.isError ? <p className="page-status">Out of this key's reach: {describeError(skills.error)}</p> : null}
      {skills.data === undefined ? null : skills.data.skills.length === 0
        ? <p className="page-status">No {owner.scope} Skills yet.</p>
        : (
          <ul className="item-list" aria-label={title}>
            {skills.data.skills.map((skill) => (
              <li key={skill.skillId} className="item">
                <div className="item-head">
                  <a className="item-title" href={skillPath(projectId, skill.skillId)} onClick={followLink}>{skill.name}</a>
                  <span className="badge">version {skill.version}</span>
                  {skill.category === null ? null : <span className="badge">{skill.category}</span>}
                </div>
                {skill.description === null ? null : <p>{skill.description}</p>}
                {skill.extensionProblem === null ? null : <p className="hint">Not served to MCP clients: {skill.extensionProblem}</p>}
              </li>
            ))}
          </ul>
        )}
    </section>
  )
}

/** Skills (SKILL.md and its files): the project's and its organization's, as far as the key reaches. */
export const SkillsPage = ({ projectId }: { readonly projectId: string }) => {
  const projects = useToolQuery("list_projects", {})
  const organization = projects.data?.projects.find((project) => project.projectId === projectId)?.organization
  return (
    <section className="settings-page" aria-labelledby="skills-heading">
      <div className="page-head">
        <h1 id="skills-heading">Skills</h1>
      </div>
      <p className="hint">A Skill is a SKILL.md and the files beside it. Each save makes a new version.</p>
      <SkillScope projectId={projectId} owner={{ scope: "project", projectId }} title="This project" id="project-skills" />
      {organization === undefined ? null : (
        <SkillScope
          projectId={projectId}
          owner={{ scope: "organization", organization: organization.organizationId }}
          title={`Organization ${organization.name}`}
          id="organization-skills"
        />
      )}
    </section>
  )
}
