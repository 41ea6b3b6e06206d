import { describe, expect, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { createHash } from "node:crypto"
import { parse } from "yaml"
import { CurrentPrincipal, DefaultProject, type Principal } from "../../src/platform/auth/Principal.js"
import { ErrorCode } from "../../src/platform/mcp/JsonRpc.js"
import type { McpError } from "../../src/platform/mcp/McpError.js"
import { Projects } from "../../src/projects/Projects.js"
import type { ScopeAccess } from "../../src/projects/Scopes.js"
import { Skills } from "../../src/skills/Skills.js"
import { SKILLS_PAGE_SIZE, SkillsExtension } from "../../src/skills/SkillsExtension.js"
import { seedScopes } from "../support/ScopeFixtures.js"
import { mcpClient, scopedTo } from "../support/ToolCalls.js"
import { TestServer } from "../support/TestServer.js"
import { createKey } from "../support/Seed.js"

const skillMd = (name: string, description = `Does ${name}`, extra = "") =>
  `---\nname: ${name}\ndescription: ${description}\n${extra}---\n\n# ${name}\n`

/** A Skill with SKILL.md and the other files given, saved through the service. */
const createSkill = (principal: Principal, scope: ScopeAccess, name: string, content: string, files: Record<string, string> = {}) =>
  Effect.gen(function*() {
    const skills = yield* Skills
    const id = yield* skills.create(principal, scope, { name, content })
    const edits = Object.entries(files).map(([path, text]) => ({ op: "write" as const, path, content: text }))
    if (edits.length > 0) yield* skills.update(principal, id, { edits })
    return id
  }).pipe(Effect.orDie)

/** Runs an extension call as `principal` on a connection whose URL has `?project=<project>` (or none). */
const connected =
  (principal: Principal, project: string | null) => <A, E>(effect: Effect.Effect<A, E, CurrentPrincipal | DefaultProject>) =>
    effect.pipe(Effect.provideService(CurrentPrincipal, principal), Effect.provideService(DefaultProject, project))

const sha256 = (text: string) => `sha256:${createHash("sha256").update(Buffer.from(text, "utf8")).digest("hex")}`

const expectInvalidParams = (error: McpError, uri?: string) => {
  expect(error.code).toBe(ErrorCode.InvalidParams)
  if (uri !== undefined) expect(error.data).toEqual({ uri })
}

const seed = (slug: string) =>
  Effect.gen(function*() {
    const owner = yield* seedScopes(slug)
    const extension = yield* SkillsExtension
    return { ...owner, extension, as: connected(owner.principal, owner.project.id), authority: `main.${slug}` }
  })

describe("MCP Skills extension", () => {
  layer(Layer.provideMerge(SkillsExtension.DefaultWithoutDependencies, TestServer()))((it) => {
    it.effect("an entry is the SKILL.md URI, the frontmatter as parsed, and each file with the sha256 and byte size of its UTF-8 content", () =>
      Effect.gen(function*() {
        const { principal, scopes, extension, as, authority } = yield* seed("ext-entry")
        const content = skillMd("greet", "Grüßt — 日本語 🚀", "license: MIT\nmetadata:\n  author: Ana\n  level: \"2\"\nx-tags: [a, b]\n")
        const guide = "Ünïcödé 🚀 guide\n"
        yield* createSkill(principal, scopes.project, "greet", content, { "references/guide.md": guide, "run me.sh": "echo hi\n" })
        const { skills } = yield* as(extension.list({}))
        const uri = `skill://${authority}/greet/SKILL.md`
        expect(skills).toEqual([{
          uri,
          frontmatter: parse(content.split("---\n")[1] ?? ""),
          resources: [
            { uri, digest: sha256(content), size: Buffer.byteLength(content, "utf8") },
            { uri: `skill://${authority}/greet/references/guide.md`, digest: sha256(guide), size: Buffer.byteLength(guide, "utf8") },
            { uri: `skill://${authority}/greet/run%20me.sh`, digest: sha256("echo hi\n"), size: 8 }
          ]
        }])
        expect(skills[0]?.frontmatter).toEqual({
          name: "greet",
          description: "Grüßt — 日本語 🚀",
          license: "MIT",
          metadata: { author: "Ana", level: "2" },
          "x-tags": ["a", "b"]
        })
        expect(skills[0]?.resources[1]?.size).toBeGreaterThan(guide.length)
      }))

    it.effect("skills/list crosses pages by cursor with every entry whole and once; a bad cursor is -32602", () =>
      Effect.gen(function*() {
        const { principal, scopes, extension, as } = yield* seed("ext-pages")
        const names = Array.from({ length: SKILLS_PAGE_SIZE + 2 }, (_, i) => `skill-${String(i).padStart(3, "0")}`)
        for (const name of names) yield* createSkill(principal, scopes.project, name, skillMd(name), { "notes.md": name })
        const first = yield* as(extension.list({}))
        expect(first.skills).toHaveLength(SKILLS_PAGE_SIZE)
        expect(first.nextCursor).toEqual(expect.any(String))
        const second = yield* as(extension.list({ cursor: first.nextCursor }))
        expect(second.nextCursor).toBeUndefined()
        const all = [...first.skills, ...second.skills]
        expect(all.map((entry) => entry.frontmatter.name)).toEqual(names)
        for (const entry of all) {
          expect(entry.resources.map((resource) => resource.uri)).toEqual([entry.uri, entry.uri.replace("SKILL.md", "notes.md")])
        }
        expectInvalidParams(yield* Effect.flip(as(extension.list({ cursor: "not-a-cursor" }))))
        expectInvalidParams(yield* Effect.flip(as(extension.list({ cursor: 7 }))))
      }))

    it.effect("skills/get returns the listed entry; an unknown or unserved URI is -32602 with data.uri", () =>
      Effect.gen(function*() {
        const { principal, scopes, extension, as, authority } = yield* seed("ext-get")
        yield* createSkill(principal, scopes.project, "deploy", skillMd("deploy"), { "bin/run.sh": "make\n" })
        const { skills } = yield* as(extension.list({}))
        const uri = `skill://${authority}/deploy/SKILL.md`
        expect(yield* as(extension.get({ uri }))).toEqual({ skill: skills[0] })
        for (
          const unknown of [
            `skill://${authority}/missing/SKILL.md`,
            `skill://${authority}/deploy/bin/run.sh`,
            `skill://other.org/deploy/SKILL.md`,
            `skill://${authority}/deploy/SKILL.md/`,
            "skill://mcp-conformance-nonexistent-skill-9f3a2b/SKILL.md"
          ]
        ) {
          expectInvalidParams(yield* Effect.flip(as(extension.get({ uri: unknown }))), unknown)
        }
        expectInvalidParams(yield* Effect.flip(as(extension.get({}))))
      }))

    it.effect("resources/read returns SKILL.md as text/markdown and another file with its type, the bytes the entry's digest covers", () =>
      Effect.gen(function*() {
        const { principal, scopes, extension, as, authority } = yield* seed("ext-read")
        const content = skillMd("deploy", "Déploie ✓")
        yield* createSkill(principal, scopes.project, "deploy", content, { "data/config.json": "{\"é\": 1}\n" })
        const { skills } = yield* as(extension.list({}))
        const uri = `skill://${authority}/deploy/SKILL.md`
        const read = yield* as(extension.read({ uri }))
        expect(read).toEqual({ contents: [{ uri, mimeType: "text/markdown", text: content }] })
        expect(sha256(read.contents[0]?.text ?? "")).toBe(skills[0]?.resources[0]?.digest)
        const config = `skill://${authority}/deploy/data/config.json`
        expect(yield* as(extension.read({ uri: config }))).toEqual({
          contents: [{ uri: config, mimeType: "application/json", text: "{\"é\": 1}\n" }]
        })
      }))

    it.effect("resources/read of a resource not served is -32602 Resource not found with data.uri", () =>
      Effect.gen(function*() {
        const { principal, scopes, extension, as, authority } = yield* seed("ext-read-missing")
        yield* createSkill(principal, scopes.project, "deploy", skillMd("deploy"))
        for (
          const uri of [
            `skill://${authority}/deploy/missing.md`,
            `skill://${authority}/deploy`,
            `skill://${authority}/gone/SKILL.md`,
            "test://nonexistent-resource-for-conformance-testing"
          ]
        ) {
          const error = yield* Effect.flip(as(extension.read({ uri })))
          expectInvalidParams(error, uri)
          expect(error.message).toContain("Resource not found")
        }
      }))

    it.effect("resources/list lists every served file; SKILL.md is named and described by its frontmatter", () =>
      Effect.gen(function*() {
        const { principal, scopes, extension, as, authority } = yield* seed("ext-resources")
        const content = skillMd("deploy", "Ships it")
        yield* createSkill(principal, scopes.project, "deploy", content, { "a/b.py": "print()\n" })
        expect(yield* as(extension.listResources({}))).toEqual({
          resources: [
            {
              uri: `skill://${authority}/deploy/SKILL.md`,
              name: "deploy",
              description: "Ships it",
              mimeType: "text/markdown",
              size: content.length
            },
            { uri: `skill://${authority}/deploy/a/b.py`, name: "a/b.py", mimeType: "text/x-python", size: 8 }
          ]
        })
        expect(yield* as(extension.listResourceTemplates)).toEqual({ resourceTemplates: [] })
      }))

    it.effect("resources/directory/read lists direct children, subdirectories as inode/directory; a file or unknown URI is -32602", () =>
      Effect.gen(function*() {
        const { principal, scopes, extension, as, authority } = yield* seed("ext-directory")
        yield* createSkill(principal, scopes.project, "deploy", skillMd("deploy"), { "t/a.md": "a", "t/r/b.md": "b" })
        const root = `skill://${authority}/deploy`
        expect((yield* as(extension.readDirectory({ uri: root }))).resources.map((child) => [child.uri, child.mimeType])).toEqual([
          [`${root}/SKILL.md`, "text/markdown"],
          [`${root}/t`, "inode/directory"]
        ])
        expect((yield* as(extension.readDirectory({ uri: `${root}/t` }))).resources.map((child) => [child.uri, child.mimeType])).toEqual([
          [`${root}/t/a.md`, "text/markdown"],
          [`${root}/t/r`, "inode/directory"]
        ])
        expect(yield* as(extension.readDirectory({ uri: `skill://${authority}` }))).toEqual({
          resources: [{ uri: root, name: "deploy", mimeType: "inode/directory" }]
        })
        for (const uri of [`${root}/SKILL.md`, `${root}/t/a.md`, `${root}/nothing`, `skill://${authority}/gone`]) {
          expectInvalidParams(yield* Effect.flip(as(extension.readDirectory({ uri }))), uri)
        }
      }))

    it.effect("a Skill without usable frontmatter, or whose frontmatter names another Skill, is not served, and list_skills and get_skill say why", () =>
      Effect.gen(function*() {
        const { principal, scopes, extension, as, authority, key, project } = yield* seed("ext-problems")
        const cases: ReadonlyArray<readonly [string, string, string]> = [
          ["plain", "# Plain\nNo frontmatter.\n", "does not begin with YAML frontmatter"],
          ["broken", "---\nname: broken\ndescription: [unclosed\n---\n", "not valid YAML"],
          ["listy", "---\n- name\n- description\n---\n", "not a YAML mapping"],
          ["mute", "---\nname: mute\n---\n", "no `description`"],
          ["wordy", `---\nname: wordy\ndescription: ${"é".repeat(1025)}\n---\n`, "longer than 1024 characters"],
          ["numbered", "---\nname: numbered\ndescription: d\nmetadata:\n  level: 2\n---\n", "`metadata` must map names to strings"],
          ["vague", "---\nname: vague\ndescription: d\ncompatibility: 3\n---\n", "`compatibility` must be a string"],
          ["renamed", skillMd("other-name"), "names \"other-name\", not the Skill's name \"renamed\""],
          ["double--hyphen", skillMd("double--hyphen"), "Agent Skills naming rules"]
        ]
        const ids = yield* Effect.forEach(cases, ([name, content]) => createSkill(principal, scopes.project, name, content))
        const good = yield* createSkill(principal, scopes.project, "good", skillMd("good"))
        expect((yield* as(extension.list({}))).skills.map((entry) => entry.frontmatter.name)).toEqual(["good"])
        const client = mcpClient(key, scopedTo(project.id))
        const listed = (yield* Effect.orDie(client.call("list_skills", {}))).skills
        for (const [[name, , problem], skillId] of cases.map((entry, i) => [entry, ids[i] ?? good] as const)) {
          expect(listed.find((skill) => skill.name === name)?.extensionProblem, name).toContain(problem)
          const uri = `skill://${authority}/${name}/SKILL.md`
          const error = yield* Effect.flip(as(extension.get({ uri })))
          expectInvalidParams(error, uri)
          expect(error.message).toContain(problem)
          const got = yield* Effect.orDie(client.call("get_skill", { skillId }))
          expect(got.extensionProblem, name).toContain(problem)
        }
        expect(listed.find((skill) => skill.name === "good")?.extensionProblem).toBeNull()
        expect((yield* Effect.orDie(client.call("get_skill", { skillId: good }))).extensionProblem).toBeNull()
      }))

    it.effect("organization Skills are served to a key not narrowed to projects, under the organization's authority, and never to a narrowed key", () =>
      Effect.gen(function*() {
        const { principal, scopes, extension, as, authority, user, project } = yield* seed("ext-org")
        yield* createSkill(principal, scopes.project, "local", skillMd("local"))
        yield* createSkill(principal, scopes.organization, "shared", skillMd("shared"), { "x.md": "x" })
        const orgUri = "skill://ext-org/shared/SKILL.md"
        expect((yield* as(extension.list({}))).skills.map((entry) => entry.uri)).toEqual([orgUri, `skill://${authority}/local/SKILL.md`])
        expect((yield* as(extension.read({ uri: "skill://ext-org/shared/x.md" }))).contents[0]?.text).toBe("x")
        const narrowed = (yield* createKey(user.id, [project.id])).principal
        const asNarrowed = connected(narrowed, project.id)
        expect(yield* asNarrowed(extension.served)).toBe(true)
        expect((yield* asNarrowed(extension.list({}))).skills.map((entry) => entry.uri)).toEqual([`skill://${authority}/local/SKILL.md`])
        expect((yield* asNarrowed(extension.listResources({}))).resources.map((resource) => resource.uri)).toEqual([
          `skill://${authority}/local/SKILL.md`
        ])
        expectInvalidParams(yield* Effect.flip(asNarrowed(extension.get({ uri: orgUri }))), orgUri)
        expectInvalidParams(yield* Effect.flip(asNarrowed(extension.read({ uri: orgUri }))), orgUri)
        expectInvalidParams(yield* Effect.flip(asNarrowed(extension.readDirectory({ uri: "skill://ext-org" }))), "skill://ext-org")
      }))

    it.effect("without ?project=, or with a project the key cannot reach, the extension is not served and serves nothing", () =>
      Effect.gen(function*() {
        const { principal, scopes, extension, organization, project, authority } = yield* seed("ext-unserved")
        yield* createSkill(principal, scopes.project, "deploy", skillMd("deploy"))
        const other = yield* (yield* Projects).create({ organizationId: organization.id, name: "Other", ref: "OTHER" })
        const elsewhere = (yield* createKey(principal.userId, [other.id])).principal
        const uri = `skill://${authority}/deploy/SKILL.md`
        for (const as of [connected(principal, null), connected(principal, "not-a-project"), connected(elsewhere, project.id)]) {
          expect(yield* as(extension.served)).toBe(false)
          expect(yield* as(extension.list({}))).toEqual({ skills: [] })
          expect(yield* as(extension.listResources({}))).toEqual({ resources: [] })
          expectInvalidParams(yield* Effect.flip(as(extension.get({ uri }))), uri)
          expectInvalidParams(yield* Effect.flip(as(extension.read({ uri }))), uri)
        }
      }))
  })
})
