import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { SkillId } from "../../catalog/domain/Ids.js"
import { Memberships } from "../../src/orgs/Memberships.js"
import { Projects } from "../../src/projects/Projects.js"
import { Users } from "../../src/orgs/Users.js"
import { call, fails, joinAs, ok, okNull, scopedTo, type Scope } from "../support/TaskTools.js"
import { TestServer } from "../support/TestServer.js"
import { createKey, seedOwner } from "../support/Seed.js"

const SKILL_MD = "---\nname: deploy\ndescription: Ships it\n---\n\n# Deploy\n\nRun `make deploy`.\n"

const skillsOf = (key: string, args: Record<string, unknown>, scope: Scope = {}) =>
  Effect.map(ok(key, "list_skills", args, scope), (r) => r.skills)

const createSkill = (key: string, args: Record<string, unknown>, scope: Scope = {}) =>
  Effect.map(ok(key, "create_skill", { content: SKILL_MD, ...args }, scope), (r) => r.skillId)

const getSkill = (key: string, skillId: string) => ok(key, "get_skill", { skillId })

const updateSkill = (key: string, skillId: string, args: Record<string, unknown>) => ok(key, "update_skill", { skillId, ...args })

/** A result that must be JSON null (load_skill, read_skill_file). */
const isNull = (key: string, name: string, args: unknown, scope: Scope) =>
  Effect.map(call(key, name, args, scope), (result) => {
    expect(result.isError, result.content[0]?.text).toBeUndefined()
    expect(result.content[0]?.text).toBe("null")
  })

const kb = (n: number, fill = "x") => fill.repeat(n * 1024)

