import { describe, expect, it, layer } from "@effect/vitest"
import { Effect } from "effect"
import { ConformanceServer, exercised, listServerScenarios, problems, type Revision, runScenario } from "../support/Conformance.js"

/**
 * The official MCP conformance suite (`@modelcontextprotocol/conformance` 0.2.0-alpha.12) against
 * `/api/mcp?project=<id>` as `trellis serve` answers it. Every check of a scenario must pass, but
 * those the suite itself reports as not testable here (they need its own `test_*` fixtures), and
 * each scenario must check something of the server (an undeclared extension only skips).
 */

const BOTH: ReadonlyArray<Revision> = ["2025-11-25", "2026-07-28"]
const LEGACY: ReadonlyArray<Revision> = ["2025-11-25"]
const MODERN: ReadonlyArray<Revision> = ["2026-07-28"]

interface Scenario {
  readonly scenario: string
  /** The revisions it runs under: those of `conformance list --server` that Trellis speaks. */
  readonly revisions: ReadonlyArray<Revision>
  /** Off the spec timeline: the suite runs it at a revision only when forced. */
  readonly extension?: true
}

/** The scenarios an application server can pass. */
const SCENARIOS: ReadonlyArray<Scenario> = [
  { scenario: "server-initialize", revisions: LEGACY },
  { scenario: "server-stateless", revisions: MODERN },
  { scenario: "ping", revisions: LEGACY },
  { scenario: "tools-list", revisions: BOTH },
  { scenario: "prompts-list", revisions: BOTH },
  { scenario: "caching", revisions: MODERN },
  { scenario: "http-header-validation", revisions: MODERN },
  { scenario: "http-custom-header-server-validation", revisions: MODERN },
  { scenario: "dns-rebinding-protection", revisions: BOTH },
  { scenario: "server-sse-multiple-streams", revisions: MODERN },
  { scenario: "sep-2164-resource-not-found", revisions: MODERN },
  { scenario: "resources-list", revisions: BOTH },
  { scenario: "input-required-result-unsupported-methods", revisions: MODERN },
  { scenario: "sep-2640-skills-enumeration", revisions: BOTH, extension: true },
  { scenario: "sep-2640-skills-manifest", revisions: BOTH, extension: true },
  { scenario: "sep-2640-skills-directory", revisions: BOTH, extension: true }
]

/**
 * The suite's other server scenarios, at every revision it lists (or those named), and why they say
 * nothing about Trellis: they call the suite's own fixtures (`test_*` tools, prompts and resources),
 * or exercise sessions, which Trellis does not have (they are optional). docs/decisions.md has the list.
 */
