import type { ReactNode } from "react"

/** What a field's control carries so that its label, hint and error are read with it. */
export interface ControlProps {
  readonly id: string
  readonly "aria-invalid": boolean
  readonly "aria-describedby": string | undefined
}

/**
 * One labelled control with its hint and the server's error for the argument it sends; `id` is
 * unique on the page (a form's prefix and the argument's name).
 */
export const FormField = ({ id, label, hint, error, children }: {
  readonly id: string
  readonly label: string
  readonly hint?: ReactNode
  readonly error: string | undefined
  readonly children: (props: ControlProps) => ReactNode
}) => {
  const described = [error === undefined ? undefined : `${id}-error`, hint === undefined ? undefined : `${id}-hint`].filter((part) =>
    part !== undefined
  )
  return (
    <div className="form-field">
      <label htmlFor={id}>{label}</label>
      {children({ id, "aria-invalid": error !== undefined, "aria-describedby": described.length === 0 ? undefined : described.join(" ") })}
      {error !== undefined ? <p id={`${id}-error`} className="field-error">{error}</p> : null}
      {hint !== undefined ? <p id={`${id}-hint`} className="hint">{hint}</p> : null}
    </div>
  )
}

/** A refusal that names no field of the form: read out when it appears. */
export const FormError = ({ message }: { readonly message: string | undefined }) =>
  message === undefined ? null : <p className="form-error field-error" role="alert" tabIndex={-1}>{message}</p>
