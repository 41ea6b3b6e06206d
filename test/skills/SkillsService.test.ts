import { describe, expect, layer } from "@effect/vitest"
import { Effect, FastCheck, Runtime } from "effect"
import { CurrentPrincipal, type Principal } from "../../src/platform/auth/Principal.js"
import { SkillId } from "../../catalog/domain/Ids.js"
import { Projects } from "../../src/projects/Projects.js"
import { Skills } from "../../src/skills/Skills.js"
import { DefaultProject } from "../../src/platform/auth/Principal.js"
import { ToolRunner } from "../../src/server/ToolRunner.js"
import { organizationScope, seedScopes } from "../support/ScopeFixtures.js"
import { concurrently } from "../support/TestDatabase.js"
import { TestServer } from "../support/TestServer.js"
import { createKey, seedOwner } from "../support/Seed.js"

type Edit =
  | { readonly op: "write"; readonly path: string; readonly content: string }
  | { readonly op: "replace"; readonly path: string; readonly oldString: string; readonly newString: string; readonly replaceAll?: boolean }
  | { readonly op: "move"; readonly path: string; readonly newPath: string }
  | { readonly op: "delete"; readonly path: string }

interface Stored {
  readonly version: number
  readonly name: string
  readonly skillMd: string
  readonly files: ReadonlyArray<{ readonly path: string; readonly content: string }>
}

const SKILL_MD = "SKILL.md"
/** A small pool, so that edits land on the same paths, moves collide and deletes find something. */
const PATHS = ["a.md", "b/c.txt", "scripts/run.sh", "d.md", "e/f/g.md"] as const
const WORDS = ["alpha", "beta", " ", "\n", "x", "$&", "ß", "beta beta"] as const

/** The in-memory model of a Skill's files: applied with plain string operations, independent of the service. */
const applyToModel = (files: Map<string, string>, edit: Edit): void => {
  const current = files.get(edit.path) ?? ""
  switch (edit.op) {
    case "write":
      files.set(edit.path, edit.content)
      return
    case "replace": {
      if (edit.replaceAll === true) {
        files.set(edit.path, current.replaceAll(edit.oldString, () => edit.newString))
        return
      }
      const at = current.indexOf(edit.oldString)
      files.set(edit.path, current.slice(0, at) + edit.newString + current.slice(at + edit.oldString.length))
      return
    }
    case "move":
      files.delete(edit.path)
      files.set(edit.newPath, current)
      return
    case "delete":
      files.delete(edit.path)
      return
  }
}

const text = FastCheck.array(FastCheck.constantFrom(...WORDS), { maxLength: 6 }).map((words) => words.join(""))

/** An abstract step: which kind of edit, and choices that are resolved against the model's state when applied. */
const step = FastCheck.record({
  kind: FastCheck.constantFrom("write", "replace", "move", "delete"),
  pick: FastCheck.nat(),
  target: FastCheck.nat(),
  start: FastCheck.nat(),
  length: FastCheck.integer({ min: 1, max: 12 }),
  content: text
})
type Step = typeof step extends FastCheck.Arbitrary<infer S> ? S : never

const occurrences = (haystack: string, needle: string) => haystack.split(needle).length - 1

/** The step as a valid edit on the model's current files, or undefined when it has none (e.g. nothing to move). */
const realize = (files: ReadonlyMap<string, string>, s: Step): Edit | undefined => {
  const existing = [...files.keys()].sort()
  const movable = existing.filter((path) => path !== SKILL_MD)
  const path = existing[s.pick % existing.length] ?? SKILL_MD
  switch (s.kind) {
    case "write": {
      const target = [SKILL_MD, ...PATHS][s.target % (PATHS.length + 1)] ?? SKILL_MD
      return target === SKILL_MD
        ? { op: "write", path: target, content: `# ${s.content}` }
        : { op: "write", path: target, content: s.content }
    }
    case "replace": {
      const content = files.get(path) ?? ""
      if (content === "") return undefined
      const from = s.start % content.length
      const oldString = content.slice(from, from + s.length)
      return { op: "replace", path, oldString, newString: s.content, ...(occurrences(content, oldString) > 1 ? { replaceAll: true } : {}) }
    }
    case "move": {
      const source = movable[s.pick % Math.max(movable.length, 1)]
      const free = PATHS.filter((candidate) => !files.has(candidate))
      const newPath = free[s.target % Math.max(free.length, 1)]
      return source === undefined || newPath === undefined ? undefined : { op: "move", path: source, newPath }
    }
    case "delete": {
      const victim = movable[s.pick % Math.max(movable.length, 1)]
      return victim === undefined ? undefined : { op: "delete", path: victim }
    }
  }
}

