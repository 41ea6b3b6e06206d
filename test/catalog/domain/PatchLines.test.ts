import { describe, expect, it } from "@effect/vitest"
import { findQuote, patchLines, quoteLine, quoteRange, shownRanges } from "../../../catalog/domain/PatchLines.js"

/** How a review comment names, quotes and finds again lines of a unified diff (issue 31 §2). */

const PATCH = [
  "diff --git a/a.ts b/a.ts",
  "--- a/a.ts",
  "+++ b/a.ts",
  "@@ -1,3 +1,3 @@",
  " one",
  "-two",
  "+TWO",
  " three",
  "@@ -10,2 +10,3 @@ function tail()",
  " ten",
  "+ten and a half",
  " eleven",
  "\\ No newline at end of file",
  ""
].join("\n")

describe("patch lines", () => {
  it("each line carries its old and new number; headers and the no-newline note are not lines", () => {
    expect(patchLines(PATCH).map((line) => [line.marker, line.oldLine, line.newLine, line.hunk])).toEqual([
      [" ", 1, 1, 0],
      ["-", 2, null, 0],
      ["+", null, 2, 0],
      [" ", 3, 3, 0],
      [" ", 10, 10, 1],
      ["+", null, 11, 1],
      [" ", 11, 12, 1]
    ])
  })

  it("a range quotes the other side's lines between its ends, and only within one hunk", () => {
    const lines = patchLines(PATCH)
    expect(quoteRange(lines, "additions", 1, 2)?.map(quoteLine)).toEqual([" one", "-two", "+TWO"])
    expect(quoteRange(lines, "deletions", 2, 3)?.map(quoteLine)).toEqual(["-two", "+TWO", " three"])
    expect(quoteRange(lines, "additions", 3, 10)).toBeUndefined()
    expect(quoteRange(lines, "additions", 4, 4)).toBeUndefined()
    expect(quoteRange(lines, "additions", 2, 1)).toBeUndefined()
    expect(shownRanges(lines, "additions")).toEqual([[1, 3], [10, 12]])
  })

  it("a quote is found again where its lines moved, and not once one of them changed", () => {
    const quote = ["+ten and a half", " eleven"]
    const moved = patchLines(PATCH.replace("@@ -10,2 +10,3 @@", "@@ -20,2 +20,3 @@"))
    expect(findQuote(moved, "additions", quote)).toEqual({ startLine: 21, endLine: 22 })
    expect(findQuote(patchLines(PATCH.replace("+ten and a half", "+ten and three quarters")), "additions", quote)).toBeUndefined()
    expect(findQuote(patchLines(""), "additions", quote)).toBeUndefined()
  })
})
