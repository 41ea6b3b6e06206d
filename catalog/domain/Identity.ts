import { Schema } from "effect"

export const OrganizationSlug = Schema.String.pipe(
  Schema.pattern(/^[a-z0-9][a-z0-9-]{1,38}[a-z0-9]$/, {
    message: () => "slug must be 3–40 characters of lowercase letters, digits and hyphens, not starting or ending with a hyphen"
  })
)

export const ProjectRef = Schema.String.pipe(
  Schema.pattern(/^[A-Z][A-Z0-9]{1,9}$/, {
    message: () => "ref must be 2–10 uppercase letters or digits, starting with a letter (for example DEMO)"
  })
)

export const DisplayName = (field: string, max: number) =>
  Schema.Trim.pipe(
    Schema.minLength(1, { message: () => `${field} must not be empty` }),
    Schema.maxLength(max, { message: () => `${field} must be at most ${max} characters` })
  )

export const Email = Schema.Trim.pipe(
  Schema.pattern(/^[^\s@]+@[^\s@]+$/, { message: () => "email must look like name@host" })
)