/** Realizes steps one after the other on a copy of the model, dropping any that would blank SKILL.md. */
const realizeAll = (start: ReadonlyMap<string, string>, steps: ReadonlyArray<Step>) => {
  const files = new Map(start)
  const edits: Array<Edit> = []
  for (const s of steps) {
    const edit = realize(files, s)
    if (edit === undefined) continue
    const next = new Map(files)
    applyToModel(next, edit)
    if ((next.get(SKILL_MD) ?? "").trim() === "") continue
    applyToModel(files, edit)
    edits.push(edit)
  }
  return { edits, files }
}

const FAILURES = [
  "not-found",
  "multiple",
  "missing-file",
  "occupied",
  "bad-path",
  "delete-skill-md",
  "move-skill-md",
  "blank-skill-md",
  "over-cap"
] as const

/** An edit that stops a save; `other` is a stored file besides SKILL.md, if any. */
const failingEdit = (kind: typeof FAILURES[number], other: string | undefined): Edit => {
  switch (kind) {
    case "not-found":
      return { op: "replace", path: SKILL_MD, oldString: "\u0001absent", newString: "x" }
    case "multiple":
      return { op: "write", path: "twice.md", content: "dup dup" }
    case "missing-file":
      return { op: "delete", path: "no/such/file.md" }
    case "occupied":
      return { op: "move", path: other ?? "no/such/file.md", newPath: SKILL_MD }
    case "bad-path":
      return { op: "write", path: "../escape.md", content: "x" }
    case "delete-skill-md":
      return { op: "delete", path: SKILL_MD }
    case "move-skill-md":
      return { op: "move", path: SKILL_MD, newPath: "README.md" }
    case "blank-skill-md":
      return { op: "write", path: SKILL_MD, content: " \n " }
    case "over-cap":
      return { op: "write", path: "huge.md", content: "x".repeat(256 * 1024 + 1) }
  }
}

const asMap = (stored: Stored): Map<string, string> =>
  new Map([[SKILL_MD, stored.skillMd], ...stored.files.map((file): [string, string] => [file.path, file.content])])

const sameModel = (a: ReadonlyMap<string, string>, b: ReadonlyMap<string, string>) =>
  a.size === b.size && [...a].every(([path, content]) => b.get(path) === content)

/** Calls tools in process, as the MCP endpoint does, for one principal. */
const toolsFor = (principal: Principal) =>
  Effect.map(ToolRunner, (runner) => (name: string, args: unknown) =>
    runner.call(name, args).pipe(
      Effect.provideService(CurrentPrincipal, principal),
      Effect.provideService(DefaultProject, null)
    ))

const seedSkill = (slug: string) =>
  Effect.gen(function*() {
    const owner = yield* seedOwner(slug)
    const call = yield* toolsFor(owner.principal)
    let created = 0
    const newSkill = (content: string) =>
      Effect.map(
        call("create_skill", { projectId: owner.project.id, name: `s-${created++}`, content }),
        (result) => (result as { readonly skillId: string }).skillId
      )
    const get = (skillId: string) => Effect.map(call("get_skill", { skillId }), (result) => result as Stored)
    return { call, newSkill, get }
  })

