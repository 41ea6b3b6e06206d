import { type FormEvent, useRef, useState } from "react"
import { AgentColor, type AgentAutomation, AgentWorkspace } from "../../../catalog/domain/ProjectAgent.js"
import { CliType } from "../../../catalog/domain/CliType.js"
import { FormError, FormField } from "../forms/FormField"
import { type FormErrors, formErrorsOf, noFormErrors } from "../forms/fieldErrors"
import { useFocusOnRefusal } from "../forms/useFocusOnRefusal"
import { type AgentToolResult, useToolMutation } from "./agentTools"

type Agent = AgentToolResult<"list_project_agents">["agents"][number]

/** The form's fields as typed; empty text is "not set". */
interface Draft {
  readonly name: string
  readonly description: string
  readonly category: string
  readonly prompt: string
  readonly color: AgentColor
  readonly automationEnabled: boolean
  readonly automationPrompt: string
  readonly cliType: string
  readonly cliModel: string
  readonly cliEffort: string
  readonly mode: string
  readonly workspace: string
}

const draftOf = (agent: Agent | undefined): Draft => ({
  name: agent?.name ?? "",
  description: agent?.description ?? "",
  category: agent?.category ?? "",
  prompt: agent?.prompt ?? "",
  color: agent?.appearance.color ?? "blue",
  automationEnabled: agent?.automation?.enabled ?? false,
  automationPrompt: agent?.automation?.prompt ?? "",
  cliType: agent?.automation?.cliType ?? "",
  cliModel: agent?.automation?.cliModel ?? "",
  cliEffort: agent?.automation?.cliEffort ?? "",
  mode: agent?.automation?.mode ?? "",
  workspace: agent?.automation?.workspace ?? ""
})

const textOrNull = (text: string) => text.trim() === "" ? null : text
const optionalText = (text: string) => text.trim() === "" ? undefined : text.trim()

const isCliType = (value: string): value is CliType => CliType.literals.some((literal) => literal === value)
const isWorkspace = (value: string): value is AgentWorkspace => AgentWorkspace.literals.some((literal) => literal === value)
const isColor = (value: string): value is AgentColor => AgentColor.literals.some((literal) => literal === value)

/** SPEC's automation config, or null when nothing of it is set (no config at all). */
const automationOf = (draft: Draft): AgentAutomation | null => {
  const optional = {
    prompt: optionalText(draft.automationPrompt),
    cliType: isCliType(draft.cliType) ? draft.cliType : undefined,
    cliModel: optionalText(draft.cliModel),
    cliEffort: optionalText(draft.cliEffort),
    mode: optionalText(draft.mode),
    workspace: isWorkspace(draft.workspace) ? draft.workspace : undefined
  }
  const set = Object.fromEntries(Object.entries(optional).filter(([, value]) => value !== undefined))
  if (!draft.automationEnabled && Object.keys(set).length === 0) return null
  return { enabled: draft.automationEnabled, ...set }
}

const SHOWN = ["name", "description", "category", "prompt", "appearance", "automation"]

/**
 * Creates an agent (`agent` undefined) or edits one: name, description, category, working prompt,
 * its palette color and the automation the web UI offers on delegation. A refusal is shown on the
 * field it names.
 */
