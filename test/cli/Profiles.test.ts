import { describe, expect, it } from "@effect/vitest"
import { Effect, Option, Redacted } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { profileJson } from "../../cli/agent/ProfileCommands.js"
import { maskApiKey, Profiles, RESOLUTION_ORDER } from "../../cli/agent/Profiles.js"
import { CliProfileId } from "../../catalog/domain/Ids.js"
import { sampleProfile, SECRET, tempDir, withEnv } from "./support.js"

/** The issue "The local CLI": the profiles store and SPEC "Session lifecycle" step 1 (profile resolution). */

const mode = (file: string) => fs.statSync(file).mode & 0o777

/** Runs `body` with a Profiles service kept in a fresh directory. */
const withStore = <A, E>(body: (profiles: Profiles, configDir: string) => Effect.Effect<A, E, never>) =>
  Effect.scoped(Effect.gen(function*() {
    const configDir = path.join(yield* tempDir("profiles"), "config", "trellis")
    return yield* Effect.flatMap(Profiles, (profiles) => body(profiles, configDir)).pipe(
      Effect.provide(Profiles.layer({ configDir })),
      withEnv({})
    )
  }))

/** Four profiles: `outer` serves repo, `inner` serves repo/sub, `other` nothing, `fallback` is the default. */
const resolutionFixture = (profiles: Profiles, root: string) =>
  Effect.gen(function*() {
    const repo = path.join(root, "repo")
    const sub = path.join(repo, "sub")
    fs.mkdirSync(path.join(sub, "deeper"), { recursive: true })
    fs.mkdirSync(path.join(root, "repo2"))
    const entry = (p: string) => ({
      path: p,
      label: path.basename(p),
      gitRemoteUrl: null,
      branch: "main",
      kind: "checkout" as const,
      parentPath: null
    })
    yield* profiles.save("outer", sampleProfile({ paths: [entry(repo)] }))
    yield* profiles.save("inner", sampleProfile({ paths: [entry(sub)] }))
    yield* profiles.save("other", sampleProfile())
    yield* profiles.save("fallback", sampleProfile())
    yield* profiles.setDefault("fallback")
    return { repo, sub, deeper: path.join(sub, "deeper"), sibling: path.join(root, "repo2") }
  })

describe("profiles store", () => {
  it.effect("the file is written 0600 in a 0700 directory, atomically (temp file + rename)", () =>
    withStore((profiles, configDir) =>
      Effect.gen(function*() {
        const file = path.join(configDir, "profiles.json")
        yield* profiles.save("main", sampleProfile())
        expect(profiles.file).toBe(file)
        expect(mode(configDir)).toBe(0o700)
        expect(mode(file)).toBe(0o600)

        // A file someone loosened is tightened again by the next write.
        fs.chmodSync(file, 0o644)
        const before = fs.statSync(file).ino
        yield* profiles.save("second", sampleProfile())
        expect(mode(file)).toBe(0o600)
        // Replaced by a rename (a new inode), not rewritten in place; no temp file is left behind.
        expect(fs.statSync(file).ino).not.toBe(before)
        expect(fs.readdirSync(configDir)).toEqual(["profiles.json"])

        // Readers racing many writers only ever see a whole file.
        const torn: Array<string> = []
        yield* Effect.all([
          Effect.forEach(Array.from({ length: 40 }, (_, i) => i), (i) =>
            profiles.save(`p${i}`, sampleProfile({ machineName: "x".repeat(20_000) })), { concurrency: "unbounded" }),
          Effect.forEach(
            Array.from({ length: 200 }, (_, i) =>
              i),
            () =>
              Effect.promise(() =>
                fs.promises.readFile(file, "utf8")
              ).pipe(
                Effect.tap((text) =>
                  Effect.sync(() => {
                    const parsed = Option.liftThrowable(JSON.parse)(text)
                    if (Option.isNone(parsed)) {
                      torn.push(text.slice(-40))
                    }
                  })
                )
              ),
            { concurrency: 4 }
          )
        ], { concurrency: "unbounded" })
        expect(torn).toEqual([])
        expect((yield* profiles.list).length).toBe(42)
        expect(fs.readdirSync(configDir)).toEqual(["profiles.json"])

        const stored = JSON.parse(fs.readFileSync(file, "utf8"))
        expect(stored).toMatchObject({
          version: 1,
          defaultProfile: null,
          profiles: { main: { apiKey: SECRET, server: "http://127.0.0.1:7420" } }
        })
      })
    ))

  it.effect("a corrupt file is an error naming the file, and is never overwritten", () =>
    withStore((profiles, configDir) =>
      Effect.gen(function*() {
        const file = path.join(configDir, "profiles.json")
        fs.mkdirSync(configDir, { recursive: true })
        for (
          const content of ["{ this is not json", JSON.stringify({ version: 1, defaultProfile: null, profiles: { a: { server: "nope" } } })]
        ) {
          fs.writeFileSync(file, content)
          const attempts: ReadonlyArray<Effect.Effect<void, { readonly _tag: string; readonly message: string }>> = [
            Effect.asVoid(profiles.list),
            profiles.save("new", sampleProfile()),
            Effect.asVoid(profiles.resolve(Option.none(), configDir))
          ]
          for (const attempt of attempts) {
            const error = yield* Effect.flip(attempt)
            expect(error._tag).toBe("ProfilesFileError")
            expect(error.message).toContain(file)
            expect(error.message).toContain("not a valid Trellis profiles file")
          }
          expect(fs.readFileSync(file, "utf8")).toBe(content)
        }
      })
    ))

  it.effect("get, save, setDefault, setProfileId and remove keep the file consistent", () =>
    withStore((profiles) =>
      Effect.gen(function*() {
        expect(yield* profiles.list).toEqual([])
        yield* profiles.save("main", sampleProfile())
        yield* profiles.setDefault("main")
        const profileId = CliProfileId.generate()
        yield* profiles.setProfileId("main", profileId)
        expect((yield* profiles.get("main")).profileId).toBe(profileId)
        expect((yield* profiles.list).map((entry) => [entry.name, entry.isDefault])).toEqual([["main", true]])
        // Removing the default leaves no default rather than a dangling name.
        yield* profiles.remove("main")
        expect(yield* profiles.defaultProfile).toBeNull()
        expect((yield* Effect.flip(profiles.get("main")))._tag).toBe("ProfileNotFound")
        expect((yield* Effect.flip(profiles.setDefault("main")))._tag).toBe("ProfileNotFound")
        expect((yield* Effect.flip(profiles.save("bad name!", sampleProfile())))._tag).toBe("InvalidProfile")
        expect((yield* Effect.flip(profiles.save("trailing", sampleProfile({ server: "http://host/" }))))._tag).toBe("InvalidProfile")
      })
    ))

  it.effect("the API key is never shown: trellis_… and its last four characters", () =>
    withStore((profiles) =>
      Effect.gen(function*() {
        expect(maskApiKey(SECRET)).toBe("trellis_…cdef")
        expect(maskApiKey(Redacted.make("trellis_short"))).toBe("trellis_…")
        yield* profiles.save("main", sampleProfile())
        const profile = yield* profiles.get("main")
        expect(Redacted.value(profile.apiKey)).toBe(SECRET)
        for (const shown of [JSON.stringify(profileJson("main", profile, true)), JSON.stringify(profile), String(profile.apiKey)]) {
          expect(shown).not.toContain(SECRET)
          expect(shown).not.toContain("0123456789abcdef0123456789ab")
        }
      })
    ))
})

