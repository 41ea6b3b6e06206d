import { describe, expect, it } from "@effect/vitest"
import {
  diffHeader,
  parseGeneratedAttribute,
  parseNameStatus,
  parseNumstat,
  quotedName,
  splitPatch,
  summaryOf
} from "../../../cli/agent/GitChanges.js"

/** Reading git's `-z` output and patch sections, against what git 2.39 prints (captured). */

describe("git's output for change reports", () => {
  it("name-status -z: renames and copies carry two paths, any character survives", () => {
    const output = "A\0bin.dat\0D\0del.txt\0R100\0ren.txt\0moved \"x\"\n.txt\0T\0link\0U\0conflict.txt\0X\0odd\0"
    expect(parseNameStatus(output)).toEqual([
      { path: "bin.dat", status: "added" },
      { path: "del.txt", status: "deleted" },
      { path: "moved \"x\"\n.txt", oldPath: "ren.txt", status: "renamed" },
      { path: "link", status: "typechange" },
      { path: "conflict.txt", status: "modified" }
    ])
  })

  it("numstat -z: binary files count no lines, a rename is keyed by its new path", () => {
    const counts = parseNumstat("-\t-\tbin.dat\x000\t1\tdel.txt\x003\t2\t\x00ren.txt\x00new\tname.txt\x00")
    expect([...counts]).toEqual([
      ["bin.dat", { additions: 0, deletions: 0, binary: true }],
      ["del.txt", { additions: 0, deletions: 1, binary: false }],
      ["new\tname.txt", { additions: 3, deletions: 2, binary: false }]
    ])
  })

  it("check-attr -z: set and true mark a file generated, unspecified and unset do not", () => {
    const output = "a.ts\0linguist-generated\0set\0b.ts\0linguist-generated\0true\0c.ts\0linguist-generated\0unspecified\0" +
      "d.ts\0linguist-generated\0unset\0"
    expect([...parseGeneratedAttribute(output)]).toEqual(["a.ts", "b.ts"])
  })

  it("a header quotes a name as git does with core.quotePath=false: quotes, backslashes and control characters only", () => {
    expect(quotedName("a/my file.txt")).toBe("a/my file.txt")
    expect(quotedName("a/é.txt")).toBe("a/é.txt")
    expect(quotedName("b/new\nline.txt")).toBe("\"b/new\\nline.txt\"")
    expect(quotedName("a/tab\té.txt")).toBe("\"a/tab\\té.txt\"")
    expect(quotedName("a/un \"tracked\" file.txt")).toBe("\"a/un \\\"tracked\\\" file.txt\"")
    expect(quotedName("a/back\\slash\u0001")).toBe("\"a/back\\\\slash\\001\"")
    expect(diffHeader({ path: "new\nline.txt", oldPath: "del.txt", status: "renamed" })).toBe("diff --git a/del.txt \"b/new\\nline.txt\"")
  })

  it("a patch splits into its files' sections; a type change's two sections stay together", () => {
    const patch = "diff --git a/x b/x\nnew file mode 100644\n--- /dev/null\n+++ b/x\n@@ -0,0 +1 @@\n+diff --git not a header\n" +
      "diff --git a/link b/link\ndeleted file mode 120000\n-target\ndiff --git a/link b/link\nnew file mode 100644\n+text\n"
    const sections = splitPatch(patch)
    expect([...sections.keys()]).toEqual(["diff --git a/x b/x", "diff --git a/link b/link"])
    expect(sections.get("diff --git a/x b/x")).toContain("+diff --git not a header\n")
    expect(sections.get("diff --git a/link b/link")).toBe(
      "diff --git a/link b/link\ndeleted file mode 120000\n-target\ndiff --git a/link b/link\nnew file mode 100644\n+text\n"
    )
  })

  it("lock files, generated and binary files are summarized; other files are inlined", () => {
    expect(summaryOf("web/package-lock.json", false, false)).toBe("lockfile")
    expect(summaryOf("Cargo.lock", false, false)).toBe("lockfile")
    expect(summaryOf("src/api.ts", false, true)).toBe("generated")
    expect(summaryOf("dist/app.min.js", false, false)).toBe("generated")
    expect(summaryOf("logo.png", true, false)).toBe("binary")
    expect(summaryOf("src/package-lock.json.ts", false, false)).toBeUndefined()
  })
})
