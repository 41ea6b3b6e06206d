import { describe, expect, it } from "@effect/vitest"
import { Effect, Either } from "effect"
import { applySkillEdits, SKILL_MD, skillPathProblem } from "../../../catalog/domain/Skill.js"

const stored = new Map([[SKILL_MD, "# Skill\n"], ["docs/a.md", "one two two"]])

describe("Skill files", () => {
  it.effect("a path is relative POSIX: no leading slash, backslash, empty, . or .. segment", () =>
    Effect.sync(() => {
      for (const good of ["a.md", "docs/a.md", "a/b/c/d.txt", ".hidden", "a..b/c", "SKILL.md", "x".repeat(500)]) {
        expect(skillPathProblem(good), good).toBeUndefined()
      }
      for (const bad of ["", "/a.md", "a\\b.md", "a//b.md", "a/", "./a.md", "a/./b", "../a.md", "a/../b", "a/..", "x".repeat(501)]) {
        expect(skillPathProblem(bad), bad).toEqual(expect.any(String))
      }
    }))

  it.effect("edits see earlier edits' results, after content", () =>
    Effect.sync(() => {
      const result = applySkillEdits(stored, "# New\n", [
        { op: "replace", path: SKILL_MD, oldString: "New", newString: "Newer" },
        { op: "move", path: "docs/a.md", newPath: "b.md" },
        { op: "replace", path: "b.md", oldString: "two", newString: "2", replaceAll: true }
      ])
      expect(Either.map(result, (files) => Object.fromEntries(files))).toEqual(Either.right({ [SKILL_MD]: "# Newer\n", "b.md": "one 2 2" }))
    }))

  it.effect("replacement text is literal: $& and $1 are not patterns", () =>
    Effect.sync(() => {
      const result = applySkillEdits(stored, undefined, [{ op: "replace", path: "docs/a.md", oldString: "one", newString: "$&$1$$" }])
      expect(Either.map(result, (files) => files.get("docs/a.md"))).toEqual(Either.right("$&$1$$ two two"))
    }))

  it.effect("an unplaceable replace names its index, code and the number of occurrences", () =>
    Effect.sync(() => {
      const write = { op: "write", path: "x.md", content: "x" } as const
      expect(applySkillEdits(stored, undefined, [write, { op: "replace", path: "docs/a.md", oldString: "two", newString: "2" }]))
        .toMatchObject({ left: { ok: false, index: 1, code: "multiple_matches", occurrences: 2 } })
      expect(
        applySkillEdits(stored, undefined, [{ op: "replace", path: "docs/a.md", oldString: "three", newString: "3", replaceAll: true }])
      )
        .toMatchObject({ left: { ok: false, index: 0, code: "old_string_not_found", occurrences: 0 } })
    }))

  it.effect("the stored files are never changed, whatever the outcome", () =>
    Effect.sync(() => {
      const before = new Map(stored)
      applySkillEdits(stored, "# Changed\n", [{ op: "delete", path: "docs/a.md" }])
      applySkillEdits(stored, undefined, [{ op: "delete", path: "docs/a.md" }, { op: "delete", path: "missing" }])
      expect(stored).toEqual(before)
    }))
})
