/**
 * What a pending interaction asks, read from its `request` as each runtime files it
 * (cli/agent/runtimes/*.ts): Claude `{tool, input, description?, blockedPath?}` (AskUserQuestion
 * adds `questions`), Codex `{tool: "command" | "fileChange", ...params}` or
 * `{tool: "request_user_input", questions}`, OpenCode `{tool, patterns, metadata}` or
 * `{tool: "question", questions}`; a permission may carry the CLI's `standingRule` (Allow always).
 * The request is the runtime's own JSON, so nothing is assumed:
 * a field of an unexpected type is left out and the rest is still shown.
 */

import { STANDING_RULE_FIELD } from "../../../catalog/domain/Interaction.js"

export interface QuestionOption {
  readonly label: string
  readonly description: string | undefined
}

export interface QuestionView {
  /** The runtime's id for the question (Codex), else its position. */
  readonly key: string
  readonly header: string | undefined
  readonly question: string
  readonly options: ReadonlyArray<QuestionOption>
  readonly multiple: boolean
  /** Whether an answer of one's own words is accepted beside the options. */
  readonly freeText: boolean
}

export type RequestView =
  | {
    readonly _tag: "Permission"
    readonly tool: string
    /** The card's question, in the person's words ("Run a command?"), whichever runtime asks. */
    readonly heading: string
    readonly description: string | undefined
    readonly blockedPath: string | undefined
    /** A shell command, shown whole. */
    readonly command: string | undefined
    readonly cwd: string | undefined
    readonly patterns: ReadonlyArray<string>
    /** The tool's input the person approves (Claude's), as pretty JSON ("" when there is nothing more). */
    readonly details: string
    /** The rest of the runtime's request (routing, policy amendments), shown only when opened ("" when none). */
    readonly extras: string
    /** The standing rule the runtime offers ("Allow always"), in words: exactly what it allows. */
    readonly standingRule: string | undefined
  }
  | { readonly _tag: "Plan"; readonly tool: string; readonly plan: string }
  | { readonly _tag: "Question"; readonly tool: string; readonly questions: ReadonlyArray<QuestionView> }

type Json = Readonly<Record<string, unknown>>

const asRecord = (value: unknown): Json =>
  typeof value === "object" && value !== null && !Array.isArray(value) ? Object.fromEntries(Object.entries(value)) : {}

const asString = (value: unknown): string | undefined => (typeof value === "string" && value !== "" ? value : undefined)

/** Codex sends a command as a string or, in older protocols, as argv. */
const asCommand = (value: unknown): string | undefined =>
  Array.isArray(value) && value.every((part) => typeof part === "string") ? value.join(" ") : asString(value)

const withoutKeys = (json: Json, keys: ReadonlyArray<string>): Json =>
  Object.fromEntries(Object.entries(json).filter(([key, value]) => !keys.includes(key) && value !== undefined && value !== null))

const prettyOrEmpty = (json: Json): string => (Object.keys(json).length === 0 ? "" : JSON.stringify(json, null, 2))

const optionsOf = (value: unknown): ReadonlyArray<QuestionOption> =>
  Array.isArray(value)
    ? value.flatMap((option) => {
      const label = asString(asRecord(option)["label"])
      return label === undefined ? [] : [{ label, description: asString(asRecord(option)["description"]) }]
    })
    : []

const questionsOf = (tool: string, value: unknown): ReadonlyArray<QuestionView> =>
  (Array.isArray(value) ? value : []).flatMap((item, index) => {
    const json = asRecord(item)
    const question = asString(json["question"])
    if (question === undefined) return []
    const options = optionsOf(json["options"])
    // Claude's AskUserQuestion always accepts "Other"; OpenCode unless `custom: false`; Codex with
    // `isOther`, or when it offers no options at all.
    const freeText = tool === "request_user_input"
      ? json["isOther"] === true || options.length === 0
      : json["custom"] !== false
    return [{
      key: asString(json["id"]) ?? String(index),
      header: asString(json["header"]),
      question,
      options,
      multiple: json["multiSelect"] === true || json["multiple"] === true,
      freeText
    }]
  })

/** OpenCode's permission names, asked the way a person would be. */
const OPENCODE_HEADINGS: Readonly<Record<string, string>> = {
  bash: "Run a command?",
  edit: "Change files?",
  write: "Change files?",
  patch: "Change files?",
  read: "Read a file?",
  webfetch: "Fetch a web page?",
  websearch: "Search the web?",
  external_directory: "Work outside the project folder?",
  task: "Start a sub-agent?"
}

/** Keys of a Codex approval that only route the reply. */
const CODEX_ROUTING = ["tool", "threadId", "turnId", "itemId", "command", "cwd", "reason"]

export const readRequest = (kind: "permission" | "question", request: unknown): RequestView => {
  const json = asRecord(request)
  const tool = asString(json["tool"]) ?? "a tool"
  if (kind === "question") return { _tag: "Question", tool, questions: questionsOf(tool, json["questions"]) }
  const input = asRecord(json["input"])
  const plan = asString(input["plan"])
  const standingRule = asString(json[STANDING_RULE_FIELD])
  if (tool === "ExitPlanMode" && plan !== undefined) return { _tag: "Plan", tool, plan }
  if (tool === "command" || tool === "fileChange") {
    return {
      _tag: "Permission",
      tool: tool === "command" ? "Run a command" : "Change files",
      heading: tool === "command" ? "Run a command?" : "Change files?",
      description: asString(json["reason"]),
      blockedPath: asString(json["grantRoot"]),
      command: asCommand(json["command"]),
      cwd: asString(json["cwd"]),
      patterns: [],
      details: "",
      extras: prettyOrEmpty(withoutKeys(json, [...CODEX_ROUTING, "grantRoot", STANDING_RULE_FIELD])),
      standingRule
    }
  }
  if ("patterns" in json || "metadata" in json) {
    const patterns = Array.isArray(json["patterns"]) ? json["patterns"].flatMap((p) => (typeof p === "string" ? [p] : [])) : []
    const metadata = asRecord(json["metadata"])
    const command = asCommand(metadata["command"])
    return {
      _tag: "Permission",
      tool,
      heading: OPENCODE_HEADINGS[tool] ?? `Allow ${tool}?`,
      description: asString(metadata["description"]),
      blockedPath: asString(metadata["filepath"]),
      command,
      cwd: undefined,
      // A bash permission's pattern is its command: shown once.
      patterns: patterns.filter((pattern) => pattern !== command),
      details: "",
      extras: prettyOrEmpty(withoutKeys(metadata, ["command", "description", "filepath"])),
      standingRule
    }
  }
  const command = asCommand(input["command"])
  return {
    _tag: "Permission",
    tool,
    heading: `Allow ${tool}?`,
    description: asString(json["description"]) ?? asString(input["description"]),
    blockedPath: asString(json["blockedPath"]),
    command,
    cwd: undefined,
    patterns: [],
    details: prettyOrEmpty(command === undefined ? input : withoutKeys(input, ["command", "description"])),
    extras: "",
    standingRule
  }
}

/** The one-line summary of a request (a notification's body, a settled card's line). */
export const summarize = (view: RequestView): string => {
  switch (view._tag) {
    case "Plan":
      return "Approve a plan"
    case "Question":
      return view.questions[0]?.question ?? "A question"
    case "Permission":
      return view.command === undefined ? view.heading : `${view.tool}: ${view.command}`
  }
}