describe("Skill tools", () => {
  layer(TestServer())((it) => {
    it.effect("create_skill makes version 1 with SKILL.md stored verbatim; list_skills has no content; get_skill has it", () =>
      Effect.gen(function*() {
        const { key, project } = yield* seedOwner("skill-create")
        const scope = scopedTo(project.id)
        const id = yield* createSkill(key, { name: "deploy", description: "Ships it", category: "ops" }, scope)
        expect(id).toMatch(/^skill_[0-9a-f]{32}$/)
        const summary = {
          skillId: id,
          scope: "project",
          name: "deploy",
          description: "Ships it",
          category: "ops",
          version: 1,
          extensionProblem: null
        }
        expect(yield* skillsOf(key, {}, scope)).toEqual([summary])
        expect(yield* getSkill(key, id)).toEqual({ ...summary, skillMd: SKILL_MD, files: [] })
        const padded = yield* createSkill(key, { name: "padded", content: "\n\n  body with trailing space  \n\n" }, scope)
        expect((yield* getSkill(key, padded)).skillMd).toBe("\n\n  body with trailing space  \n\n")
      }))

    it.effect("a Skill name is 2–64 characters of lowercase letters, digits and hyphens, unique within its project or organization", () =>
      Effect.gen(function*() {
        const { key, organization, project } = yield* seedOwner("skill-names")
        const scope = scopedTo(project.id)
        for (const good of ["ab", "a".repeat(64), "pdf-2"]) yield* createSkill(key, { name: good }, scope)
        for (const bad of ["a", "a".repeat(65), "Deploy", "de ploy", "de:ploy", "de_ploy"]) {
          expect(yield* fails(key, "create_skill", { name: bad, content: "x" }, scope), bad).toMatchObject({
            code: "invalid_argument",
            message: expect.stringContaining("name")
          })
        }
        expect(yield* fails(key, "create_skill", { name: "ab", content: "x" }, scope)).toMatchObject({
          code: "conflict",
          message: expect.stringContaining("name: project MAIN already has a Skill named ab")
        })
        const other = yield* (yield* Projects).create({ organizationId: organization.id, name: "Other", ref: "OTHER" })
        yield* createSkill(key, { name: "ab" }, scopedTo(other.id))
        yield* createSkill(key, { name: "ab", scope: "organization" }, scope)
        expect(yield* fails(key, "create_skill", { name: "ab", content: "x", scope: "organization", organization: organization.slug }))
          .toMatchObject({ code: "conflict" })
        const second = yield* createSkill(key, { name: "second" }, scope)
        expect(yield* fails(key, "update_skill", { skillId: second, name: "ab" })).toMatchObject({ code: "conflict" })
        expect((yield* getSkill(key, second)).name).toBe("second")
      }))

    it.effect("SKILL.md must never be blank: on create, as update content, or after edits", () =>
      Effect.gen(function*() {
        const { key, project } = yield* seedOwner("skill-blank")
        const scope = scopedTo(project.id)
        for (const content of ["", "  \n\t\n"]) {
          expect(yield* fails(key, "create_skill", { name: "blank", content }, scope)).toMatchObject({
            code: "invalid_argument",
            message: expect.stringContaining("SKILL.md must not be blank")
          })
        }
        const id = yield* createSkill(key, { name: "kept", content: "keep me" }, scope)
        expect(yield* fails(key, "update_skill", { skillId: id, content: " \n" })).toMatchObject({ code: "invalid_argument" })
        expect(
          yield* fails(key, "update_skill", {
            skillId: id,
            edits: [{ op: "replace", path: "SKILL.md", oldString: "keep me", newString: "" }]
          })
        )
          .toMatchObject({ code: "invalid_argument", message: expect.stringContaining("SKILL.md must not be blank") })
        expect(yield* fails(key, "update_skill", { skillId: id, edits: [{ op: "write", path: "SKILL.md", content: "" }] }))
          .toMatchObject({ code: "invalid_argument" })
        expect(yield* getSkill(key, id)).toMatchObject({ skillMd: "keep me", version: 1 })
      }))

    it.effect("scope arguments: organization needs scope organization; projectId in organization scope derives the organization", () =>
      Effect.gen(function*() {
        const { key, organization, project } = yield* seedOwner("skill-scope")
        for (const name of ["list_skills", "create_skill"] as const) {
          const extra = name === "create_skill" ? { name: "x1", content: "x" } : {}
          expect(yield* fails(key, name, { ...extra, organization: organization.slug }, scopedTo(project.id))).toMatchObject({
            code: "invalid_argument",
            message: expect.stringContaining("organization: only used with scope: \"organization\"")
          })
          expect(yield* fails(key, name, { ...extra, scope: "organization" })).toMatchObject({
            message: expect.stringContaining("organization: required")
          })
        }
        const viaProject = yield* createSkill(key, { name: "via-project", scope: "organization", projectId: project.id })
        const viaUrl = yield* createSkill(key, { name: "via-url", scope: "organization" }, scopedTo(project.id))
        const viaSlug = yield* createSkill(key, { name: "via-slug", scope: "organization", organization: organization.slug })
        const local = yield* createSkill(key, { name: "local" }, scopedTo(project.id))
        const orgSkills = yield* skillsOf(key, { scope: "organization", organization: organization.id })
        expect(orgSkills.map((s) => [s.skillId, s.scope])).toEqual([
          [viaProject, "organization"],
          [viaSlug, "organization"],
          [viaUrl, "organization"]
        ])
        expect(yield* skillsOf(key, { scope: "organization", projectId: project.id })).toEqual(orgSkills)
        expect((yield* skillsOf(key, {}, scopedTo(project.id))).map((s) => s.skillId)).toEqual([local])
      }))

    it.effect("update_skill: content first, then edits in order, each seeing earlier results; one version bump", () =>
      Effect.gen(function*() {
        const { key, project } = yield* seedOwner("skill-edits")
        const id = yield* createSkill(key, { name: "deploy" }, scopedTo(project.id))
        const result = yield* updateSkill(key, id, {
          content: "# Deploy v2\nSee scripts/run.sh\n",
          edits: [
            { op: "replace", path: "SKILL.md", oldString: "v2", newString: "v3" },
            { op: "write", path: "scripts/run.sh", content: "echo one\necho one\n" },
            { op: "replace", path: "scripts/run.sh", oldString: "one", newString: "two", replaceAll: true },
            { op: "write", path: "notes.md", content: "" },
            { op: "move", path: "scripts/run.sh", newPath: "bin/run.sh" },
            { op: "replace", path: "SKILL.md", oldString: "scripts/run.sh", newString: "bin/run.sh" },
            { op: "write", path: "tmp.txt", content: "scratch" },
            { op: "delete", path: "tmp.txt" },
            { op: "replace", path: "bin/run.sh", oldString: "echo two\n", newString: "", replaceAll: true },
            { op: "write", path: "bin/run.sh", content: "exec make\n" }
          ]
        })
        expect(result).toEqual({ ok: true, version: 2 })
        expect(yield* getSkill(key, id)).toMatchObject({
          version: 2,
          skillMd: "# Deploy v3\nSee bin/run.sh\n",
          files: [{ path: "bin/run.sh", content: "exec make\n" }, { path: "notes.md", content: "" }]
        })
      }))

    it.effect("a save that leaves everything as stored succeeds without a version bump; a column change alone bumps it", () =>
      Effect.gen(function*() {
        const { key, project } = yield* seedOwner("skill-nochange")
        const id = yield* createSkill(key, { name: "deploy", description: "Ships" }, scopedTo(project.id))
        expect(yield* updateSkill(key, id, { edits: [{ op: "write", path: "a.md", content: "A" }] })).toEqual({ ok: true, version: 2 })
        expect(yield* updateSkill(key, id, {})).toEqual({ ok: true, version: 2 })
        expect(
          yield* updateSkill(key, id, {
            content: SKILL_MD,
            name: "deploy",
            description: "Ships",
            edits: [
              { op: "write", path: "a.md", content: "A" },
              { op: "move", path: "a.md", newPath: "b.md" },
              { op: "move", path: "b.md", newPath: "a.md" },
              { op: "replace", path: "a.md", oldString: "A", newString: "A" }
            ]
          })
        ).toEqual({ ok: true, version: 2 })
        expect(yield* updateSkill(key, id, { description: null })).toEqual({ ok: true, version: 3 })
        expect(yield* updateSkill(key, id, { description: null, category: null })).toEqual({ ok: true, version: 3 })
        expect(yield* updateSkill(key, id, { name: "ship" })).toEqual({ ok: true, version: 4 })
        expect(yield* getSkill(key, id)).toMatchObject({ name: "ship", description: null, version: 4 })
      }))

    it.effect("a name, description or category update that sets the stored values, alone or together, keeps the version", () =>
      Effect.gen(function*() {
        const { key, project } = yield* seedOwner("skill-same-columns")
        const id = yield* createSkill(key, { name: "deploy", description: "Ships it", category: "ops" }, scopedTo(project.id))
        for (
          const same of [
            { name: "deploy" },
            { description: "Ships it" },
            { category: "ops" },
            { name: "deploy", description: "Ships it", category: "ops" },
            { content: SKILL_MD, name: "deploy", category: "ops", edits: [] }
          ]
        ) {
          expect(yield* updateSkill(key, id, same), JSON.stringify(same)).toEqual({ ok: true, version: 1 })
        }
        expect(yield* updateSkill(key, id, { category: "release" })).toEqual({ ok: true, version: 2 })
        expect(yield* updateSkill(key, id, { category: "release", description: "Ships it" })).toEqual({ ok: true, version: 2 })
        expect(yield* getSkill(key, id)).toMatchObject({ name: "deploy", description: "Ships it", category: "release", version: 2 })
      }))

    it.effect("an unplaceable replace is a result { ok: false, index, code, message, occurrences } and writes nothing, column changes included", () =>
      Effect.gen(function*() {
        const { key, project } = yield* seedOwner("skill-replace")
        const id = yield* createSkill(key, { name: "deploy", description: "Ships" }, scopedTo(project.id))
        yield* updateSkill(key, id, { edits: [{ op: "write", path: "run.sh", content: "make\nmake\n" }] })
        const before = yield* getSkill(key, id)
        const notFound = yield* updateSkill(key, id, {
          name: "renamed",
          description: "changed",
          content: "# New SKILL.md",
          edits: [
            { op: "write", path: "new.md", content: "new" },
            { op: "replace", path: "run.sh", oldString: "MAKE", newString: "x" }
          ]
        })
        expect(notFound).toEqual({
          ok: false,
          index: 1,
          code: "old_string_not_found",
          message: expect.stringContaining("run.sh"),
          occurrences: 0
        })
        const multiple = yield* updateSkill(key, id, {
          category: "changed",
          edits: [{ op: "replace", path: "run.sh", oldString: "make", newString: "x" }]
        })
        expect(multiple).toEqual({
          ok: false,
          index: 0,
          code: "multiple_matches",
          message: expect.stringContaining("replaceAll"),
          occurrences: 2
        })
        expect(yield* getSkill(key, id)).toEqual(before)
        expect(
          yield* updateSkill(key, id, { edits: [{ op: "replace", path: "run.sh", oldString: "make", newString: "x", replaceAll: true }] })
        )
          .toEqual({ ok: true, version: before.version + 1 })
      }))

    it.effect("a missing file or a bad path is a plain tool error and writes nothing", () =>
      Effect.gen(function*() {
        const { key, project } = yield* seedOwner("skill-paths")
        const id = yield* createSkill(key, { name: "deploy" }, scopedTo(project.id))
        yield* updateSkill(key, id, { edits: [{ op: "write", path: "docs/a.md", content: "A" }] })
        const before = yield* getSkill(key, id)
        const first = { op: "write", path: "ok.md", content: "fine" }
        for (
          const [edit, code, mentions] of [
            [{ op: "replace", path: "docs/missing.md", oldString: "a", newString: "b" }, "not_found", "edits[1].path"],
            [{ op: "move", path: "missing.md", newPath: "b.md" }, "not_found", "missing.md"],
            [{ op: "delete", path: "docs/b.md" }, "not_found", "docs/b.md"],
            [{ op: "write", path: "/etc/passwd", content: "x" }, "invalid_argument", "edits.1.path"],
            [{ op: "write", path: "../up.md", content: "x" }, "invalid_argument", "edits.1.path"],
            [{ op: "write", path: "docs/../up.md", content: "x" }, "invalid_argument", "edits.1.path"],
            [{ op: "write", path: "docs//a.md", content: "x" }, "invalid_argument", "edits.1.path"],
            [{ op: "write", path: "docs/", content: "x" }, "invalid_argument", "edits.1.path"],
            [{ op: "write", path: "", content: "x" }, "invalid_argument", "edits.1.path"],
            [{ op: "write", path: "docs\\a.md", content: "x" }, "invalid_argument", "edits.1.path"],
            [{ op: "move", path: "docs/a.md", newPath: "../a.md" }, "invalid_argument", "edits.1.newPath"],
            [{ op: "move", path: "docs/a.md", newPath: "ok.md" }, "invalid_argument", "edits[1].newPath"],
            [{ op: "move", path: "docs/a.md", newPath: "SKILL.md" }, "invalid_argument", "edits[1].newPath"],
            [{ op: "move", path: "SKILL.md", newPath: "README.md" }, "invalid_argument", "SKILL.md cannot be renamed"],
            [{ op: "delete", path: "SKILL.md" }, "invalid_argument", "SKILL.md cannot be deleted"],
            [{ op: "replace", path: "docs/a.md", oldString: "", newString: "b" }, "invalid_argument", "oldString"],
            [{ op: "chmod", path: "docs/a.md" }, "invalid_argument", "op"]
          ] as const
        ) {
          expect(yield* fails(key, "update_skill", { skillId: id, name: "renamed", edits: [first, edit] }), JSON.stringify(edit))
            .toMatchObject({
              code,
              message: expect.stringContaining(mentions)
            })
        }
        expect(yield* getSkill(key, id)).toEqual(before)
      }))

    it.effect("caps: 50 files with SKILL.md, 256 KB per file, 1 MB over the whole file set; a breach writes nothing", () =>
      Effect.gen(function*() {
        const { key, project } = yield* seedOwner("skill-caps")
        const id = yield* createSkill(key, { name: "big" }, scopedTo(project.id))
        const files = (n: number) => Array.from({ length: n }, (_, i) => ({ op: "write", path: `f${i}.md`, content: `${i}` }))
        expect(yield* fails(key, "update_skill", { skillId: id, edits: files(50) })).toMatchObject({
          code: "limit_exceeded",
          message: expect.stringContaining("at most 50 files")
        })
        expect(yield* updateSkill(key, id, { edits: files(49) })).toEqual({ ok: true, version: 2 })
        const deleteAll = Array.from({ length: 49 }, (_, i) => ({ op: "delete", path: `f${i}.md` }))
        expect(yield* updateSkill(key, id, { edits: deleteAll })).toEqual({ ok: true, version: 3 })

        expect(yield* fails(key, "update_skill", { skillId: id, edits: [{ op: "write", path: "huge.md", content: kb(256) + "x" }] }))
          .toMatchObject({ code: "limit_exceeded", message: expect.stringContaining("huge.md") })
        // Multi-byte characters count as bytes, not as string length.
        expect(yield* fails(key, "update_skill", { skillId: id, content: "é".repeat(128 * 1024 + 1) }))
          .toMatchObject({ code: "limit_exceeded", message: expect.stringContaining("SKILL.md") })
        expect(yield* fails(key, "create_skill", { name: "huge", content: kb(257) }, scopedTo(project.id))).toMatchObject({
          code: "limit_exceeded"
        })
        expect(yield* updateSkill(key, id, { edits: [{ op: "write", path: "max.md", content: kb(256) }] })).toEqual({
          ok: true,
          version: 4
        })

        const quarter = (path: string) => ({ op: "write", path, content: kb(250) })
        // max.md (256 KB) + 3 × 250 KB + SKILL.md is over 1 MB only because SKILL.md counts too.
        const skillMd = kb(20)
        expect(
          yield* fails(key, "update_skill", { skillId: id, content: skillMd, edits: [quarter("a.md"), quarter("b.md"), quarter("c.md")] })
        )
          .toMatchObject({ code: "limit_exceeded", message: expect.stringContaining("1 MB") })
        expect(yield* updateSkill(key, id, { content: "small", edits: [quarter("a.md"), quarter("b.md"), quarter("c.md")] }))
          .toEqual({ ok: true, version: 5 })
        expect((yield* getSkill(key, id)).files.map((f) => f.path)).toEqual(["a.md", "b.md", "c.md", "max.md"])
      }))

    it.effect("delete_skill returns null and removes the Skill with its files", () =>
      Effect.gen(function*() {
        const { key, project } = yield* seedOwner("skill-delete")
        const scope = scopedTo(project.id)
        const id = yield* createSkill(key, { name: "gone" }, scope)
        yield* updateSkill(key, id, { edits: [{ op: "write", path: "a.md", content: "A" }] })
        yield* okNull(key, "delete_skill", { skillId: id })
        expect(yield* skillsOf(key, {}, scope)).toEqual([])
        expect(yield* fails(key, "get_skill", { skillId: id })).toMatchObject({
          code: "not_found",
          message: `skillId: Skill ${id} not found`
        })
        expect(yield* fails(key, "delete_skill", { skillId: id })).toMatchObject({ code: "not_found" })
        expect(yield* fails(key, "update_skill", { skillId: id, content: "x" })).toMatchObject({ code: "not_found" })
        yield* isNull(key, "load_skill", { name: "gone" }, scope)
        yield* createSkill(key, { name: "gone" }, scope)
      }))

    it.effect("load_skill returns { name, description, skillMd, paths } of a project Skill, and null for a missing or impossible name", () =>
      Effect.gen(function*() {
        const { key, project } = yield* seedOwner("skill-load")
        const scope = scopedTo(project.id)
        const id = yield* createSkill(key, { name: "deploy", description: "Ships it" }, scope)
        yield* updateSkill(key, id, {
          edits: [{ op: "write", path: "scripts/run.sh", content: "make" }, { op: "write", path: "a.md", content: "" }]
        })
        expect(yield* ok(key, "load_skill", { name: "deploy" }, scope)).toEqual({
          name: "deploy",
          description: "Ships it",
          skillMd: SKILL_MD,
          paths: ["a.md", "scripts/run.sh"]
        })
        expect(yield* ok(key, "load_skill", { name: "deploy", projectId: project.id })).toMatchObject({ name: "deploy" })
        for (const name of ["missing", "Deploy", "x", "../deploy", ""]) yield* isNull(key, "load_skill", { name }, scope)
      }))

    it.effect("read_skill_file returns { path, content }, and null for a missing Skill, a missing path or a malformed path", () =>
      Effect.gen(function*() {
        const { key, project } = yield* seedOwner("skill-read")
        const scope = scopedTo(project.id)
        const id = yield* createSkill(key, { name: "deploy" }, scope)
        yield* updateSkill(key, id, {
          edits: [{ op: "write", path: "scripts/run.sh", content: "make" }, { op: "write", path: "empty.md", content: "" }]
        })
        expect(yield* ok(key, "read_skill_file", { name: "deploy", path: "scripts/run.sh" }, scope)).toEqual({
          path: "scripts/run.sh",
          content: "make"
        })
        expect(yield* ok(key, "read_skill_file", { name: "deploy", path: "empty.md" }, scope)).toEqual({ path: "empty.md", content: "" })
        expect(yield* ok(key, "read_skill_file", { name: "deploy", path: "SKILL.md" }, scope)).toEqual({
          path: "SKILL.md",
          content: SKILL_MD
        })
        for (
          const [name, path] of [
            ["missing", "scripts/run.sh"],
            ["Bad Name", "scripts/run.sh"],
            ["deploy", "scripts/other.sh"],
            ["deploy", "/scripts/run.sh"],
            ["deploy", "scripts/../scripts/run.sh"],
            ["deploy", "scripts//run.sh"],
            ["deploy", "scripts\\run.sh"],
            ["deploy", ""],
            ["deploy", "constructor"],
            ["deploy", "__proto__"]
          ] as const
        ) {
          yield* isNull(key, "read_skill_file", { name, path }, scope)
        }
      }))

    it.effect("organization Skills are never reachable through load_skill or read_skill_file", () =>
      Effect.gen(function*() {
        const { key, project } = yield* seedOwner("skill-load-org")
        const scope = scopedTo(project.id)
        const orgSkill = yield* createSkill(key, { name: "shared", scope: "organization" }, scope)
        yield* updateSkill(key, orgSkill, { edits: [{ op: "write", path: "a.md", content: "A" }] })
        yield* isNull(key, "load_skill", { name: "shared" }, scope)
        yield* isNull(key, "read_skill_file", { name: "shared", path: "a.md" }, scope)
        yield* isNull(key, "read_skill_file", { name: "shared", path: "SKILL.md" }, scope)
      }))

    it.effect("a key narrowed to projects cannot reach organization Skills through any tool", () =>
      Effect.gen(function*() {
        const { key, organization, project, user } = yield* seedOwner("skill-narrowed")
        const scope = scopedTo(project.id)
        const orgSkill = yield* createSkill(key, { name: "shared", scope: "organization" }, scope)
        const local = yield* createSkill(key, { name: "local" }, scope)
        const narrowed = (yield* createKey(user.id, [project.id])).secret
        for (
          const [name, args] of [
            ["list_skills", { scope: "organization" }],
            ["list_skills", { scope: "organization", organization: organization.slug }],
            ["create_skill", { name: "mine", content: "x", scope: "organization" }],
            ["get_skill", { skillId: orgSkill }],
            ["update_skill", { skillId: orgSkill, content: "x" }],
            ["delete_skill", { skillId: orgSkill }]
          ] as const
        ) {
          expect(yield* fails(narrowed, name, args, scope), name).toMatchObject({
            code: "forbidden",
            message: expect.stringContaining("narrowed")
          })
        }
        yield* isNull(narrowed, "load_skill", { name: "shared" }, scope)
        expect((yield* getSkill(narrowed, local)).name).toBe("local")
        expect((yield* getSkill(key, orgSkill)).version).toBe(1)
      }))

    it.effect("project Skills need project role admin or member to change; organization Skills need organization owner or admin", () =>
      Effect.gen(function*() {
        const { key, organization, project } = yield* seedOwner("skill-roles")
        const scope = scopedTo(project.id)
        const id = yield* createSkill(key, { name: "local" }, scope)
        const orgSkill = yield* createSkill(key, { name: "shared", scope: "organization" }, scope)
        const viewer = yield* joinAs(project.id, "skill-roles-viewer", "viewer")
        expect((yield* getSkill(viewer.key, id)).name).toBe("local")
        yield* ok(viewer.key, "load_skill", { name: "local" }, scope)
        for (
          const [name, args] of [
            ["create_skill", { name: "mine", content: "x" }],
            ["update_skill", { skillId: id, content: "x" }],
            ["delete_skill", { skillId: id }]
          ] as const
        ) {
          expect(yield* fails(viewer.key, name, args, scope), name).toMatchObject({ code: "forbidden" })
        }
        const orgMember = yield* (yield* Users).create({ name: "Org member", email: "m@skill-roles.test" })
        yield* (yield* Memberships).addToOrganization(organization.id, orgMember.id, "member")
        const memberKey = (yield* createKey(orgMember.id, null)).secret
        expect((yield* getSkill(memberKey, orgSkill)).name).toBe("shared")
        expect(yield* fails(memberKey, "update_skill", { skillId: orgSkill, content: "x" })).toMatchObject({
          code: "forbidden",
          message: expect.stringContaining("owner or admin")
        })
        expect((yield* getSkill(key, orgSkill)).version).toBe(1)
      }))

    it.effect("another organization's Skill is not found by ID, whether it exists or not", () =>
      Effect.gen(function*() {
        const a = yield* seedOwner("skill-tenant-a")
        const b = yield* seedOwner("skill-tenant-b")
        const local = yield* createSkill(a.key, { name: "secret" }, scopedTo(a.project.id))
        const shared = yield* createSkill(a.key, { name: "shared", scope: "organization" }, scopedTo(a.project.id))
        for (const skillId of [local, shared, SkillId.generate()]) {
          for (const [name, args] of [["get_skill", {}], ["update_skill", { content: "x" }], ["delete_skill", {}]] as const) {
            expect(yield* fails(b.key, name, { skillId, ...args }), name).toMatchObject({
              code: "not_found",
              message: `skillId: Skill ${skillId} not found`
            })
          }
        }
        yield* isNull(b.key, "load_skill", { name: "secret" }, scopedTo(b.project.id))
        expect((yield* getSkill(a.key, local)).version).toBe(1)
      }))
  })
})
