import { HttpLayerRouter } from "@effect/platform"
import { afterAll, describe, expect, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { gunzipSync } from "node:zlib"
import { makeWebAppRoutes } from "../../../src/platform/http/WebApp.js"

/** A build as Vite writes it: the shell and a hashed bundle under assets/. */
const built = fs.mkdtempSync(path.join(os.tmpdir(), "trellis-webapp-"))
fs.mkdirSync(path.join(built, "assets"))
fs.writeFileSync(path.join(built, "index.html"), `<!doctype html><script type="module" src="/assets/index-abc123.js"></script>`)
fs.writeFileSync(path.join(built, "assets", "index-abc123.js"), `console.log("app")`.repeat(50))
const empty = fs.mkdtempSync(path.join(os.tmpdir(), "trellis-webapp-unbuilt-"))

const serve = (dir: string) => HttpLayerRouter.toWebHandler(makeWebAppRoutes(dir))
const app = serve(built)
const unbuilt = serve(empty)
const get = (handler: typeof app, pathname: string, headers: Record<string, string> = {}) =>
  handler.handler(new Request(`http://127.0.0.1${pathname}`, { headers }))

afterAll(async () => {
  await Promise.all([app.dispose(), unbuilt.dispose()])
  fs.rmSync(built, { recursive: true, force: true })
  fs.rmSync(empty, { recursive: true, force: true })
})

describe("the web app route", () => {
  it("serves the shell at / never cached, with a policy that runs only the app's own scripts", async () => {
    const response = await get(app, "/")
    expect(response.status).toBe(200)
    expect(response.headers.get("content-type")).toContain("text/html")
    expect(response.headers.get("cache-control")).toBe("no-store")
    expect(response.headers.get("content-security-policy")).toContain("script-src 'self'")
    expect(await response.text()).toContain("/assets/index-abc123.js")
  })

  it("answers every client route outside /api with the shell (the app routes itself)", async () => {
    for (const pathname of ["/projects/proj_1/threads", "/projects/proj_1/threads/thr_1?x=1", "/anything"]) {
      const response = await get(app, pathname)
      expect(response.status, pathname).toBe(200)
      expect(response.headers.get("cache-control"), pathname).toBe("no-store")
      expect(await response.text(), pathname).toContain("<!doctype html>")
    }
  })

  it("serves hashed assets cached for a year as immutable, gzipped when the client accepts it", async () => {
    const plain = await get(app, "/assets/index-abc123.js")
    expect(plain.status).toBe(200)
    expect(plain.headers.get("content-type")).toContain("text/javascript")
    expect(plain.headers.get("cache-control")).toBe("public, max-age=31536000, immutable")
    expect(plain.headers.get("content-encoding")).toBeNull()
    const body = await plain.text()

    const gzipped = await get(app, "/assets/index-abc123.js", { "accept-encoding": "br, gzip;q=0.8" })
    expect(gzipped.headers.get("content-encoding")).toBe("gzip")
    expect(gunzipSync(Buffer.from(await gzipped.arrayBuffer())).toString()).toBe(body)

    const refused = await get(app, "/assets/index-abc123.js", { "accept-encoding": "gzip;q=0" })
    expect(refused.headers.get("content-encoding")).toBeNull()
  })

  it("answers 404, not the shell, for a missing asset or an /api path", async () => {
    for (const pathname of ["/assets/index-old.js", "/assets/", "/api/nothing-here"]) {
      const response = await get(app, pathname)
      expect(response.status, pathname).toBe(404)
      expect(await response.text(), pathname).not.toContain("<!doctype html>")
    }
  })

  it("answers 503 with how to build it when the app is not built", async () => {
    for (const pathname of ["/", "/projects/proj_1/threads"]) {
      const response = await get(unbuilt, pathname)
      expect(response.status).toBe(503)
      expect(response.headers.get("cache-control")).toBe("no-store")
      expect(await response.text()).toContain("npm run build")
    }
  })
})
