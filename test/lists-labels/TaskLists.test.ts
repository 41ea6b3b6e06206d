import { SqlClient } from "@effect/sql"
import * as Migrator from "@effect/sql/Migrator"
import { describe, expect, layer } from "@effect/vitest"
import { Effect, Schema } from "effect"
import type { ProjectAccess } from "../../src/platform/auth/Principal.js"
import { runMigrations } from "../../src/platform/sql/Migrations.js"
import identity from "../../src/platform/sql/migrations/0001_identity.js"
import type { ToolError } from "../../catalog/domain/Errors.js"
import { OrganizationId, ProjectId, TaskListId } from "../../catalog/domain/Ids.js"
import type { ProjectRole } from "../../catalog/domain/Roles.js"
import { deriveListRef, ListColor } from "../../catalog/domain/TaskList.js"
import { Projects } from "../../src/projects/Projects.js"
import { TaskLists } from "../../src/lists-labels/TaskLists.js"
import { concurrently, EmptyTestDatabase } from "../support/TestDatabase.js"
import { ServiceTest } from "../support/ServiceTest.js"
import { seedOwner } from "../support/Seed.js"

/** A fresh organization and project, seen with `role`. */
const seed = (slug: string, role: ProjectRole = "admin") =>
  Effect.gen(function*() {
    const owner = yield* seedOwner(slug)
    const access: ProjectAccess = { project: owner.project, role }
    return { ...owner, access, taskLists: yield* TaskLists }
  })

const refsOf = (lists: ReadonlyArray<{ readonly ref: string }>) => lists.map((list) => list.ref)

const archiveAll = (projectId: ProjectId) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) => sql`UPDATE task_lists SET archived_at = now() WHERE project_id = ${projectId} AND NOT is_system`.pipe(Effect.orDie)
  )