describe("profile resolution (SPEC: flag, environment variable, current-directory path, default)", () => {
  it.effect("--profile wins over TRELLIS_PROFILE, a matching path and the default", () =>
    withStore((profiles, configDir) =>
      Effect.gen(function*() {
        const { sub } = yield* resolutionFixture(profiles, path.dirname(configDir))
        const resolved = yield* profiles.resolve(Option.some("other"), sub).pipe(withEnv({ TRELLIS_PROFILE: "outer" }))
        expect([resolved.name, resolved.source]).toEqual(["other", "flag"])
        const error = yield* Effect.flip(profiles.resolve(Option.some("ghost"), sub))
        expect(error._tag).toBe("ProfileNotFound")
        expect(error.message).toContain("--profile")
      })
    ))

  it.effect("TRELLIS_PROFILE wins over a matching path and the default", () =>
    withStore((profiles, configDir) =>
      Effect.gen(function*() {
        const { deeper } = yield* resolutionFixture(profiles, path.dirname(configDir))
        const resolved = yield* profiles.resolve(Option.none(), deeper).pipe(withEnv({ TRELLIS_PROFILE: "other" }))
        expect([resolved.name, resolved.source]).toEqual(["other", "env"])
        const error = yield* Effect.flip(profiles.resolve(Option.none(), deeper).pipe(withEnv({ TRELLIS_PROFILE: "ghost" })))
        expect(error.message).toContain("TRELLIS_PROFILE")
      })
    ))

  it.effect("a registered path containing the current directory wins over the default; the longest one wins", () =>
    withStore((profiles, configDir) =>
      Effect.gen(function*() {
        const { repo, sub, deeper, sibling } = yield* resolutionFixture(profiles, path.dirname(configDir))
        const at = (cwd: string) => Effect.map(profiles.resolve(Option.none(), cwd), (r) => [r.name, r.source])
        expect(yield* at(deeper)).toEqual(["inner", "path"])
        expect(yield* at(sub)).toEqual(["inner", "path"])
        expect(yield* at(repo)).toEqual(["outer", "path"])
        // `repo2` shares a string prefix with `repo` but is not inside it.
        expect(yield* at(sibling)).toEqual(["fallback", "default"])
        // A symlink into a registered path resolves to it.
        const link = path.join(path.dirname(configDir), "link")
        fs.symlinkSync(sub, link)
        expect(yield* at(link)).toEqual(["inner", "path"])
      })
    ))

  it.effect("the default profile applies last; with none, the error names all four ways", () =>
    withStore((profiles, configDir) =>
      Effect.gen(function*() {
        const { sibling } = yield* resolutionFixture(profiles, path.dirname(configDir))
        const resolved = yield* profiles.resolve(Option.none(), sibling)
        expect([resolved.name, resolved.source]).toEqual(["fallback", "default"])
        yield* profiles.remove("fallback")
        const error = yield* Effect.flip(profiles.resolve(Option.none(), sibling))
        expect(error._tag).toBe("NoProfileResolved")
        for (const way of ["--profile NAME", "TRELLIS_PROFILE=NAME", "trellis agent paths add", "trellis agent profiles use NAME"]) {
          expect(error.message).toContain(way)
        }
        expect(RESOLUTION_ORDER.every((way) => error.message.includes(way))).toBe(true)
        expect(error.message).toContain("profiles: inner, other, outer")
      })
    ))
})
