import { Option, Schema } from "effect"

/**
 * What the person chose for their last new thread in a project, kept in localStorage to prefill
 * the next one: where and how it ran, never what it said (no content, title or task) and nothing
 * secret.
 */
export const LastChoice = Schema.Struct({
  profileId: Schema.String,
  pathId: Schema.String,
  cliType: Schema.String,
  cliModel: Schema.String,
  cliEffort: Schema.String,
  cliMode: Schema.String
})
export type LastChoice = typeof LastChoice.Type

const keyOf = (projectId: string) => `trellis:new-thread:${projectId}`
const decode = Schema.decodeUnknownOption(Schema.parseJson(LastChoice))

export const readLastChoice = (projectId: string): LastChoice | undefined => {
  try {
    return Option.getOrUndefined(decode(window.localStorage.getItem(keyOf(projectId)) ?? ""))
  } catch {
    // Storage can be refused (a private window's quota, a policy): there is simply nothing to prefill.
    return undefined
  }
}

export const saveLastChoice = (projectId: string, choice: LastChoice): void => {
  try {
    window.localStorage.setItem(keyOf(projectId), JSON.stringify(choice))
  } catch {
    // Not remembering a choice is harmless.
  }
}
