import type { CliPath } from "../../../catalog/domain/CliProfile.js"
import type { Draft } from "./draft"
import { Field, fieldId } from "./Field"
import type { FieldErrors } from "./fieldErrors"

/**
 * A fresh git worktree for the thread, made by the CLI beside the chosen checkout when it claims
 * the thread (docs/agents.md): the checkout is its parent, so the parent is shown, not chosen.
 */
export const WorktreeFields = ({ draft, path, errors, change }: {
  readonly draft: Draft
  readonly path: CliPath | undefined
  readonly errors: FieldErrors
  readonly change: (patch: Partial<Draft>, fields: ReadonlyArray<string>) => void
}) => {
  const parentError = errors.fields.get("worktree.parentPathId") ?? errors.fields.get("worktree")
  const parentId = fieldId("worktree.parentPathId")
  const originId = fieldId("worktree.startFromOrigin")
  const originError = errors.fields.get("worktree.startFromOrigin")
  return (
    <fieldset className="group">
      <legend>Worktree</legend>
      <label className="toggle">
        <input
          type="checkbox"
          checked={draft.worktree}
          onChange={(event) =>
            change({ worktree: event.currentTarget.checked }, [
              "worktree",
              "worktree.parentPathId",
              "worktree.branch",
              "worktree.baseRef",
              "worktree.startFromOrigin"
            ])}
        />
        Run in a new git worktree
      </label>
      {draft.worktree ?
        (
          <>
            <p id={parentId} className="worktree-parent">
              Parent repository: <code>{path?.path ?? "no checkout chosen"}</code>
            </p>
            {parentError !== undefined ? <p id={`${parentId}-error`} className="field-error" role="alert">{parentError}</p> : null}
            <Field
              name="worktree.branch"
              label="Branch"
              error={errors.fields.get("worktree.branch")}
              hint="A new branch for the worktree, as git names it (feature/login)."
            >
              {(control) => (
                <input
                  {...control}
                  type="text"
                  spellCheck={false}
                  autoComplete="off"
                  autoCapitalize="none"
                  value={draft.branch}
                  onChange={(event) => change({ branch: event.currentTarget.value }, ["worktree.branch"])}
                />
              )}
            </Field>
            <Field
              name="worktree.baseRef"
              label="Base (optional)"
              error={errors.fields.get("worktree.baseRef")}
              hint="The ref to start from; empty means the repository's current HEAD."
            >
              {(control) => (
                <input
                  {...control}
                  type="text"
                  spellCheck={false}
                  autoComplete="off"
                  autoCapitalize="none"
                  value={draft.baseRef}
                  onChange={(event) => change({ baseRef: event.currentTarget.value }, ["worktree.baseRef"])}
                />
              )}
            </Field>
            <label className="toggle" htmlFor={originId}>
              <input
                id={originId}
                type="checkbox"
                checked={draft.startFromOrigin}
                aria-invalid={originError !== undefined}
                aria-describedby={originError === undefined ? undefined : `${originId}-error`}
                onChange={(event) => change({ startFromOrigin: event.currentTarget.checked }, ["worktree.startFromOrigin"])}
              />
              Start from the remote's copy (origin)
            </label>
            {originError !== undefined ? <p id={`${originId}-error`} className="field-error">{originError}</p> : null}
          </>
        ) :
        null}
    </fieldset>
  )
}