describe("Skills: update_skill against a model", () => {
  layer(TestServer())((it) => {
    it.effect(
      "a random sequence of valid edits, saved in random batches, equals the same edits applied to an in-memory model",
      () =>
        Effect.gen(function*() {
          const { call, newSkill, get } = yield* seedSkill("skill-model")
          const run = Runtime.runPromise(yield* Effect.runtime<never>())
          yield* Effect.promise(() =>
            FastCheck.assert(
              FastCheck.asyncProperty(
                text.map((t) => `# ${t}`),
                FastCheck.array(FastCheck.array(step, { maxLength: 8 }), { minLength: 1, maxLength: 4 }),
                (skillMd, batches) =>
                  run(Effect.gen(function*() {
                    const skillId = yield* newSkill(skillMd)
                    let model: ReadonlyMap<string, string> = new Map([[SKILL_MD, skillMd]])
                    let version = 1
                    for (const batch of batches) {
                      const { edits, files } = realizeAll(model, batch)
                      const result = yield* call("update_skill", { skillId, edits })
                      if (!sameModel(files, model)) version += 1
                      model = files
                      expect(result).toEqual({ ok: true, version })
                    }
                    const stored = yield* get(skillId)
                    expect(asMap(stored)).toEqual(model)
                    expect(stored.version).toBe(version)
                  }))
              ),
              { numRuns: 30 }
            )
          )
        }),
      120_000
    )

    it.effect("a sequence with one failing edit leaves the stored Skill and its version untouched", () =>
      Effect.gen(function*() {
        const { call, newSkill, get } = yield* seedSkill("skill-model-fail")
        const run = Runtime.runPromise(yield* Effect.runtime<never>())
        const failing = FastCheck.constantFrom(...FAILURES)
        yield* Effect.promise(() =>
          FastCheck.assert(
            FastCheck.asyncProperty(
              FastCheck.array(step, { maxLength: 8 }),
              failing,
              FastCheck.array(step, { maxLength: 4 }),
              (setup, kind, rest) =>
                run(Effect.gen(function*() {
                  const skillId = yield* newSkill("# Skill\nrepeat repeat\n")
                  // A stored state with files to collide with, then a save that must fail.
                  const { edits: setupEdits } = realizeAll(
                    new Map([[SKILL_MD, "# Skill\nrepeat repeat\n"]]),
                    [{ kind: "write", pick: 0, target: 1, start: 0, length: 1, content: "taken" }, ...setup]
                  )
                  yield* call("update_skill", { skillId, edits: setupEdits })
                  const before = yield* get(skillId)
                  const { edits: prefix, files } = realizeAll(asMap(before), rest)
                  const other = [...files.keys()].find((path) => path !== SKILL_MD)
                  const bad = failingEdit(kind, other)
                  const tail: ReadonlyArray<Edit> = kind === "multiple"
                    ? [bad, { op: "replace", path: "twice.md", oldString: "dup", newString: "one" }]
                    : [bad]
                  const result = yield* Effect.either(call("update_skill", {
                    skillId,
                    name: "renamed",
                    description: "changed",
                    edits: [...prefix, ...tail, { op: "write", path: "after.md", content: "after" }]
                  }))
                  if (result._tag === "Right") {
                    expect(result.right).toMatchObject({ ok: false, index: prefix.length + tail.length - 1 })
                  } else {
                    expect(["InvalidArgument", "NotFound", "LimitExceeded"]).toContain(result.left._tag)
                  }
                  expect(yield* get(skillId)).toEqual(before)
                }))
            ),
            { numRuns: 30 }
          )
        )
      }), 120_000)

    it.effect(
      concurrently("update_skill calls on one Skill never lose an edit nor bump the version twice for one save"),
      () =>
        Effect.gen(function*() {
          const { call, newSkill, get } = yield* seedSkill("skill-race")
          const skillId = yield* newSkill("# Log")
          yield* call("update_skill", { skillId, edits: [{ op: "write", path: "log.md", content: "end" }] })
          const rounds = 3
          const writers = 6
          for (let round = 0; round < rounds; round++) {
            const results = yield* Effect.all(
              Array.from({ length: writers }, (_, i) =>
                call("update_skill", {
                  skillId,
                  edits: [
                    // Each save reads the shared file as left by the save before it; a lost update drops a line.
                    { op: "replace", path: "log.md", oldString: "end", newString: `line ${round}.${i}\nend` },
                    { op: "write", path: `own/${round}-${i}.md`, content: `${round}.${i}` }
                  ]
                })),
              { concurrency: "unbounded" }
            )
            expect(results.map((result) => (result as { readonly ok: boolean }).ok)).toEqual(Array(writers).fill(true))
          }
          const stored = yield* get(skillId)
          const saves = 1 + rounds * writers
          expect(stored.version).toBe(1 + saves)
          const log = stored.files.find((file) => file.path === "log.md")?.content ?? ""
          for (let round = 0; round < rounds; round++) {
            for (let i = 0; i < writers; i++) expect(log).toContain(`line ${round}.${i}\n`)
          }
          expect(stored.files.filter((file) => file.path.startsWith("own/"))).toHaveLength(rounds * writers)
          // Every save bumped exactly once: the versions handed out are all different.
          const versions = new Set<number>()
          const more = yield* Effect.all(
            Array.from(
              { length: writers },
              (_, i) => call("update_skill", { skillId, edits: [{ op: "write", path: `v/${i}.md`, content: "v" }] })
            ),
            { concurrency: "unbounded" }
          )
          for (const result of more) versions.add((result as { readonly version: number }).version)
          expect([...versions].sort((a, b) => a - b)).toEqual(Array.from({ length: writers }, (_, i) => 2 + saves + i))
        })
    )
  })
})

