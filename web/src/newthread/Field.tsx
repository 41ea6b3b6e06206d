import type { ReactNode } from "react"

/** What a field's control carries so that its label, hint and error are read with it. */
export interface ControlProps {
  readonly id: string
  readonly "aria-invalid": boolean
  readonly "aria-describedby": string | undefined
}

export const fieldId = (name: string) => `new-thread-${name.replace(/[.]/g, "-")}`

/**
 * One labelled control with its hint and the server's error for the argument it sends (`name`,
 * as create_thread names it: `title`, `worktree.branch`…).
 */
export const Field = ({ name, label, hint, error, className, children }: {
  readonly name: string
  readonly label: string
  readonly hint?: ReactNode
  readonly error: string | undefined
  readonly className?: string
  readonly children: (props: ControlProps) => ReactNode
}) => {
  const id = fieldId(name)
  const described = [error === undefined ? undefined : `${id}-error`, hint === undefined ? undefined : `${id}-hint`].filter((part) =>
    part !== undefined
  )
  return (
    <div className={className === undefined ? "field" : `field ${className}`}>
      <label htmlFor={id}>{label}</label>
      {children({ id, "aria-invalid": error !== undefined, "aria-describedby": described.length === 0 ? undefined : described.join(" ") })}
      {error !== undefined ? <p id={`${id}-error`} className="field-error">{error}</p> : null}
      {hint !== undefined ? <p id={`${id}-hint`} className="hint">{hint}</p> : null}
    </div>
  )
}
