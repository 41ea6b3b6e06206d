import { describe, expect, it } from "@effect/vitest"
import { Schema } from "effect"
import { readFileSync } from "node:fs"
import { Catalog, type ToolName } from "../../catalog/index.js"
import * as Tool from "../../catalog/Tool.js"
import { type JsonSchema, missingFields, namesIn, objectsAt, type Variant } from "../support/JsonSchemaFields.js"
import { type FieldList, parseSpecRecords, type SpecRecord } from "../support/SpecRecords.js"

/*
 * SPEC names the fields of its records (Task, List, … Thread message); a client reads them by
 * those names. This holds the catalog to them: every field SPEC gives a record is in the Schemas
 * of the tools that return it, under SPEC's name, unless it is listed below with the reason.
 */

const records = parseSpecRecords(readFileSync(new URL("../fixtures/spec/records.md", import.meta.url), "utf8"))

interface Place {
  readonly tool: ToolName
  readonly side: "input" | "output"
  /** Property names from the top of the result (arrays are looked through). */
  readonly at: ReadonlyArray<string>
}

interface Check {
  readonly record: string
  /** The field lists of the record this applies to, by what introduces them in SPEC. */
  readonly list: RegExp
  readonly places: ReadonlyArray<Place>
  /** The union member the list describes (a thread, not a group). */
  readonly variant?: Variant
  /** Fields deliberately served otherwise, each with the reason (also in docs/decisions.md). */
  readonly exceptions?: Readonly<Record<string, string>>
}

const output = (tool: ToolName, ...at: ReadonlyArray<string>): Place => ({ tool, side: "output", at })
const input = (tool: ToolName): Place => ({ tool, side: "input", at: [] })

const TASK_ARGUMENTS = /^Fields taken by create\/update$/
const TASK_READS = [output("get_task"), output("get_tasks", "tasks", "task")]

const CHECKS: ReadonlyArray<Check> = [
  { record: "Task", list: TASK_ARGUMENTS, places: [input("create_task")] },
  {
    record: "Task",
    list: TASK_ARGUMENTS,
    places: TASK_READS,
    exceptions: {
      assigneeId: "SPEC: task payloads carry the owner as the projection `assignee` ({ userId, name, email })",
      delegatedToAgentId: "SPEC: task payloads carry the executing agent as the projection `delegatedToAgent` ({ projectAgentId, name })",
      listId: "served like the owner and the agent, as the projection `list` ({ listId, ref, name })"
    }
  },
  { record: "Task", list: /payloads carry/, places: [...TASK_READS, output("list_tasks", "tasks"), output("search_tasks", "tasks")] },
  { record: "Task", list: /has a ref/, places: [output("create_task"), ...TASK_READS] },
  { record: "List", list: /^Fields$/, places: [output("list_task_lists", "lists")] },
  { record: "Label", list: /^record$/, places: [output("list_task_labels", "labels")] },
  { record: "Project agent", list: /^Fields$/, places: [output("list_project_agents", "agents")] },
  { record: "Prompt", list: /^Fields returned by/, places: [output("list_prompts", "prompts")] },
  { record: "Skill", list: /^Fields$/, places: [output("get_skill")] },
  {
    record: "Link",
    list: /^kind |has a caller-generated/,
    places: [output("get_task", "externalLinks"), output("update_task_link", "externalLinks")]
  },
  { record: "Artifact", list: /^Fields$/, places: [output("get_task_artifact")] },
  {
    record: "Artifact comment thread",
    list: /^Thread fields$/,
    places: [output("list_artifact_comments", "threads"), output("get_task_artifact", "comments"), output("create_artifact_comment")]
  },
  { record: "CLI profile", list: /^Fields$/, places: [output("list_cli_profiles", "profiles")] },
  {
    record: "Thread",
    list: /^Ordinary thread fields$/,
    variant: { field: "kind", value: "thread" },
    places: [output("get_thread"), output("list_threads", "threads"), output("create_thread")]
  },
  {
    record: "Thread",
    list: /has instead$/,
    variant: { field: "kind", value: "group" },
    places: [output("get_thread"), output("list_threads", "threads")]
  },
  { record: "Thread message", list: /^Fields$/, places: [output("list_thread_messages", "messages")] }
]

/** Names in a record's prose that are neither fields nor values of its Schemas, each with the reason. */
const PROSE_ONLY: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  List: {
    BACKLOG: "a reserved List ref: a value of `ref`, not of its Schema",
    ARCHIVED: "a reserved List ref: a value of `ref`, not of its Schema"
  },
  "CLI profile": { cliType: "names the kind of value `availableClis[].type` holds (a runtime slug), not a field" }
}

const RECORD_TITLES = [
  "Task",
  "List",
  "Label",
  "Project agent",
  "Prompt",
  "Skill",
  "Link",
  "Artifact",
  "Artifact comment thread",
  "CLI profile",
  "Thread",
  "Thread message"
]

const toolNamed = (name: string): Tool.Any => {
  const tool = Catalog.find((t) => t.name === name)
  if (tool === undefined) throw new Error(`no tool ${name}`)
  return tool
}

const schemaOf = (place: Place): JsonSchema => {
  const tool = toolNamed(place.tool)
  const schema = place.side === "input" ? Tool.inputJsonSchema(tool) : Tool.outputJsonSchema(tool)
  if (schema === undefined) throw new Error(`${place.tool} has no output schema`)
  return schema
}