/** A fresh organization and project with the owner's two scopes, and the Skills service. */
const seedSkills = (slug: string) =>
  Effect.gen(function*() {
    return { ...(yield* seedScopes(slug)), skills: yield* Skills }
  })

describe("Skills", () => {
  layer(TestServer())((it) => {
    it.effect("a save that sets the stored name, description, category or files keeps the version; any change bumps it once", () =>
      Effect.gen(function*() {
        const { principal, scopes, skills } = yield* seedSkills("skills-same")
        const id = yield* skills.create(principal, scopes.project, {
          name: "deploy",
          content: "# Deploy",
          description: "Ships",
          category: "ops"
        })
        for (
          const same of [
            {},
            { name: "deploy" },
            { description: "Ships" },
            { category: "ops" },
            { name: "deploy", description: "Ships", category: "ops", content: "# Deploy", edits: [] }
          ]
        ) {
          expect(yield* skills.update(principal, id, same), JSON.stringify(same)).toEqual({ ok: true, version: 1 })
        }
        expect(yield* skills.update(principal, id, { description: "Ships it", category: "ops" })).toEqual({ ok: true, version: 2 })
        expect(
          yield* skills.update(principal, id, {
            content: "# Deploy",
            edits: [{ op: "write", path: "a.md", content: "A" }, { op: "delete", path: "a.md" }]
          })
        ).toEqual({ ok: true, version: 2 })
        expect((yield* skills.get(principal, id)).record).toMatchObject({ description: "Ships it", category: "ops", version: 2 })
      }))

    it.effect("an unplaceable replace is the result { ok: false, index, code, message, occurrences } and stores nothing", () =>
      Effect.gen(function*() {
        const { principal, scopes, skills } = yield* seedSkills("skills-unplaced")
        const id = yield* skills.create(principal, scopes.project, { name: "deploy", content: "# Deploy\nmake make" })
        const before = yield* skills.get(principal, id)
        const missing = yield* skills.update(principal, id, {
          name: "renamed",
          category: "changed",
          edits: [{ op: "write", path: "a.md", content: "A" }, { op: "replace", path: "SKILL.md", oldString: "ninja", newString: "x" }]
        })
        expect(missing).toEqual({
          ok: false,
          index: 1,
          code: "old_string_not_found",
          message: expect.stringContaining("SKILL.md"),
          occurrences: 0
        })
        expect(Object.keys(missing).sort()).toEqual(["code", "index", "message", "occurrences", "ok"])
        const multiple = yield* skills.update(principal, id, {
          edits: [{ op: "replace", path: "SKILL.md", oldString: "make", newString: "x" }]
        })
        expect(multiple).toEqual({ ok: false, index: 0, code: "multiple_matches", message: expect.any(String), occurrences: 2 })
        expect(yield* skills.get(principal, id)).toEqual(before)
      }))

    it.effect("a missing file, a bad path or a cap breach fails the save and stores nothing", () =>
      Effect.gen(function*() {
        const { principal, scopes, skills } = yield* seedSkills("skills-errors")
        const id = yield* skills.create(principal, scopes.project, { name: "deploy", content: "# Deploy" })
        const before = yield* skills.get(principal, id)
        for (
          const [edit, tag] of [
            [{ op: "delete", path: "missing.md" }, "NotFound"],
            [{ op: "write", path: "../up.md", content: "x" }, "InvalidArgument"],
            [{ op: "move", path: "SKILL.md", newPath: "README.md" }, "InvalidArgument"],
            [{ op: "write", path: "huge.md", content: "x".repeat(256 * 1024 + 1) }, "LimitExceeded"]
          ] as const
        ) {
          const failure = yield* Effect.flip(
            skills.update(principal, id, { description: "changed", edits: [{ op: "write", path: "a.md", content: "A" }, edit] })
          )
          expect(failure._tag, JSON.stringify(edit)).toBe(tag)
        }
        expect(yield* skills.get(principal, id)).toEqual(before)
      }))

    it.effect("load and readFile reach project Skills only, and give null for a missing or impossible name or path", () =>
      Effect.gen(function*() {
        const { principal, project, scopes, skills } = yield* seedSkills("skills-load")
        const access = yield* (yield* Projects).access(principal, project.id)
        const local = yield* skills.create(principal, scopes.project, { name: "deploy", content: "# Deploy", description: "Ships" })
        yield* skills.update(principal, local, { edits: [{ op: "write", path: "bin/run.sh", content: "make" }] })
        const shared = yield* skills.create(principal, scopes.organization, { name: "shared", content: "# Shared" })
        yield* skills.update(principal, shared, { edits: [{ op: "write", path: "a.md", content: "A" }] })
        expect(yield* skills.load(access, "deploy")).toEqual({
          name: "deploy",
          description: "Ships",
          skillMd: "# Deploy",
          paths: ["bin/run.sh"]
        })
        expect(yield* skills.readFile(access, "deploy", "bin/run.sh")).toEqual({ path: "bin/run.sh", content: "make" })
        for (const name of ["shared", "missing", "Deploy", "x", ""]) expect(yield* skills.load(access, name), name).toBeNull()
        for (
          const [name, path] of [
            ["shared", "a.md"],
            ["shared", "SKILL.md"],
            ["missing", "bin/run.sh"],
            ["deploy", "bin/other.sh"],
            ["deploy", "/bin/run.sh"],
            ["deploy", "bin/../bin/run.sh"],
            ["deploy", "bin\\run.sh"],
            ["deploy", "toString"]
          ] as const
        ) {
          expect(yield* skills.readFile(access, name, path), `${name} ${path}`).toBeNull()
        }
      }))

    it.effect("a key narrowed to projects reaches none of its organization's Skills, and another organization's are not found", () =>
      Effect.gen(function*() {
        const { organization, principal, project, scopes, skills, user } = yield* seedSkills("skills-narrowed")
        const shared = yield* skills.create(principal, scopes.organization, { name: "shared", content: "# Shared" })
        const local = yield* skills.create(principal, scopes.project, { name: "local", content: "# Local" })
        const narrowed = (yield* createKey(user.id, [project.id])).principal
        expect(yield* Effect.flip(organizationScope(narrowed, organization.slug))).toMatchObject({ _tag: "Forbidden" })
        for (
          const attempt of [
            Effect.asVoid(skills.get(narrowed, shared)),
            Effect.asVoid(skills.update(narrowed, shared, { content: "# Mine" })),
            skills.remove(narrowed, shared)
          ]
        ) {
          expect(yield* Effect.flip(attempt)).toMatchObject({ _tag: "Forbidden", message: expect.stringContaining("narrowed") })
        }
        expect((yield* skills.get(narrowed, local)).record.name).toBe("local")
        const other = yield* seedOwner("skills-narrowed-other")
        const narrowedOther = (yield* createKey(other.user.id, [other.project.id])).principal
        expect(yield* Effect.flip(organizationScope(narrowedOther, organization.slug))).toMatchObject({ _tag: "NotFound" })
        for (const skillId of [shared, local, SkillId.generate()]) {
          expect(yield* Effect.flip(skills.get(narrowedOther, skillId))).toMatchObject({
            _tag: "NotFound",
            message: `skillId: Skill ${skillId} not found`
          })
        }
        expect((yield* skills.get(principal, shared)).record.version).toBe(1)
      }))
  })
})
