import { Option, Schema } from "effect"
import { LastChoice } from "./draft"

export type { LastChoice }

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
