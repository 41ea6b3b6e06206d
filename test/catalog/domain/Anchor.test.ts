import { describe, expect, it } from "@effect/vitest"
import { Effect, FastCheck } from "effect"
import {
  anchorAt,
  changeBetween,
  CONTEXT_LENGTH,
  hasLoneSurrogate,
  locate,
  occurrences,
  relocate,
  snippetAt
} from "../../../catalog/domain/Anchor.js"

const anchorOn = (content: string, text: string, occurrence = 1) => {
  const found = locate(content, text, occurrence)
  if (found._tag === "Missing") throw new Error(`${text} #${occurrence} not in ${content}`)
  return found.anchor
}

const moved = (before: string, after: string, text: string, occurrence = 1) =>
  relocate(anchorOn(before, text, occurrence), after, changeBetween(before, after))

describe("Anchor", () => {
  it.effect("matches are counted left to right without overlapping, like replaceAll", () =>
    Effect.sync(() => {
      expect(occurrences("aaaa", "aa")).toEqual([0, 2])
      expect(occurrences("aaaa", "aa", true)).toEqual([0, 1, 2])
      expect(occurrences("abc", "")).toEqual([])
      expect(occurrences("Hello hello", "hello")).toEqual([6])
    }))

  it.effect("locate finds the nth match (1-based) with its context, or says how many there are", () =>
    Effect.sync(() => {
      const content = `${"x".repeat(40)}foo-foo${"y".repeat(40)}`
      const anchor = anchorOn(content, "foo", 2)
      expect(anchor).toEqual({
        text: "foo",
        start: 44,
        end: 47,
        prefix: `${"x".repeat(28)}foo-`,
        suffix: "y".repeat(CONTEXT_LENGTH),
        lost: false
      })
      expect(locate(content, "foo", 3)).toEqual({ _tag: "Missing", count: 2 })
      expect(locate(content, "bar", 1)).toEqual({ _tag: "Missing", count: 0 })
      expect(anchorAt("ab", 0, "a")).toMatchObject({ prefix: "", suffix: "b" })
    }))

  it.effect("context never splits a character made of a surrogate pair; a lone surrogate is detected", () =>
    Effect.sync(() => {
      const content = `${"😀".repeat(20)}x${"😀".repeat(20)}`
      const anchor = anchorOn(content, "x")
      expect(anchor.prefix).toBe("😀".repeat(CONTEXT_LENGTH / 2))
      expect(anchor.suffix).toBe("😀".repeat(CONTEXT_LENGTH / 2))
      const odd = anchorAt(`a${content}`, 41, "x")
      expect(hasLoneSurrogate(odd.prefix + odd.suffix)).toBe(false)
      expect(odd.prefix.length).toBe(CONTEXT_LENGTH)
      expect(hasLoneSurrogate("😀")).toBe(false)
      expect(hasLoneSurrogate("😀".slice(0, 1))).toBe(true)
      expect(hasLoneSurrogate("😀".slice(1))).toBe(true)
    }))

  it.effect("the change between two versions is the span between their common start and common end", () =>
    Effect.sync(() => {
      expect(changeBetween("abcdef", "abXYef")).toEqual({ from: 2, beforeEnd: 4, afterEnd: 4 })
      expect(changeBetween("abc", "abc")).toEqual({ from: 3, beforeEnd: 3, afterEnd: 3 })
      expect(changeBetween("abc", "abxc")).toEqual({ from: 2, beforeEnd: 2, afterEnd: 3 })
      expect(changeBetween("aaa", "aa")).toEqual({ from: 2, beforeEnd: 3, afterEnd: 2 })
    }))

  it.effect("an anchor the change did not touch keeps its text and shifts by the change's length", () =>
    Effect.sync(() => {
      expect(moved("one two three", "one two three four", "two")).toMatchObject({ start: 4, end: 7, lost: false })
      expect(moved("one two three", "zero one two three", "two")).toMatchObject({ start: 9, end: 12, lost: false })
      expect(moved("one two three", "one two 3", "two")).toMatchObject({ start: 4, suffix: " 3", lost: false })
    }))

  it.effect("a touched anchor goes to the match with its full context before any nearer bare match", () =>
    Effect.sync(() => {
      const a = "In the parser chapter we wrote this: TODO check the parser grammar rules again."
      const b = "In the network chapter we wrote this: TODO check the network retry logic again."
      const result = moved(`${a}\n${b}`, `${b}\n${a}`, "TODO", 2)
      expect(result).toMatchObject({ start: b.indexOf("TODO"), lost: false })
    }))

  it.effect("without its context, the snippet alone nearest its old position wins", () =>
    Effect.sync(() => {
      const before = "x TODO x TODO x TODO x"
      const anchor = anchorOn(before, "TODO", 2)
      expect(relocate(anchor, "y TODO y TODO y TODO y").start).toBe(anchor.start)
      expect(relocate(anchor, "TODO ------------- TODO").start).toBe(0)
    }))

  it.effect("a snippet found nowhere is lost, keeps its last position, and is found again when it returns", () =>
    Effect.sync(() => {
      const anchor = anchorOn("keep drop keep", "drop")
      const lost = relocate(anchor, "keep keep", changeBetween("keep drop keep", "keep keep"))
      expect(lost).toEqual({ ...anchor, lost: true })
      const back = relocate(lost, "keep keep drop", changeBetween("keep keep", "keep keep drop"))
      expect(back).toMatchObject({ start: 10, end: 14, lost: false })
    }))

  it.effect("property: after any change a relocated anchor is lost or points at its exact text; untouched ones keep their place", () =>
    Effect.sync(() => {
      const text = FastCheck.stringMatching(/^[ab \n]{0,30}$/)
      FastCheck.assert(
        FastCheck.property(text, text, FastCheck.nat(), FastCheck.integer({ min: 1, max: 4 }), (before, after, at, length) => {
          if (before.length === 0) return
          const start = at % before.length
          const snippet = before.slice(start, start + length)
          const anchor = anchorAt(before, start, snippet)
          const change = changeBetween(before, after)
          const result = relocate(anchor, after, change)
          expect(result.text).toBe(snippet)
          if (!result.lost) expect(after.slice(result.start, result.end)).toBe(snippet)
          if (anchor.end <= change.from) expect(result.start).toBe(anchor.start)
          if (anchor.start >= change.beforeEnd) expect(result.start).toBe(anchor.start + change.afterEnd - change.beforeEnd)
          if (after.includes(snippet)) expect(result.lost).toBe(false)
        }),
        { numRuns: 2000 }
      )
    }))

  it.effect("a selection becomes its snippet without the whitespace at its ends, and which match it is", () =>
    Effect.sync(() => {
      const content = "Ship the login page.\n\nThen the login form."
      expect(snippetAt(content, 0, 4)).toEqual({ anchorText: "Ship", occurrence: 1, start: 0 })
      expect(snippetAt(content, 30, 36)).toEqual({ anchorText: "login", occurrence: 2, start: 31 })
      expect(snippetAt(content, 19, 26)).toEqual({ anchorText: ".\n\nThen", occurrence: 1, start: 19 })
      expect(snippetAt(content, 20, 22)).toBeUndefined()
      expect(snippetAt(content, 5, 5)).toBeUndefined()
    }))

  it.effect("a selection inside an overlapping run counts as the nearest match the server counts", () =>
    Effect.sync(() => {
      expect(snippetAt("aaa", 1, 3)).toEqual({ anchorText: "aa", occurrence: 1, start: 0 })
      expect(snippetAt("aaaaa", 3, 5)).toEqual({ anchorText: "aa", occurrence: 2, start: 2 })
    }))

  it.effect("whatever is selected, the snippet and occurrence locate the selected text", () =>
    Effect.sync(() => {
      FastCheck.assert(
        FastCheck.property(
          FastCheck.stringMatching(/^[ab \n]{1,40}$/),
          FastCheck.nat(),
          FastCheck.nat(),
          (content, a, b) => {
            const [x, y] = [a % (content.length + 1), b % (content.length + 1)]
            const [from, to] = [Math.min(x, y), Math.max(x, y)]
            const picked = snippetAt(content, from, to)
            if (picked === undefined) return content.slice(from, to).trim() === ""
            const found = locate(content, picked.anchorText, picked.occurrence)
            return found._tag === "Found" && found.anchor.start === picked.start && picked.anchorText === content.slice(from, to).trim()
          }
        ),
        { numRuns: 1000 }
      )
    }))
})
