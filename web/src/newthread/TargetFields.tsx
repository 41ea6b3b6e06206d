import type { CliPath, CliProfile } from "../../../catalog/domain/CliProfile.js"
import { ago } from "../lib/format"
import { type Draft, effortOf, modelOf, modeOf, pathsInOrder, type Target } from "./draft"
import { Field } from "./Field"
import type { FieldErrors } from "./fieldErrors"

const machineLabel = (profile: CliProfile) => `${profile.name} (${profile.isOnline ? "online" : "offline"})`

export const pathLabel = (path: CliPath) =>
  `${path.label === "" ? path.path : `${path.label}: ${path.path}`}${
    path.kind === "worktree" ? ` (worktree${path.branch === null ? "" : ` on ${path.branch}`})` : ""
  }`

/** Where the agent runs and how: the machine, its checkout, and a runtime with the model, effort and mode it offers. */
export const TargetFields = ({ draft, target, profiles, errors, change }: {
  readonly draft: Draft
  readonly target: Target
  readonly profiles: ReadonlyArray<CliProfile>
  readonly errors: FieldErrors
  readonly change: (patch: Partial<Draft>, fields: ReadonlyArray<string>) => void
}) => {
  const { profile, path, runtime } = target
  const offline = profile !== undefined && !profile.isOnline
  return (
    <fieldset className="group">
      <legend>Where it runs</legend>
      <Field
        name="profileId"
        label="Machine"
        error={errors.fields.get("profileId")}
        hint={offline
          ? (
            <>
              Offline{profile.lastConnectedAt === null ? "" : `, last connected ${ago(profile.lastConnectedAt)}`}: the thread is queued and
              starts when <code>trellis agent start</code> runs there.
            </>
          )
          : undefined}
      >
        {(control) => (
          <select
            {...control}
            value={profile?.profileId ?? ""}
            onChange={(event) => change({ profileId: event.currentTarget.value }, ["profileId", "pathId", "cliType"])}
          >
            {profiles.map((candidate) => <option key={candidate.profileId} value={candidate.profileId}>{machineLabel(candidate)}</option>)}
          </select>
        )}
      </Field>
      <Field
        name="pathId"
        label="Checkout"
        error={errors.fields.get("pathId")}
        hint={path === undefined
          ? (
            <>
              This machine has no checkout yet: run <code>trellis agent paths add</code> in one.
            </>
          )
          : undefined}
      >
        {(control) => (
          <select
            {...control}
            value={path?.pathId ?? ""}
            onChange={(event) => change({ pathId: event.currentTarget.value }, ["pathId", "worktree.parentPathId"])}
          >
            {pathsInOrder(profile?.paths ?? []).map((candidate) => (
              <option key={candidate.pathId} value={candidate.pathId}>{pathLabel(candidate)}</option>
            ))}
          </select>
        )}
      </Field>
      <Field
        name="cliType"
        label="Runtime"
        error={errors.fields.get("cliType")}
        hint={target.reported
          ? undefined
          : "This machine has not reported its runtimes yet (it does when trellis agent start runs); these are the ones Trellis runs."}
      >
        {(control) => (
          <select
            {...control}
            value={runtime?.type ?? ""}
            onChange={(event) => change({ cliType: event.currentTarget.value }, ["cliType", "cliModel", "cliEffort"])}
          >
            {target.runtimes.map((candidate) => (
              <option key={candidate.type} value={candidate.type}>
                {candidate.version === "" ? candidate.type : `${candidate.type} ${candidate.version}`}
              </option>
            ))}
          </select>
        )}
      </Field>
      <Field
        name="cliModel"
        label="Model"
        error={errors.fields.get("cliModel")}
        hint={target.models.length === 0 ? "This runtime lists no models: leave empty for its default, or type one it knows." : undefined}
      >
        {(control) =>
          target.models.length === 0
            ? (
              <input
                {...control}
                type="text"
                spellCheck={false}
                autoComplete="off"
                value={modelOf(draft, target)}
                onChange={(event) => change({ cliModel: event.currentTarget.value }, ["cliModel"])}
              />
            )
            : (
              <select
                {...control}
                value={modelOf(draft, target)}
                onChange={(event) => change({ cliModel: event.currentTarget.value }, ["cliModel", "cliEffort"])}
              >
                <option value="">The runtime's default</option>
                {target.models.map((model) => <option key={model} value={model}>{model}</option>)}
              </select>
            )}
      </Field>
      <Field
        name="cliEffort"
        label="Effort"
        error={errors.fields.get("cliEffort")}
        hint={target.efforts.length === 0 ? "The chosen model reports no effort levels." : undefined}
      >
        {(control) => (
          <select
            {...control}
            value={effortOf(draft, target)}
            disabled={target.efforts.length === 0}
            onChange={(event) => change({ cliEffort: event.currentTarget.value }, ["cliEffort"])}
          >
            <option value="">The model's default</option>
            {target.efforts.map((effort) => <option key={effort} value={effort}>{effort}</option>)}
          </select>
        )}
      </Field>
      <Field
        name="cliMode"
        label="Mode"
        error={errors.fields.get("cliMode")}
        hint={modeOf(draft) === "plan" ? "The agent proposes a plan and waits for your approval before changing anything." : undefined}
      >
        {(control) => (
          <select
            {...control}
            value={modeOf(draft)}
            onChange={(event) => change({ cliMode: event.currentTarget.value }, ["cliMode"])}
          >
            <option value="">Default</option>
            <option value="plan">Plan first</option>
          </select>
        )}
      </Field>
    </fieldset>
  )
}
