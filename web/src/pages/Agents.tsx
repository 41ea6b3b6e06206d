import { useState } from "react"
import { AgentForm } from "../agents/AgentForm"
import { type AgentToolResult, useToolQuery } from "../agents/agentTools"
import { describeError } from "../lib/api"
import { useReloadOnChange } from "../lib/projectChanges"
import "../forms/forms.css"

type Agent = AgentToolResult<"list_project_agents">["agents"][number]

/** The palette's names as CSS colors, for the swatch beside an agent's name. */
const SWATCH: Record<Agent["appearance"]["color"], string> = {
  gray: "#8a8f98",
  red: "#d64545",
  orange: "#e07b2a",
  yellow: "#d8b21e",
  green: "#3a9d5d",
  teal: "#2a9d99",
  blue: "#3a72d6",
  indigo: "#5b5bd6",
  purple: "#8e4ec6",
  pink: "#d6458f"
}

const automationSummary = (agent: Agent): string => {
  const automation = agent.automation
  if (automation === null) return "No automation"
  if (!automation.enabled) return "Automation off"
  const parts = [automation.cliType, automation.cliModel, automation.mode, automation.workspace].filter((part) => part !== undefined)
  return parts.length === 0 ? "Offers a thread on delegation" : `Offers a thread on delegation: ${parts.join(" · ")}`
}

const AgentItem = ({ projectId, agent }: { readonly projectId: string; readonly agent: Agent }) => {
  const [editing, setEditing] = useState(false)
  const headingId = `agent-heading-${agent.projectAgentId}`
  return (
    <li className="item">
      <article aria-labelledby={headingId}>
        <div className="item-head">
          <span className="swatch" style={{ background: SWATCH[agent.appearance.color] }} aria-hidden="true" />
          <h3 id={headingId}>{agent.name}</h3>
          {agent.category === null ? null : <span className="badge">{agent.category}</span>}
          {editing ? null : (
            <button type="button" className="quiet" onClick={() => setEditing(true)} aria-label={`Edit ${agent.name}`}>
              Edit
            </button>
          )}
        </div>
        {agent.description === null ? null : <p>{agent.description}</p>}
        <p className="meta">{automationSummary(agent)}</p>
        {editing ? <AgentForm projectId={projectId} agent={agent} onDone={() => setEditing(false)} /> : null}
      </article>
    </li>
  )
}

/** The project's agents (the ones tasks are delegated to): listed, created and edited. */
export const AgentsPage = ({ projectId }: { readonly projectId: string }) => {
  const agents = useToolQuery("list_project_agents", { projectId })
  const refetch = agents.refetch
  useReloadOnChange(() => void refetch(), { agents: true }, 500)
  const [creating, setCreating] = useState(false)
  return (
    <section className="settings-page" aria-labelledby="agents-heading">
      <div className="page-head">
        <h1 id="agents-heading">Agents</h1>
        {creating ? null : <button type="button" onClick={() => setCreating(true)}>New agent</button>}
      </div>
      <p className="hint">Agents tasks can be delegated to. Their working prompt goes with each thread started with them.</p>
      {creating ? <AgentForm projectId={projectId} onDone={() => setCreating(false)} /> : null}
      {agents.isPending ? <p className="page-status" role="status">Loading…</p> : null}
      {agents.isError ? <p className="field-error" role="alert">{describeError(agents.error)}</p> : null}
      {agents.data === undefined ? null : agents.data.agents.length === 0
        ? <p className="page-status">No agents yet.</p>
        : (
          <ul className="item-list page-section" aria-label="Agents">
            {agents.data.agents.map((agent) => <AgentItem key={agent.projectAgentId} projectId={projectId} agent={agent} />)}
          </ul>
        )}
    </section>
  )
}