export const AgentForm = ({ projectId, agent, onDone }: {
  readonly projectId: string
  readonly agent?: Agent
  readonly onDone: () => void
}) => {
  const [draft, setDraft] = useState<Draft>(() => draftOf(agent))
  const [errors, setErrors] = useState<FormErrors>(noFormErrors)
  const formRef = useRef<HTMLFormElement>(null)
  useFocusOnRefusal(formRef, errors === noFormErrors ? undefined : errors)
  const create = useToolMutation("create_project_agent")
  const update = useToolMutation("update_project_agent")
  const prefix = agent === undefined ? "new-agent" : `agent-${agent.projectAgentId}`
  const set = (patch: Partial<Draft>) => setDraft((current) => ({ ...current, ...patch }))
  const busy = create.isPending || update.isPending

  const handlers = {
    onSuccess: () => {
      void create.client.invalidateQueries({ queryKey: ["list_project_agents"] })
      onDone()
    },
    onError: (error: Parameters<typeof formErrorsOf>[0]) => setErrors(formErrorsOf(error, SHOWN))
  }
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault()
    setErrors(noFormErrors)
    const fields = {
      name: draft.name,
      description: textOrNull(draft.description),
      category: textOrNull(draft.category),
      prompt: textOrNull(draft.prompt),
      appearance: { color: draft.color },
      automation: automationOf(draft)
    }
    if (agent === undefined) create.mutate({ projectId, ...fields }, handlers)
    else update.mutate({ projectAgentId: agent.projectAgentId, ...fields }, handlers)
  }
  const error = (name: string) => errors.fields.get(name)

  return (
    <form
      ref={formRef}
      className="editor-form"
      onSubmit={submit}
      noValidate
      aria-label={agent === undefined ? "New agent" : `Edit ${agent.name}`}
    >
      <div className="form-grid">
        <FormField id={`${prefix}-name`} label="Name" error={error("name")}>
          {(props) => <input {...props} type="text" value={draft.name} onChange={(e) => set({ name: e.currentTarget.value })} />}
        </FormField>
        <FormField id={`${prefix}-category`} label="Category" error={error("category")}>
          {(props) => <input {...props} type="text" value={draft.category} onChange={(e) => set({ category: e.currentTarget.value })} />}
        </FormField>
        <FormField id={`${prefix}-color`} label="Color" error={error("appearance")}>
          {(props) => (
            <select
              {...props}
              value={draft.color}
              onChange={(e) => {
                const value = e.currentTarget.value
                if (isColor(value)) set({ color: value })
              }}
            >
              {AgentColor.literals.map((color) => <option key={color} value={color}>{color}</option>)}
            </select>
          )}
        </FormField>
      </div>
      <FormField id={`${prefix}-description`} label="Description" error={error("description")}>
        {(props) => (
          <input
            {...props}
            type="text"
            value={draft.description}
            onChange={(e) => set({ description: e.currentTarget.value })}
          />
        )}
      </FormField>
      <FormField
        id={`${prefix}-prompt`}
        label="Working prompt"
        hint="Snapshotted onto each thread started with this agent."
        error={error("prompt")}
      >
        {(props) => <textarea {...props} value={draft.prompt} onChange={(e) => set({ prompt: e.currentTarget.value })} />}
      </FormField>
      <fieldset>
        <legend>Automation</legend>
        <p className="hint">
          When a task is delegated to this agent in the web app, offer a thread prefilled with these settings. Delegating through tools or
          the CLI never starts one.
        </p>
        <label className="toggle">
          <input
            type="checkbox"
            checked={draft.automationEnabled}
            onChange={(e) => set({ automationEnabled: e.currentTarget.checked })}
          />{" "}
          Offer a thread on delegation
        </label>
        {error("automation") === undefined ? null : <p className="field-error">{error("automation")}</p>}
        <FormField id={`${prefix}-automation-prompt`} label="First message" error={undefined}>
          {(props) => (
            <textarea
              {...props}
              value={draft.automationPrompt}
              onChange={(e) => set({ automationPrompt: e.currentTarget.value })}
            />
          )}
        </FormField>
        <div className="form-grid">
          <FormField id={`${prefix}-cli-type`} label="Runtime" error={undefined}>
            {(props) => (
              <select {...props} value={draft.cliType} onChange={(e) => set({ cliType: e.currentTarget.value })}>
                <option value="">Not set</option>
                {CliType.literals.map((type) => <option key={type} value={type}>{type}</option>)}
              </select>
            )}
          </FormField>
          <FormField id={`${prefix}-cli-model`} label="Model" error={undefined}>
            {(props) => <input {...props} type="text" value={draft.cliModel} onChange={(e) => set({ cliModel: e.currentTarget.value })} />}
          </FormField>
          <FormField id={`${prefix}-cli-effort`} label="Effort" error={undefined}>
            {(props) => (
              <input
                {...props}
                type="text"
                value={draft.cliEffort}
                onChange={(e) => set({ cliEffort: e.currentTarget.value })}
              />
            )}
          </FormField>
          <FormField id={`${prefix}-mode`} label="Mode" hint="For example plan" error={undefined}>
            {(props) => <input {...props} type="text" value={draft.mode} onChange={(e) => set({ mode: e.currentTarget.value })} />}
          </FormField>
          <FormField id={`${prefix}-workspace`} label="Workspace" error={undefined}>
            {(props) => (
              <select {...props} value={draft.workspace} onChange={(e) => set({ workspace: e.currentTarget.value })}>
                <option value="">Not set</option>
                <option value="local">The checkout (local)</option>
                <option value="worktree">A fresh git worktree</option>
              </select>
            )}
          </FormField>
        </div>
      </fieldset>
      <FormError message={errors.form} />
      <div className="form-actions">
        <button type="submit" disabled={busy}>{agent === undefined ? "Create agent" : "Save agent"}</button>
        <button type="button" className="quiet" onClick={onDone}>Cancel</button>
      </div>
    </form>
  )
}
