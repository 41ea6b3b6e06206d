/**
 * `trellis admin signin-link` against a running `trellis serve` on its embedded database: the
 * server holds the database (DataDirLock), so the command asks it over HTTP for a fresh one-time
 * link for the local credentials' key, without a restart.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Schema } from "effect"
import { cleanEnv, isAlive, killEverything, removeTempDirs, repoRoot, tempDir } from "./support/Processes.js"
import { type Serve, startServe, trellis } from "./support/Trellis.js"

const LINK = /^Sign in: (\S+) \(one use, 10 minutes\)$/m

describe.sequential("trellis admin signin-link", () => {
  let serve: Serve | undefined

  const running = () => {
    if (serve === undefined) throw new Error("trellis serve did not start")
    return serve
  }
  const signinLink = (args: ReadonlyArray<string>, home = running().home) =>
    trellis(["admin", "signin-link", ...args], repoRoot, cleanEnv({ TRELLIS_HOME: home }))

  /** Opens a link as a browser would, without following its redirect. */
  const open = (url: string) => fetch(url, { redirect: "manual" })

  beforeAll(async () => {
    serve = await startServe(tempDir("trellis-signin-link-home-"))
  }, 90_000)

  afterAll(async () => {
    await killEverything()
    await removeTempDirs()
  }, 30_000)

  it("prints a fresh link from the running server that signs in once, while trellis serve keeps running", async () => {
    const printed = await signinLink([])
    expect(printed.code).toBe(0)
    const link = LINK.exec(printed.stdout)?.[1] ?? ""
    expect(link.startsWith(`${running().baseUrl}/signin?token=`)).toBe(true)
    const first = await open(link)
    expect(first.status).toBe(303)
    expect(first.headers.get("location")).toBe("/")
    expect(first.headers.get("set-cookie")).toMatch(/^trellis_session=[^;]+;/)
    const again = await open(link)
    expect(again.headers.get("location")).toBe("/sign-in?reason=used")
    expect(isAlive(running().proc.pid)).toBe(true)
  }, 90_000)

  it("--next makes the link open on that page; --json prints the link as JSON", async () => {
    const printed = await signinLink(["--json", "--next", "/projects/x/threads"])
    expect(printed.code).toBe(0)
    const { url } = Schema.decodeUnknownSync(Schema.parseJson(Schema.Struct({ url: Schema.String })))(printed.stdout)
    expect((await open(url)).headers.get("location")).toBe("/projects/x/threads")
  }, 90_000)

  it("refuses a --next off the app, an unreachable server and a home without credentials, with exit code 1", async () => {
    const offsite = await signinLink(["--next", "//evil.example"])
    expect(offsite.code).toBe(1)
    expect(offsite.stderr).toContain("next: a path of this app")
    const unreachable = await signinLink(["--server", "http://127.0.0.1:9"])
    expect(unreachable.code).toBe(1)
    expect(unreachable.stderr).toContain("cannot reach the server at http://127.0.0.1:9")
    const nowhere = await signinLink([], tempDir("trellis-signin-link-empty-"))
    expect(nowhere.code).toBe(1)
    expect(nowhere.stderr).toContain("no credentials at")
  }, 120_000)
})
