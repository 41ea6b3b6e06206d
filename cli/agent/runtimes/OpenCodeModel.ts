/**
 * Which model an OpenCode call names. A prompt without one runs on OpenCode's own default, but
 * `session.summarize` (`/compact`) must name one (1.18.33 refuses it without: "Expected object,
 * got undefined"), so a thread without `cliModel` compacts with the model its session last ran
 * with, else the one OpenCode would pick itself.
 */

export interface ModelRef {
  readonly providerID: string
  readonly modelID: string
}

type Json = Record<string, unknown>
const record = (value: unknown): Json => (typeof value === "object" && value !== null && !Array.isArray(value) ? Object(value) : {})

const ref = (providerID: unknown, modelID: unknown): ModelRef | undefined =>
  typeof providerID === "string" && providerID !== "" && typeof modelID === "string" && modelID !== "" ? { providerID, modelID } : undefined

/** `provider/model` as OpenCode names a model. */
export const modelRef = (model: string | null): ModelRef | undefined => {
  if (model === null) return undefined
  const slash = model.indexOf("/")
  return slash <= 0 ? undefined : ref(model.slice(0, slash), model.slice(slash + 1))
}

/** The model of the session's latest message (`session.messages`): an answer's `providerID`/`modelID`, a prompt's `model`. */
export const lastModelOf = (messages: unknown): ModelRef | undefined =>
  (Array.isArray(messages) ? messages : []).reduce<ModelRef | undefined>((latest, message) => {
    const info = record(record(message)["info"])
    const own = record(info["model"])
    return ref(info["providerID"], info["modelID"]) ?? ref(own["providerID"], own["modelID"]) ?? latest
  }, undefined)

/** The model OpenCode picks itself (`config.get`, `config.providers`): opencode.json's `model`, else the first provider's default. */
export const configuredModel = (config: unknown, providers: unknown): ModelRef | undefined => {
  const configured = record(config)["model"]
  const [first] = Object.entries(record(record(providers)["default"]))
  return (typeof configured === "string" ? modelRef(configured) : undefined) ?? (first === undefined ? undefined : ref(first[0], first[1]))
}
