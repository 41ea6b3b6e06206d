import { type RefObject, useEffect } from "react"

/**
 * After a refusal, the first field it names takes the focus (else the form's message), so a
 * keyboard or screen-reader user lands on what to fix. `refusal` changes with each refusal shown.
 */
export const useFocusOnRefusal = (form: RefObject<HTMLFormElement | null>, refusal: unknown) =>
  useEffect(() => {
    if (refusal === undefined) return
    form.current?.querySelector<HTMLElement>("[aria-invalid='true'], .edit-row.invalid .field-error, .form-error")?.focus()
  }, [refusal])