describe("TaskLists", () => {
  layer(ServiceTest(TaskLists.Default))((it) => {
    it.effect("every new project has a system BACKLOG List, first in List order", () =>
      Effect.gen(function*() {
        const { access, taskLists } = yield* seed("backlog")
        yield* taskLists.create(access, { name: "Design" })
        const { lists } = yield* taskLists.list(access)
        expect(refsOf(lists)).toEqual(["BACKLOG", "DESIGN"])
        expect(lists[0]).toMatchObject({
          name: "Backlog",
          isSystem: true,
          color: null,
          defaultViewMode: null,
          defaultBoardGroupBy: null
        })
        expect(lists[1]?.isSystem).toBe(false)
      }))

    it.effect("a List name is trimmed, must not be blank, and is at most 80 characters", () =>
      Effect.gen(function*() {
        const { access, taskLists } = yield* seed("names")
        expect((yield* taskLists.create(access, { name: "  Roadmap  " })).name).toBe("Roadmap")
        expect(yield* Effect.flip(taskLists.create(access, { name: "   " }))).toMatchObject({
          _tag: "InvalidArgument",
          message: expect.stringContaining("name: must not be empty")
        })
        expect(yield* Effect.flip(taskLists.create(access, { name: "x".repeat(81) }))).toMatchObject({
          _tag: "InvalidArgument",
          message: expect.stringContaining("name: must be at most 80 characters")
        })
        expect((yield* taskLists.create(access, { name: "y".repeat(80) })).name).toHaveLength(80)
        expect(yield* Effect.flip(taskLists.update(access, "ROADMAP", { name: "" }))).toMatchObject({ _tag: "InvalidArgument" })
      }))

    it.effect("List names are unique per project ignoring case (Conflict naming name), on create and rename", () =>
      Effect.gen(function*() {
        const { access, organization, taskLists } = yield* seed("unique-names")
        yield* taskLists.create(access, { name: "Design" })
        const other = yield* taskLists.create(access, { name: "Research" })
        expect(yield* Effect.flip(taskLists.create(access, { name: "DESIGN", ref: "D2" }))).toMatchObject({
          _tag: "Conflict",
          message: expect.stringMatching(/^name: .*"DESIGN"/)
        })
        expect(yield* Effect.flip(taskLists.update(access, other.id, { name: "design" }))).toMatchObject({
          _tag: "Conflict",
          message: expect.stringContaining("name:")
        })
        expect(yield* Effect.flip(taskLists.create(access, { name: "backlog" }))).toMatchObject({ _tag: "Conflict" })
        // Another project may use the same name.
        const second = yield* (yield* Projects).create({ organizationId: organization.id, name: "Second", ref: "SECOND" })
        expect((yield* taskLists.create({ ...access, project: second }, { name: "Design" })).ref).toBe("DESIGN")
      }))

    it.effect("an explicit ref is accepted in any case, stored uppercase, and must match the ref pattern", () =>
      Effect.gen(function*() {
        const { access, taskLists } = yield* seed("refs")
        expect((yield* taskLists.create(access, { name: "Ops", ref: "ops_team-1" })).ref).toBe("OPS_TEAM-1")
        for (const ref of ["1ABC", "A B", "ÉTÉ", "A".repeat(21), "", "-X"]) {
          expect(yield* Effect.flip(taskLists.create(access, { name: `Bad ${ref}`, ref }))).toMatchObject({
            _tag: "InvalidArgument",
            message: expect.stringContaining("ref: ")
          })
        }
        expect((yield* taskLists.create(access, { name: "Long", ref: "a".repeat(20) })).ref).toBe("A".repeat(20))
      }))

    it.effect("BACKLOG and ARCHIVED are reserved refs, on create and on update", () =>
      Effect.gen(function*() {
        const { access, taskLists } = yield* seed("reserved")
        const list = yield* taskLists.create(access, { name: "Mine" })
        for (const ref of ["BACKLOG", "archived", "Backlog"]) {
          expect(yield* Effect.flip(taskLists.create(access, { name: `List ${ref}`, ref }))).toMatchObject({
            _tag: "InvalidArgument",
            message: expect.stringMatching(/^ref: (BACKLOG|ARCHIVED) is reserved/)
          })
          expect(yield* Effect.flip(taskLists.update(access, list.id, { ref }))).toMatchObject({
            _tag: "InvalidArgument",
            message: expect.stringContaining("is reserved")
          })
        }
      }))

    it.effect("refs are unique per project (Conflict naming ref), on create and update", () =>
      Effect.gen(function*() {
        const { access, taskLists } = yield* seed("unique-refs")
        yield* taskLists.create(access, { name: "Alpha", ref: "ALPHA" })
        const beta = yield* taskLists.create(access, { name: "Beta" })
        expect(yield* Effect.flip(taskLists.create(access, { name: "Other", ref: "alpha" }))).toMatchObject({
          _tag: "Conflict",
          message: expect.stringMatching(/^ref: .*ALPHA/)
        })
        expect(yield* Effect.flip(taskLists.update(access, beta.id, { ref: "ALPHA" }))).toMatchObject({
          _tag: "Conflict",
          message: expect.stringContaining("ref:")
        })
      }))

    it.effect("a ref derived from the name is uppercase, dashed, cut to 20 and made unique with a numeric suffix", () =>
      Effect.gen(function*() {
        const { access, taskLists } = yield* seed("derived")
        expect((yield* taskLists.create(access, { name: "Q3 goals & risks!" })).ref).toBe("Q3-GOALS-RISKS")
        expect((yield* taskLists.create(access, { name: "Café déjà vu" })).ref).toBe("CAFE-DEJA-VU")
        expect((yield* taskLists.create(access, { name: "Design" })).ref).toBe("DESIGN")
        yield* taskLists.create(access, { name: "Some list", ref: "DESIGN-2" })
        expect((yield* taskLists.create(access, { name: "design!" })).ref).toBe("DESIGN-3")
        expect((yield* taskLists.create(access, { name: "A very long list name indeed" })).ref).toBe("A-VERY-LONG-LIST-NAM")
        expect((yield* taskLists.create(access, { name: "A very long list name too" })).ref).toBe("A-VERY-LONG-LIST-N-2")
        expect((yield* taskLists.create(access, { name: "Archived" })).ref).toBe("ARCHIVED-2")
        expect((yield* taskLists.create(access, { name: "2025" })).ref).toBe("LIST")
        expect(deriveListRef("--- 42 things", [])).toBe("THINGS")
        expect(deriveListRef("🚀", ["LIST", "LIST-2"])).toBe("LIST-3")
      }))

    it.effect("the system BACKLOG List cannot be updated", () =>
      Effect.gen(function*() {
        const { access, taskLists } = yield* seed("system")
        const { lists } = yield* taskLists.list(access)
        const backlog = lists[0]!
        for (const address of [backlog.id, "backlog"]) {
          expect(yield* Effect.flip(taskLists.update(access, address, { name: "Inbox" }))).toMatchObject({
            _tag: "InvalidArgument",
            message: expect.stringContaining("listId: BACKLOG is a system List")
          })
        }
        expect((yield* taskLists.resolve(access, "BACKLOG")).name).toBe("Backlog")
      }))

    it.effect("at most 20 active Lists per project, the system BACKLOG not counted (LimitExceeded)", () =>
      Effect.gen(function*() {
        const { access, taskLists } = yield* seed("limit")
        for (let n = 1; n <= 20; n++) yield* taskLists.create(access, { name: `List ${n}` })
        expect(yield* Effect.flip(taskLists.create(access, { name: "One too many" }))).toMatchObject({
          _tag: "LimitExceeded",
          message: expect.stringContaining("20 active Lists")
        })
        expect((yield* taskLists.list(access, { limit: 50 })).lists).toHaveLength(21)
      }))

    it.effect("archived Lists do not count towards the limit and are listed only with archived: true", () =>
      Effect.gen(function*() {
        const { access, project, taskLists } = yield* seed("archived")
        for (let n = 1; n <= 20; n++) yield* taskLists.create(access, { name: `Old ${n}` })
        yield* archiveAll(project.id)
        yield* taskLists.create(access, { name: "Fresh" })
        expect(refsOf((yield* taskLists.list(access)).lists)).toEqual(["BACKLOG", "FRESH"])
        const archived = yield* taskLists.list(access, { archived: true, limit: 50 })
        expect(archived.lists).toHaveLength(20)
        expect(archived.lists.every((list) => list.archivedAt !== null)).toBe(true)
        // Archived Lists keep their name and ref.
        expect(yield* Effect.flip(taskLists.create(access, { name: "Old 1" }))).toMatchObject({ _tag: "Conflict" })
        expect((yield* taskLists.resolve(access, "old-1")).name).toBe("Old 1")
      }))

    it.effect(concurrently("the 20-List limit holds under racing creates"), () =>
      Effect.gen(function*() {
        const { access, taskLists } = yield* seed("race-limit")
        const results = yield* Effect.forEach(
          Array.from({ length: 26 }, (_, n) => n),
          (n) => Effect.either(taskLists.create(access, { name: `Racer ${n}` })),
          { concurrency: "unbounded" }
        )
        const failures = results.filter((result) => result._tag === "Left")
        expect(results.length - failures.length).toBe(20)
        expect(failures.every((result) => result.left._tag === "LimitExceeded")).toBe(true)
        expect((yield* taskLists.list(access, { limit: 50 })).lists).toHaveLength(21)
      }))

    it.effect(concurrently("names and refs stay unique under racing creates"), () =>
      Effect.gen(function*() {
        const { access, taskLists } = yield* seed("race-unique")
        const sameName = yield* Effect.forEach(
          Array.from({ length: 6 }),
          () => Effect.either(taskLists.create(access, { name: "Contested" })),
          { concurrency: "unbounded" }
        )
        expect(sameName.filter((result) => result._tag === "Right")).toHaveLength(1)
        expect(sameName.filter((result) => result._tag === "Left" && result.left._tag === "Conflict")).toHaveLength(5)
        const derived = yield* Effect.forEach(
          Array.from({ length: 6 }, (_, n) => n),
          (n) => taskLists.create(access, { name: `Same prefix${"!".repeat(n)}` }),
          { concurrency: "unbounded" }
        )
        expect(new Set(derived.map((list) => list.ref)).size).toBe(6)
      }))

    it.effect("color comes from the List palette, and null clears it on update", () =>
      Effect.gen(function*() {
        const { access, taskLists } = yield* seed("colors")
        expect(ListColor.literals).toHaveLength(10)
        const list = yield* taskLists.create(access, { name: "Colored", color: "teal" })
        expect(list.color).toBe("teal")
        expect((yield* taskLists.update(access, list.id, { name: "Still colored" })).color).toBe("teal")
        expect((yield* taskLists.update(access, list.id, { color: null })).color).toBeNull()
        expect((yield* taskLists.create(access, { name: "Plain" })).color).toBeNull()
      }))

    it.effect("defaultViewMode null or omitted inherits the project default (stored as null)", () =>
      Effect.gen(function*() {
        const { access, taskLists } = yield* seed("view-mode")
        expect((yield* taskLists.create(access, { name: "Omitted" })).defaultViewMode).toBeNull()
        expect((yield* taskLists.create(access, { name: "Null", defaultViewMode: null })).defaultViewMode).toBeNull()
        const board = yield* taskLists.create(access, { name: "Board", defaultViewMode: "board" })
        expect(board.defaultViewMode).toBe("board")
        expect((yield* taskLists.update(access, board.id, { defaultViewMode: null })).defaultViewMode).toBeNull()
      }))

    it.effect("defaultBoardGroupBy applies only to board views, defaulting to status, and is ignored otherwise", () =>
      Effect.gen(function*() {
        const { access, taskLists } = yield* seed("group-by")
        const board = yield* taskLists.create(access, { name: "Board", defaultViewMode: "board" })
        expect(board.defaultBoardGroupBy).toBe("status")
        const byLabel = yield* taskLists.create(access, { name: "By label", defaultViewMode: "board", defaultBoardGroupBy: "label" })
        expect(byLabel.defaultBoardGroupBy).toBe("label")
        const flat = yield* taskLists.create(access, { name: "Flat", defaultViewMode: "list", defaultBoardGroupBy: "priority" })
        expect(flat.defaultBoardGroupBy).toBeNull()
        const inherited = yield* taskLists.create(access, { name: "Inherited", defaultBoardGroupBy: "priority" })
        expect(inherited.defaultBoardGroupBy).toBeNull()

        // Kept while the List stays a board, changed with it, reset when it stops being one.
        expect((yield* taskLists.update(access, byLabel.id, { name: "Labels" })).defaultBoardGroupBy).toBe("label")
        expect((yield* taskLists.update(access, byLabel.id, { name: "Owners", defaultBoardGroupBy: "assignee" })).defaultBoardGroupBy)
          .toBe("assignee")
        expect((yield* taskLists.update(access, byLabel.id, { defaultViewMode: "board", defaultBoardGroupBy: null })).defaultBoardGroupBy)
          .toBe("status")
        expect((yield* taskLists.update(access, byLabel.id, { defaultViewMode: "list" })).defaultBoardGroupBy).toBeNull()
        expect((yield* taskLists.update(access, flat.id, { defaultViewMode: "board" })).defaultBoardGroupBy).toBe("status")
      }))

    it.effect("an update needs at least one of name, ref, color, defaultViewMode", () =>
      Effect.gen(function*() {
        const { access, taskLists } = yield* seed("empty-update")
        const list = yield* taskLists.create(access, { name: "Target" })
        for (const patch of [{}, { defaultBoardGroupBy: "label" as const }]) {
          expect(yield* Effect.flip(taskLists.update(access, list.id, patch))).toMatchObject({
            _tag: "InvalidArgument",
            message: expect.stringContaining("name, ref, color, defaultViewMode: pass at least one")
          })
        }
      }))

    it.effect("an update keeps omitted fields, and renaming keeps the ref", () =>
      Effect.gen(function*() {
        const { access, taskLists } = yield* seed("partial")
        const list = yield* taskLists.create(access, { name: "Before", color: "red", defaultViewMode: "board" })
        const renamed = yield* taskLists.update(access, "before", { name: "After" })
        expect(renamed).toMatchObject({ id: list.id, name: "After", ref: "BEFORE", color: "red", defaultViewMode: "board" })
        const reffed = yield* taskLists.update(access, list.id, { ref: "after" })
        expect(reffed).toMatchObject({ name: "After", ref: "AFTER", rank: list.rank })
        expect(reffed.updatedAt.getTime()).toBeGreaterThanOrEqual(list.updatedAt.getTime())
      }))

    it.effect("a List is addressed by raw ID or bare ref in any case; another project's List is not found", () =>
      Effect.gen(function*() {
        const { access, organization, taskLists } = yield* seed("addressing")
        const list = yield* taskLists.create(access, { name: "Target", ref: "TGT" })
        for (const address of [list.id, "TGT", "tgt", " Tgt "]) {
          expect((yield* taskLists.resolve(access, address)).id).toBe(list.id)
        }
        const second = yield* (yield* Projects).create({ organizationId: organization.id, name: "Second", ref: "SECOND" })
        const elsewhere = { ...access, project: second }
        for (const address of [list.id, "TGT", TaskListId.generate()]) {
          expect(yield* Effect.flip(taskLists.resolve(elsewhere, address))).toMatchObject({
            _tag: "NotFound",
            message: `listId: list ${address} not found in project SECOND`
          })
          expect(yield* Effect.flip(taskLists.update(elsewhere, address, { name: "Stolen" }))).toMatchObject({ _tag: "NotFound" })
        }
      }))

    it.effect("managing Lists needs the project role member or admin (Forbidden for viewers)", () =>
      Effect.gen(function*() {
        const { access, taskLists } = yield* seed("permissions")
        const list = yield* taskLists.create(access, { name: "Existing" })
        const viewer: ProjectAccess = { ...access, role: "viewer" }
        const attempts: ReadonlyArray<Effect.Effect<unknown, ToolError>> = [
          taskLists.create(viewer, { name: "Nope" }),
          taskLists.update(viewer, list.id, { name: "Nope" })
        ]
        for (const attempt of attempts) {
          expect(yield* Effect.flip(attempt)).toMatchObject({
            _tag: "Forbidden",
            message: expect.stringContaining("requires the project role member or admin; the caller is viewer")
          })
        }
        expect((yield* taskLists.list(viewer)).lists).toHaveLength(2)
        const member: ProjectAccess = { ...access, role: "member" }
        expect((yield* taskLists.update(member, list.id, { name: "By a member" })).name).toBe("By a member")
      }))

    it.effect("Lists come back in rank order, the BACKLOG first, a page at a time with an opaque cursor", () =>
      Effect.gen(function*() {
        const { access, taskLists } = yield* seed("paging")
        const names = ["Zulu", "Alpha", "Mike", "Bravo", "Yankee"]
        for (const name of names) yield* taskLists.create(access, { name })
        const first = yield* taskLists.list(access, { limit: 2 })
        expect(refsOf(first.lists)).toEqual(["BACKLOG", "ZULU"])
        expect(first.nextCursor).toEqual(expect.stringMatching(/^[A-Za-z0-9_-]+$/))
        const second = yield* taskLists.list(access, { limit: 2, cursor: first.nextCursor })
        expect(refsOf(second.lists)).toEqual(["ALPHA", "MIKE"])
        const third = yield* taskLists.list(access, { limit: 2, cursor: second.nextCursor })
        expect(refsOf(third.lists)).toEqual(["BRAVO", "YANKEE"])
        expect(third.nextCursor).toBeNull()
        expect((yield* taskLists.list(access)).nextCursor).toBeNull()
      }))

    it.effect("List order follows creation past the first 62 Lists (ranks compare byte-wise)", () =>
      Effect.gen(function*() {
        const { access, project, taskLists } = yield* seed("many")
        const created: Array<string> = []
        for (let n = 0; n < 70; n++) {
          if (n > 0 && n % 20 === 0) yield* archiveAll(project.id)
          created.push((yield* taskLists.create(access, { name: `N${n}` })).ref)
        }
        yield* archiveAll(project.id)
        const archived = yield* taskLists.list(access, { archived: true, limit: 50 })
        const rest = yield* taskLists.list(access, { archived: true, limit: 50, cursor: archived.nextCursor })
        expect([...refsOf(archived.lists), ...refsOf(rest.lists)]).toEqual(created)
      }))

    it.effect("query finds Lists by name or ref ignoring case, the BACKLOG included when it matches", () =>
      Effect.gen(function*() {
        const { access, taskLists } = yield* seed("query")
        yield* taskLists.create(access, { name: "Marketing launch", ref: "MKT" })
        yield* taskLists.create(access, { name: "Back office" })
        yield* taskLists.create(access, { name: "Sales", ref: "LAUNCHPAD" })
        expect(refsOf((yield* taskLists.list(access, { query: "LAUNCH" })).lists)).toEqual(["MKT", "LAUNCHPAD"])
        expect(refsOf((yield* taskLists.list(access, { query: "back" })).lists)).toEqual(["BACKLOG", "BACK-OFFICE"])
        expect(refsOf((yield* taskLists.list(access, { query: "mkt" })).lists)).toEqual(["MKT"])
        expect((yield* taskLists.list(access, { query: "100%_" })).lists).toEqual([])
        expect((yield* taskLists.list(access, { query: "  " })).lists).toHaveLength(4)
        const paged = yield* taskLists.list(access, { query: "a", limit: 1 })
        expect((yield* taskLists.list(access, { query: "a", limit: 1, cursor: paged.nextCursor })).lists).toHaveLength(1)
      }))

    it.effect("a cursor not issued by the service or a limit outside 1–50 is InvalidArgument", () =>
      Effect.gen(function*() {
        const { access, taskLists } = yield* seed("bad-cursor")
        for (
          const cursor of ["garbage", "", Buffer.from("[1,2]").toString("base64url"), Buffer.from("[\"a0\",\"x\"]").toString("base64url")]
        ) {
          expect(yield* Effect.flip(taskLists.list(access, { cursor }))).toMatchObject({
            _tag: "InvalidArgument",
            message: expect.stringContaining("cursor: ")
          })
        }
        for (const limit of [0, 51, 2.5]) {
          expect(yield* Effect.flip(taskLists.list(access, { limit }))).toMatchObject({
            _tag: "InvalidArgument",
            message: expect.stringContaining("limit: must be an integer from 1 to 50")
          })
        }
      }))
  })
})

