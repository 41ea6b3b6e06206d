import type { InteractionOutcome } from "./Runtime.js"

/**
 * "Allow always" (catalog/domain/Interaction.ts, `standingRule`): what each runtime offers as a
 * standing rule with a permission request, said in words exactly, and the runtime's own reply that
 * adds it. A runtime that offers none gets no second choice.
 */

type Json = Record<string, unknown>
const record = (value: unknown): Json => (typeof value === "object" && value !== null && !Array.isArray(value) ? Object(value) : {})
const strings = (
  value: unknown
): ReadonlyArray<string> => (Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : [])

/** The person chose "Allow always". */
export const wantsAlways = (outcome: InteractionOutcome): boolean =>
  outcome._tag === "Answered" && record(outcome.answer)["always"] === true

/** Where Claude Code keeps a rule, as its `destination` names it. */
const CLAUDE_DESTINATIONS: Readonly<Record<string, string>> = {
  localSettings: "saved in this checkout's .claude/settings.local.json, for every later run here",
  projectSettings: "saved in this checkout's .claude/settings.json, for everyone who runs Claude Code here",
  userSettings: "saved in your ~/.claude/settings.json, for every project on this machine",
  session: "for the rest of this run only"
}

/**
 * Claude Code's `permission_suggestions` that add allow rules (`Bash(touch x)`): the standing rule
 * offered, and the `updatedPermissions` that add it. Other suggestions (directories, modes) are
 * not offered: "allow always" means this kind of call, nothing wider.
 */
export const claudeStandingRule = (
  request: Json
): { readonly words: string; readonly updatedPermissions: ReadonlyArray<Json> } | undefined => {
  const suggestions = (Array.isArray(request["permission_suggestions"]) ? request["permission_suggestions"] : [])
    .map(record)
    .filter((s) => s["type"] === "addRules" && s["behavior"] === "allow" && Array.isArray(s["rules"]) && s["rules"].length > 0)
  if (suggestions.length === 0) return undefined
  const words = suggestions.map((s) => {
    const rules = (Array.isArray(s["rules"]) ? s["rules"] : []).map(record).map((rule) => {
      const tool = String(rule["toolName"] ?? "")
      return typeof rule["ruleContent"] === "string" && rule["ruleContent"] !== ""
        ? `${tool}(${rule["ruleContent"]})`
        : `every ${tool} call`
    })
    const where = CLAUDE_DESTINATIONS[String(s["destination"] ?? "")] ?? `kept in Claude Code's ${String(s["destination"] ?? "settings")}`
    return `${rules.join(", ")}: ${where}`
  }).join("; ")
  return { words: `Claude Code will allow ${words}.`, updatedPermissions: suggestions }
}

/**
 * Codex's proposed exec-policy amendment: a command prefix Codex then runs without asking, added
 * to its exec policy in CODEX_HOME (every thread on this machine).
 */
export const codexStandingRule = (params: Json): { readonly words: string; readonly amendment: ReadonlyArray<string> } | undefined => {
  const amendment = strings(params["proposedExecpolicyAmendment"])
  if (amendment.length === 0) return undefined
  return {
    words: `Codex will run commands that start with “${
      amendment.join(" ")
    }” without asking: the rule is added to its exec policy on this machine, for every thread.`,
    amendment
  }
}

/**
 * OpenCode's `always` patterns: the same permission for matching calls, which its server then
 * allows without asking while it runs (until `trellis agent` restarts it).
 */
export const openCodeStandingRule = (props: Json): { readonly words: string } | undefined => {
  const patterns = strings(props["always"])
  if (patterns.length === 0) return undefined
  const permission = String(props["permission"] ?? "this tool")
  return {
    words: `OpenCode will allow ${permission} for ${
      patterns.map((p) => `“${p}”`).join(", ")
    } without asking, in this checkout, until trellis agent restarts its server.`
  }
}
