import { describe, expect, it } from "@effect/vitest"
import { Effect, Option } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { Git, parseWorktreeList, publicRemoteUrl } from "../../cli/agent/Git.js"
import { Profiles } from "../../cli/agent/Profiles.js"
import { cli, git, makeRepo, sampleProfile, tempDir, withEnv } from "./support.js"

/** The issue "The local CLI": `trellis agent paths add` reads git facts of real repositories. */

const REMOTE = "git@example.com:acme/repo.git"

/** A repository `repo` (branch main, remote origin) with a worktree `repo-feature` on branch feature. */
const repoWithWorktree = (root: string) =>
  Effect.gen(function*() {
    const repo = yield* makeRepo(path.join(root, "repo"))
    yield* git(repo, "remote", "add", "origin", REMOTE)
    const worktree = path.join(root, "repo-feature")
    yield* git(repo, "worktree", "add", "-q", "-b", "feature", worktree)
    return { repo, worktree }
  })

/** Runs `body` with a Profiles service (a profile `main` saved) and Git, in a fresh directory. */
const withRepoStore = <A, E>(body: (services: { profiles: Profiles; git: Git; root: string }) => Effect.Effect<A, E, never>) =>
  Effect.scoped(Effect.gen(function*() {
    const root = yield* tempDir("git")
    return yield* Effect.gen(function*() {
      const profiles = yield* Profiles
      yield* profiles.save("main", sampleProfile())
      return yield* body({ profiles, git: yield* Git, root })
    }).pipe(
      Effect.provide(Profiles.layer({ configDir: path.join(root, "config") })),
      Effect.provide(Git.Default),
      withEnv({})
    )
  }))

describe("git facts", () => {
  it.effect("worktree list --porcelain parses into paths, branches and detached or bare entries", () =>
    Effect.sync(() => {
      const porcelain = [
        "worktree /src/repo",
        "HEAD 1111111111111111111111111111111111111111",
        "branch refs/heads/main",
        "",
        "worktree /src/repo-detached",
        "HEAD 2222222222222222222222222222222222222222",
        "detached",
        "locked reason here",
        "",
        "worktree /src/gone",
        "HEAD 3333333333333333333333333333333333333333",
        "branch refs/heads/feature/x",
        "prunable gitdir file points to non-existent location",
        ""
      ].join("\n")
      expect(parseWorktreeList(porcelain)).toEqual([
        {
          path: "/src/repo",
          head: "1111111111111111111111111111111111111111",
          branch: "main",
          bare: false,
          detached: false,
          locked: false,
          prunable: false
        },
        {
          path: "/src/repo-detached",
          head: "2222222222222222222222222222222222222222",
          branch: null,
          bare: false,
          detached: true,
          locked: true,
          prunable: false
        },
        {
          path: "/src/gone",
          head: "3333333333333333333333333333333333333333",
          branch: "feature/x",
          bare: false,
          detached: false,
          locked: false,
          prunable: true
        }
      ])
      expect(parseWorktreeList("worktree /srv/bare.git\nbare\n")).toEqual([
        { path: "/srv/bare.git", head: null, branch: null, bare: true, detached: false, locked: false, prunable: false }
      ])
      expect(parseWorktreeList("")).toEqual([])
    }))

  it.effect("the repo root, origin URL (credentials dropped, null without origin) and branch (null when detached)", () =>
    withRepoStore(({ git: gitFacts, root }) =>
      Effect.gen(function*() {
        const repo = yield* makeRepo(path.join(root, "plain"))
        expect(yield* gitFacts.repoRoot(path.join(repo, "src"))).toBe(repo)
        expect(yield* gitFacts.remoteUrl(repo)).toBeNull()
        expect(yield* gitFacts.currentBranch(repo)).toBe("main")
        yield* git(repo, "remote", "add", "origin", "https://someone:s3cret@example.com/acme/plain.git")
        expect(yield* gitFacts.remoteUrl(repo)).toBe("https://example.com/acme/plain.git")
        expect(publicRemoteUrl(REMOTE)).toBe(REMOTE)
        yield* git(repo, "checkout", "-q", "--detach")
        expect(yield* gitFacts.currentBranch(repo)).toBeNull()
        const error = yield* Effect.flip(gitFacts.repoRoot(root))
        expect(error._tag).toBe("NotAGitRepository")
      })
    ))
})

