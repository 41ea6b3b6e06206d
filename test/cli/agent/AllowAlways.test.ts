/**
 * "Allow always" from the runtimes' own offers, read from the recorded fixtures: Claude Code's
 * `permission_suggestions`, Codex's `proposedExecpolicyAmendment`, OpenCode's `always`.
 */
import { describe, expect, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import { STANDING_RULE_FIELD } from "../../../catalog/domain/Interaction.js"
import { interactionOf, permissionReply as claudeReply } from "../../../cli/agent/runtimes/ClaudeCode.js"
import { approvalReply } from "../../../cli/agent/runtimes/CodexAppServer.js"
import { permissionReply as openCodeReply } from "../../../cli/agent/runtimes/OpenCode.js"
import { claudeStandingRule, codexStandingRule, openCodeStandingRule } from "../../../cli/agent/runtimes/StandingRules.js"

type Json = Record<string, unknown>
const record = (value: unknown): Json => (typeof value === "object" && value !== null && !Array.isArray(value) ? Object(value) : {})
const fixture = (dir: string, file: string): ReadonlyArray<Json> =>
  fs.readFileSync(path.join(import.meta.dirname, "../../fixtures", dir, file), "utf8").split("\n").filter((l) => l.trim() !== "").map((l) =>
    record(JSON.parse(l))
  )

const claudeRequest = record(
  fixture("claude", "claude-raw-stdio-permission.jsonl").find((l) => l["type"] === "control_request")?.["request"]
)
const codexParams = record(
  fixture("codex", "codex-appserver-raw-approval.jsonl").map((l) => record(l["msg"])).find((m) =>
    m["method"] === "item/commandExecution/requestApproval"
  )?.["params"]
)
const openCodeProps = record(
  fixture("opencode", "opencode-serve-raw-permission.jsonl").find((l) => l["type"] === "permission.asked")?.["properties"]
)

const always = { _tag: "Answered", answer: { always: true } } as const
const once = { _tag: "Answered", answer: {} } as const

describe("allow always: each runtime's standing rule, offered in words and answered the runtime's way", () => {
  it("Claude Code: its suggested allow rule is offered, saying the rule and where it is kept; Allow always sends it as updatedPermissions", () => {
    const filed = record(interactionOf(claudeRequest).request)
    expect(filed[STANDING_RULE_FIELD]).toBe(
      "Claude Code will allow Bash(touch made-by-claude2.txt): saved in this checkout's .claude/settings.local.json, for every later run here."
    )
    expect(claudeReply(claudeRequest, always)).toEqual({
      behavior: "allow",
      updatedInput: claudeRequest["input"],
      updatedPermissions: [{
        type: "addRules",
        rules: [{ toolName: "Bash", ruleContent: "touch made-by-claude2.txt" }],
        behavior: "allow",
        destination: "localSettings"
      }]
    })
    expect(claudeReply(claudeRequest, once)).toEqual({ behavior: "allow", updatedInput: claudeRequest["input"] })
  })

  it("Claude Code: suggestions that widen more than the call (directories, modes) are not offered", () => {
    expect(claudeStandingRule({ permission_suggestions: [{ type: "setMode", mode: "acceptEdits", destination: "session" }] }))
      .toBeUndefined()
    expect(record(interactionOf({ tool_name: "Bash", input: { command: "ls" } }).request)[STANDING_RULE_FIELD]).toBeUndefined()
  })

  it("Codex: its proposed exec-policy amendment is offered as the command prefix; Allow always accepts with that amendment", () => {
    expect(codexStandingRule(codexParams)?.words).toBe(
      "Codex will run commands that start with “touch made-by-codex.txt” without asking: the rule is added to its exec policy on this machine, for every thread."
    )
    expect(approvalReply(always, codexParams)).toEqual({
      decision: { acceptWithExecpolicyAmendment: { execpolicy_amendment: ["touch", "made-by-codex.txt"] } }
    })
    expect(approvalReply(once, codexParams)).toEqual({ decision: "accept" })
    expect(approvalReply(always, {})).toEqual({ decision: "accept" })
  })

  it("OpenCode: its always patterns are offered; Allow always replies always", () => {
    expect(openCodeStandingRule(openCodeProps)?.words).toBe(
      "OpenCode will allow bash for “touch *” without asking, in this checkout, until trellis agent restarts its server."
    )
    expect(openCodeReply(always)).toEqual({ reply: "always" })
    expect(openCodeReply(once)).toEqual({ reply: "once" })
  })
})
