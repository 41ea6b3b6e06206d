import { useState } from "react"
import { describeError } from "../lib/api"
import { useReloadOnChange } from "../lib/projectChanges"
import { PromptForm, type PromptOwner } from "../prompts/PromptForm"
import { PromptItem } from "../prompts/PromptItem"
import { useToolQuery } from "../prompts/promptTools"
import "../forms/forms.css"

/** The prompts of one scope: listed, created, edited and deleted; a scope the key cannot reach says so. */
const PromptScope = ({ owner, title, id }: { readonly owner: PromptOwner; readonly title: string; readonly id: string }) => {
  const prompts = useToolQuery("list_prompts", owner)
  const refetch = prompts.refetch
  useReloadOnChange(() => void refetch(), { prompts: true }, 500)
  const [creating, setCreating] = useState(false)
  return (
    <section className="page-section" aria-labelledby={id}>
      <div className="page-head">
        <h2 id={id}>{title}</h2>
        {creating || !prompts.isSuccess ? null : <button type="button" onClick={() => setCreating(true)}>New {owner.scope} prompt</button>}
      </div>
      {creating ? <PromptForm owner={owner} onDone={() => setCreating(false)} /> : null}
      {prompts.isPending ? <p className="page-status" role="status">Loading…</p> : null}
      {prompts.isError ? <p className="page-status">Out of this key's reach: {describeError(prompts.error)}</p> : null}
      {prompts.data === undefined ? null : prompts.data.prompts.length === 0
        ? <p className="page-status">No {owner.scope} prompts yet.</p>
        : (
          <ul className="item-list" aria-label={title}>
            {prompts.data.prompts.map((prompt) => <PromptItem key={prompt.promptId} owner={owner} prompt={prompt} />)}
          </ul>
        )}
    </section>
  )
}

/** Slash commands: the project's own and its organization's, as far as the key reaches. */
export const PromptsPage = ({ projectId }: { readonly projectId: string }) => {
  const projects = useToolQuery("list_projects", {})
  const organization = projects.data?.projects.find((project) => project.projectId === projectId)?.organization
  return (
    <section className="settings-page" aria-labelledby="prompts-heading">
      <div className="page-head">
        <h1 id="prompts-heading">Prompts</h1>
      </div>
      <p className="hint">Slash commands people pick in the composer. Deleting one is only possible here, in the web app.</p>
      <PromptScope owner={{ scope: "project", projectId }} title="This project" id="project-prompts" />
      {organization === undefined ? null : (
        <PromptScope
          owner={{ scope: "organization", organization: organization.organizationId }}
          title={`Organization ${organization.name}`}
          id="organization-prompts"
        />
      )}
    </section>
  )
}