const recordNamed = (title: string): SpecRecord => {
  const record = records.find((r) => r.title === title)
  if (record === undefined) throw new Error(`the copy of SPEC has no record ${title}`)
  return record
}

const listsOf = (check: Check): ReadonlyArray<FieldList> => recordNamed(check.record).lists.filter((list) => check.list.test(list.intro))

/** `tool (side): field` for each field of `list` that a place's Schema lacks. */
const missingAt = (check: Check, list: FieldList, place: Place): ReadonlyArray<string> => {
  const schema = schemaOf(place)
  const objects = objectsAt(schema, place.at, list.variant ?? check.variant)
  return missingFields(schema, objects, list.fields).map((field) => `${[place.tool, ...place.at].join(".")} (${place.side}): ${field}`)
}

const unexcused = (check: Check, list: FieldList, place: Place) =>
  missingAt(check, list, place).filter((line) => !Object.keys(check.exceptions ?? {}).some((field) => line.endsWith(`: ${field}`)))

describe("SPEC's record field names", () => {
  it("the copy of SPEC's records is read whole: every record has fields and no item is left unread", () => {
    expect(records.map((r) => r.title)).toEqual(RECORD_TITLES)
    for (const record of records) {
      expect(record.unread, record.title).toEqual([])
      expect(record.lists.length, record.title).toBeGreaterThan(0)
      for (const list of record.lists) expect(list.fields.length, `${record.title}: ${list.intro}`).toBeGreaterThan(0)
    }
  })

  it("every field list SPEC gives is checked against the tools that serve it", () => {
    for (const record of records) {
      for (const list of record.lists) {
        const checks = CHECKS.filter((check) => check.record === record.title && check.list.test(list.intro))
        expect(checks.length, `${record.title}: ${list.intro}`).toBeGreaterThan(0)
        // A list SPEC ties to a tool ("Fields returned by `list_prompts`") is checked on that tool.
        if (list.tool !== undefined) expect(checks.flatMap((c) => c.places.map((p) => p.tool))).toContain(list.tool)
      }
    }
    for (const check of CHECKS) {
      expect(listsOf(check).length, `${check.record} ${check.list}`).toBeGreaterThan(0)
      for (const place of check.places) {
        for (const list of listsOf(check)) {
          const schema = schemaOf(place)
          expect(objectsAt(schema, place.at, list.variant ?? check.variant).length, `${place.tool} ${place.at.join(".")}`).toBeGreaterThan(
            0
          )
        }
      }
    }
  })

  it.each(RECORD_TITLES)("every field SPEC names for the %s record is served under SPEC's name", (title) => {
    const missing = CHECKS.filter((check) => check.record === title).flatMap((check) =>
      listsOf(check).flatMap((list) => check.places.flatMap((place) => unexcused(check, list, place)))
    )
    expect(missing).toEqual([])
  })

  it("a field kept off a Schema on purpose is listed with its reason, and is indeed absent there", () => {
    for (const check of CHECKS) {
      for (const [field, reason] of Object.entries(check.exceptions ?? {})) {
        expect(reason.length, field).toBeGreaterThan(20)
        for (const place of check.places) {
          const missing = listsOf(check).flatMap((list) => missingAt(check, list, place))
          expect(missing.some((line) => line.endsWith(`: ${field}`)), `${place.tool} lacks ${field}`).toBe(true)
        }
      }
    }
  })

  it.each(RECORD_TITLES)("every name SPEC writes about the %s record is a field, a value or a tool of the catalog", (title) => {
    const record = recordNamed(title)
    const places = CHECKS.filter((check) => check.record === title).flatMap((check) => check.places)
    const known = new Set([
      ...places.flatMap((
        place
      ) => [...namesIn(Tool.inputJsonSchema(toolNamed(place.tool))), ...namesIn(schemaOf({ ...place, side: "output" }))]),
      ...Catalog.map((tool) => tool.name)
    ])
    const excused = PROSE_ONLY[title] ?? {}
    expect(record.mentions.filter((name) => !known.has(name) && excused[name] === undefined)).toEqual([])
    for (const name of Object.keys(excused)) expect(known.has(name), `${name} is served now: drop its exception`).toBe(false)
  })

  it("a field a Schema lacks is reported by its path, subfields included", () => {
    const [machine] = parseSpecRecords(
      "### Machine\nFields: profileId, isOnline, availableClis `[{ type, version }]`, queue state (hasPendingUserMessages, queueHeldAt).\n"
    )
    const tool = Tool.make("list_machines", {
      title: "List machines",
      description: "A tool shaped like an older CLI profile",
      input: Schema.Struct({}),
      output: Schema.Struct({
        profiles: Schema.Array(Schema.Struct({
          profileId: Schema.String,
          online: Schema.Boolean,
          availableClis: Schema.Array(Schema.Struct({ type: Schema.String })),
          hasPendingUserMessages: Schema.Boolean
        }))
      }),
      annotations: { readOnly: true, destructive: false, idempotent: true }
    })
    const schema = Tool.outputJsonSchema(tool) ?? {}
    const fields = machine?.lists[0]?.fields ?? []
    expect(fields.map((f) => f.name)).toEqual(["profileId", "isOnline", "availableClis", "hasPendingUserMessages", "queueHeldAt"])
    expect(missingFields(schema, objectsAt(schema, ["profiles"]), fields)).toEqual(["isOnline", "availableClis.version", "queueHeldAt"])
  })
})