const LEFT_OUT: ReadonlyArray<{ readonly scenario: string; readonly revisions?: ReadonlyArray<Revision>; readonly reason: string }> = [
  ...["simple-text", "image", "audio", "embedded-resource", "mixed-content", "error", "with-progress"].map((name) => ({
    scenario: `tools-call-${name}`,
    reason: "calls a fixture tool (test_simple_text, test_image_content, …)"
  })),
  { scenario: "tools-call-with-logging", reason: "logging/setLevel, then the fixture tool test_tool_with_logging" },
  { scenario: "tools-call-sampling", reason: "the fixture tool test_sampling asks the client to sample; Trellis asks clients nothing" },
  { scenario: "tools-call-elicitation", reason: "the fixture tool test_elicitation elicits from the client; Trellis asks clients nothing" },
  { scenario: "elicitation-sep1034-defaults", reason: "the fixture tool test_elicitation_sep1034_defaults" },
  { scenario: "elicitation-sep1330-enums", reason: "the fixture tool test_elicitation_sep1330_enums" },
  { scenario: "json-schema-2020-12", reason: "every check reads the inputSchema of the fixture tool json_schema_2020_12_tool" },
  { scenario: "resources-read-text", reason: "reads the fixture resource test://static-text" },
  { scenario: "resources-read-binary", reason: "reads the fixture resource test://static-binary" },
  { scenario: "resources-templates-read", reason: "reads the fixture template test://template/{id}/data" },
  { scenario: "resources-subscribe", reason: "subscribes to the fixture test://watched-resource; Trellis offers no resources.subscribe" },
  {
    scenario: "resources-unsubscribe",
    reason: "unsubscribes from the fixture test://watched-resource; Trellis offers no resources.subscribe"
  },
  {
    scenario: "prompts-get-simple",
    reason: "gets the fixture prompt test_simple_prompt, which is no valid Trellis prompt key (no underscores)"
  },
  { scenario: "prompts-get-with-args", reason: "the fixture prompt test_prompt_with_arguments; Trellis prompts take no arguments" },
  { scenario: "prompts-get-embedded-resource", reason: "the fixture prompt test_prompt_with_embedded_resource; Trellis prompts are text" },
  { scenario: "prompts-get-with-image", reason: "the fixture prompt test_prompt_with_image; Trellis prompts are text" },
  {
    scenario: "completion-complete",
    reason: "completes an argument of the fixture prompt test_prompt_with_arguments; Trellis offers no completions"
  },
  {
    scenario: "logging-set-level",
    reason: "logging/setLevel; Trellis declares no logging capability (optional, deprecated in 2026-07-28)"
  },
  ...[
    "basic-elicitation",
    "basic-sampling",
    "basic-list-roots",
    "request-state",
    "multiple-input-requests",
    "multi-round",
    "missing-input-response",
    "non-tool-request",
    "result-type",
    "tampered-state",
    "capability-check",
    "ignore-extra-params",
    "validate-input"
  ].map((name) => ({
    scenario: `input-required-result-${name}`,
    reason: "calls a fixture tool or prompt (test_input_required_result_*) that asks the client for input; Trellis asks nothing"
  })),
  ...[
    "lifecycle",
    "capability-negotiation",
    "wire-fields",
    "request-state-removal",
    "mrtr-input",
    "request-headers",
    "dispatch-and-envelope",
    "status-notifications",
    "required-task-error",
    "mrtr-composition"
  ].map((name) => ({
    scenario: `tasks-${name}`,
    reason: "the tasks extension, driven through fixture tools (greet, slow_compute, failing_job, …); Trellis does not offer it"
  })),
  { scenario: "server-session-lifecycle", reason: "skips itself for a server that issues no MCP-Session-Id, and Trellis issues none" },
  { scenario: "server-sse-polling", reason: "the fixture tool test_reconnection, inside a session (Trellis has none)" },
  {
    scenario: "server-sse-multiple-streams",
    revisions: LEGACY,
    reason: "at 2025-11-25 it opens its streams inside a session only, and without one stops at a warning having checked nothing"
  }
]

/** The suite's own timeout for one scenario; each takes about a second. */
const SCENARIO_TIMEOUT_MS = 30_000

/** The revisions of a listed scenario that Trellis speaks; an extension applies to each. */
const spoken = (revisions: ReadonlyArray<string>): ReadonlyArray<Revision> =>
  revisions.includes("extension") ? BOTH : BOTH.filter((revision) => revisions.includes(revision))

// The PostgreSQL pass would only repeat this against the same listener.
describe.skipIf(process.env["DATABASE_URL"] !== undefined)("the MCP conformance suite", () => {
  it.effect(
    "every server scenario of the suite, at every revision Trellis speaks, is run here or left out with a reason",
    () =>
      Effect.gen(function*() {
        const listed = yield* listServerScenarios
        const expected = listed.flatMap(({ revisions, scenario }) => spoken(revisions).map((revision) => `${scenario} at ${revision}`))
        const revisionsOf = (scenario: string) => spoken(listed.find((entry) => entry.scenario === scenario)?.revisions ?? [])
        const covered = [
          ...SCENARIOS.flatMap(({ revisions, scenario }) => revisions.map((revision) => `${scenario} at ${revision}`)),
          ...LEFT_OUT.flatMap(({ revisions, scenario }) =>
            (revisions ?? revisionsOf(scenario)).map((revision) => `${scenario} at ${revision}`)
          )
        ]
        expect([...covered].sort()).toEqual([...expected].sort())
      }),
    60_000
  )

  layer(ConformanceServer, { timeout: 60_000 })((it) => {
    for (const { extension, revisions, scenario } of SCENARIOS) {
      for (const revision of revisions) {
        it.effect(`${scenario} at ${revision}`, () =>
          Effect.gen(function*() {
            const run = yield* runScenario({ scenario, revision, force: extension === true, timeoutMs: SCENARIO_TIMEOUT_MS })
            expect(run.checks.length, `the suite wrote no checks (exit ${run.exitCode}):\n${run.output}`).toBeGreaterThan(0)
            const failing = problems(run.checks)
            expect(failing, `${scenario} at ${revision}, checks that fail:\n${failing.join("\n")}\n`).toEqual([])
            const seen = run.checks.map((check) => `${check.id} [${check.status}]`).join("\n")
            expect(exercised(run.checks), `${scenario} at ${revision} checked nothing of the server:\n${seen}`).toBe(true)
          }), SCENARIO_TIMEOUT_MS + 20_000)
      }
    }
  })
})
