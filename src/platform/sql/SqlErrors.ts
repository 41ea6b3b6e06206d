import type { SqlError } from "@effect/sql/SqlError"

const pgCode = (error: SqlError): unknown =>
  typeof error.cause === "object" && error.cause !== null && "code" in error.cause ? error.cause.code : undefined

/** PostgreSQL's unique_violation (23505), on both node-postgres and PGlite errors. */
export const isUniqueViolation = (error: SqlError): boolean => pgCode(error) === "23505"

/** PostgreSQL's foreign_key_violation (23503): a referenced row went away meanwhile. */
export const isForeignKeyViolation = (error: SqlError): boolean => pgCode(error) === "23503"

/** The constraint or unique index a failed statement violated, when PostgreSQL names one. */
export const violatedConstraint = (error: SqlError): string | undefined =>
  typeof error.cause === "object" && error.cause !== null && "constraint" in error.cause &&
    typeof error.cause.constraint === "string"
    ? error.cause.constraint
    : undefined