describe("migration 0002_lists_and_labels", () => {
  layer(EmptyTestDatabase)((it) => {
    it.effect("backfills a system BACKLOG List for projects created before Lists existed", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        yield* Migrator.make({})({ loader: Migrator.fromRecord({ "0001_identity": identity }), table: "trellis_migrations" })
        const organizationId = OrganizationId.generate()
        const projectIds = [ProjectId.generate(), ProjectId.generate()]
        yield* sql`INSERT INTO organizations (id, slug, name) VALUES (${organizationId}, 'before', 'Before')`
        yield* sql`INSERT INTO projects (id, organization_id, name, ref) VALUES
          (${projectIds[0]!}, ${organizationId}, 'One', 'ONE'), (${projectIds[1]!}, ${organizationId}, 'Two', 'TWO')`
        yield* runMigrations
        const rows = yield* sql<{ projectId: string; id: string; ref: string; name: string; isSystem: boolean }>`
          SELECT project_id AS "projectId", id, ref, name, is_system AS "isSystem" FROM task_lists ORDER BY project_id`
        expect(rows.map((row) => row.projectId)).toEqual([...projectIds].sort())
        for (const row of rows) {
          expect(row).toMatchObject({ ref: "BACKLOG", name: "Backlog", isSystem: true })
          expect(Schema.is(TaskListId)(row.id)).toBe(true)
        }
      }))
  })
})