describe("paths add", () => {
  it.effect("registers the repo root as a checkout with remote and branch, and each worktree with its parent", () =>
    withRepoStore(({ profiles, root }) =>
      Effect.gen(function*() {
        const { repo, worktree } = yield* repoWithWorktree(root)
        // Run from a subdirectory: the repository root is what gets registered.
        const added = yield* profiles.addPath("main", path.join(repo, "src"), "Backend")
        const expected = [
          { path: repo, label: "Backend", gitRemoteUrl: REMOTE, branch: "main", kind: "checkout", parentPath: null },
          { path: worktree, label: "repo-feature", gitRemoteUrl: REMOTE, branch: "feature", kind: "worktree", parentPath: repo }
        ]
        expect(added).toEqual(expected)
        expect((yield* profiles.get("main")).paths).toEqual(expected)

        // From inside the worktree the same two are found (the main worktree stays the checkout), the label kept.
        yield* git(worktree, "checkout", "-q", "--detach")
        const again = yield* profiles.addPath("main", worktree)
        expect(again).toEqual([expected[0], { ...expected[1], branch: null }])
        expect((yield* profiles.get("main")).paths).toHaveLength(2)

        // The current directory is now inside a registered path: it resolves to the profile.
        const resolved = yield* profiles.resolve(Option.none(), path.join(worktree, "src"))
        expect([resolved.name, resolved.source]).toEqual(["main", "path"])
      })
    ))

  it.effect("refuses a directory outside any git working tree, or one that does not exist", () =>
    withRepoStore(({ profiles, root }) =>
      Effect.gen(function*() {
        const plain = path.join(root, "not-a-repo")
        fs.mkdirSync(plain)
        const notRepo = yield* Effect.flip(profiles.addPath("main", plain))
        expect(notRepo._tag).toBe("NotAGitRepository")
        expect(notRepo.message).toContain(plain)
        expect((yield* Effect.flip(profiles.addPath("main", path.join(root, "missing"))))._tag).toBe("PathNotFound")
        expect((yield* Effect.flip(profiles.addPath("nobody", plain)))._tag).toBe("ProfileNotFound")
        expect((yield* profiles.get("main")).paths).toEqual([])
      })
    ))

  it.effect("paths remove drops a checkout with its worktrees, or a single worktree", () =>
    withRepoStore(({ profiles, root }) =>
      Effect.gen(function*() {
        const { repo, worktree } = yield* repoWithWorktree(root)
        yield* profiles.addPath("main", repo)
        const one = yield* profiles.removePath("main", worktree)
        expect(one.map((entry) => entry.path)).toEqual([worktree])
        yield* profiles.addPath("main", repo)
        const both = yield* profiles.removePath("main", repo)
        expect(both.map((entry) => entry.path)).toEqual([repo, worktree])
        expect((yield* profiles.get("main")).paths).toEqual([])
        expect((yield* Effect.flip(profiles.removePath("main", repo)))._tag).toBe("PathNotRegistered")
      })
    ))

  it.effect("the commands: paths add [DIR] --label --profile, paths list, paths remove", () =>
    withRepoStore(({ root }) =>
      Effect.gen(function*() {
        const { repo, worktree } = yield* repoWithWorktree(root)
        const configDir = path.join(root, "config")
        const added = yield* cli(configDir, ["paths", "add", "--label", "Api", "--profile", "main", "--json", path.join(repo, "src")])
        expect(added.failed).toBe(false)
        expect(JSON.parse(added.stdout)).toMatchObject({
          profile: "main",
          paths: [{ path: repo, label: "Api", kind: "checkout" }, { path: worktree, kind: "worktree", parentPath: repo }]
        })
        // Without --profile the profile is resolved as usual: `main` is the only one, but not the default.
        const unresolved = yield* cli(configDir, ["paths", "list"])
        expect(unresolved.failed).toBe(true)
        expect(unresolved.stderr).toContain("TRELLIS_PROFILE")
        const listed = yield* cli(configDir, ["paths", "list", "--profile", "main"])
        expect(listed.stdout).toContain(`checkout  ${repo}`)
        expect(listed.stdout).toContain(`worktree of ${repo}`)
        const removed = yield* cli(configDir, ["paths", "remove", "--profile", "main", "--json", repo])
        expect(JSON.parse(removed.stdout).removed).toHaveLength(2)
        const notRepo = yield* cli(configDir, ["paths", "add", "--profile", "main", root])
        expect(notRepo.failed).toBe(true)
        expect(notRepo.stderr).toContain("is not inside a git working tree")
      })
    ))
})
