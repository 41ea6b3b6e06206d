import * as HttpLayerRouter from "@effect/platform/HttpLayerRouter"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Effect, Option } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { gzipSync } from "node:zlib"
import { packageRoot } from "../PackageRoot.js"
import { pathOf } from "./RequestGuard.js"

/** Where Vite writes the hashed bundles (`web/vite.config.ts`): their names change with their content. */
const ASSETS_PREFIX = "/assets/"

const IMMUTABLE = "public, max-age=31536000, immutable"

const contentTypes: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".ico": "image/x-icon",
  ".json": "application/json",
  ".map": "application/json",
  ".woff2": "font/woff2",
  ".txt": "text/plain; charset=utf-8"
}

/**
 * The shell runs only the bundles it names: no inline script, nothing from another origin. React's
 * `style` attributes need inline styles.
 */
const SHELL_POLICY = "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; " +
  "frame-ancestors 'none'; base-uri 'none'; form-action 'self'; object-src 'none'"

interface File {
  readonly body: Uint8Array
  /** The body gzipped once at start, for text files: the bundle is a third of its size so. */
  readonly gzipped: Option.Option<Uint8Array>
  readonly contentType: string
}

const COMPRESSIBLE = new Set([".html", ".js", ".css", ".svg", ".json", ".map", ".txt"])

const readFile = (file: string): File => {
  const body = fs.readFileSync(file)
  const extension = path.extname(file)
  return {
    body,
    gzipped: COMPRESSIBLE.has(extension) ? Option.some(gzipSync(body, { level: 9 })) : Option.none(),
    contentType: contentTypes[extension] ?? "application/octet-stream"
  }
}

/** The built app: the shell, read at start, and every file beside it by URL path, read when first asked for. */
export interface BuiltApp {
  readonly shell: File
  readonly file: (url: string) => File | undefined
}

/** `dist/web/` of this package, whether the server runs from the build or from source. */
export const defaultWebAppDir = (): string => path.join(packageRoot(import.meta.url), "dist", "web")

const listFiles = (dir: string, prefix: string): ReadonlyArray<[string, string]> =>
  fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry): ReadonlyArray<[string, string]> => {
    const file = path.join(dir, entry.name)
    const url = `${prefix}${entry.name}`
    if (entry.isDirectory()) return listFiles(file, `${url}/`)
    return entry.isFile() ? [[url, file]] : []
  })

/**
 * Lists the build at start; a file is read (and gzipped) the first time it is asked for, then kept.
 * Only the files listed here are ever served, so no request path reaches the file system (no
 * traversal to guard against). Most of the build is chunks few pages load (the diff view's
 * syntax grammars, one per language): read at start, they would cost every server's start and
 * memory for files a session may never ask for.
 */
export const loadBuiltApp = (dir: string): Effect.Effect<Option.Option<BuiltApp>> =>
  Effect.sync(() => {
    const shellFile = path.join(dir, "index.html")
    if (!fs.existsSync(shellFile)) return Option.none()
    const paths = new Map(listFiles(dir, "/").filter(([url]) => url !== "/index.html"))
    const read = new Map<string, File>()
    const file = (url: string): File | undefined => {
      const known = read.get(url)
      if (known !== undefined) return known
      const onDisk = paths.get(url)
      if (onDisk === undefined) return undefined
      const loaded = readFile(onDisk)
      read.set(url, loaded)
      return loaded
    }
    return Option.some({ shell: readFile(shellFile), file })
  })

const notBuilt = HttpServerResponse.html(
  `<!doctype html><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">` +
    `<title>Trellis: the web app is not built</title><h1>The web app is not built</h1>` +
    `<p>This server has no build of the web app. Run <code>npm run build</code> in the Trellis checkout, then restart <code>trellis serve</code>.</p>` +
    `<p>The MCP endpoint at <code>/api/mcp</code> works without it.</p>`
).pipe(HttpServerResponse.setStatus(503), HttpServerResponse.setHeader("cache-control", "no-store"))

const notFound = (path: string) =>
  HttpServerResponse.unsafeJson({ _tag: "NotFound", message: `No route for ${path}` }, { status: 404 }).pipe(
    HttpServerResponse.setHeader("cache-control", "no-store")
  )

/** `Accept-Encoding` names gzip without refusing it (`gzip;q=0`). */
const acceptsGzip = (acceptEncoding: string | undefined): boolean =>
  (acceptEncoding ?? "").split(",").some((entry) => {
    const [coding = "", ...parameters] = entry.split(";").map((part) => part.trim().toLowerCase())
    const q = parameters.find((parameter) => parameter.startsWith("q="))
    return coding === "gzip" && (q === undefined || Number(q.slice(2)) > 0)
  })

const file = (found: File, cacheControl: string, acceptEncoding: string | undefined) => {
  const headers = { "cache-control": cacheControl, "x-content-type-options": "nosniff", vary: "accept-encoding" }
  return Option.isSome(found.gzipped) && acceptsGzip(acceptEncoding)
    ? HttpServerResponse.uint8Array(found.gzipped.value, { contentType: found.contentType }).pipe(
      HttpServerResponse.setHeaders({ ...headers, "content-encoding": "gzip" })
    )
    : HttpServerResponse.uint8Array(found.body, { contentType: found.contentType }).pipe(HttpServerResponse.setHeaders(headers))
}

/**
 * The browser app on the API's origin, so its requests carry the session cookie with no CORS:
 * hashed bundles under `/assets/` cached for a year (a new build has new names), and the HTML
 * shell — at `/` and at every client route outside `/api/`, which the app routes itself — never
 * cached, so a new build is picked up on the next load. An `open` route of the RequestGuard: the
 * shell holds no data, and the app signs in before it asks for any.
 */
export const makeWebAppRoutes = (dir: string) =>
  HttpLayerRouter.use((router) =>
    Effect.gen(function*() {
      const app = yield* loadBuiltApp(dir)

      const answer = Effect.gen(function*() {
        const request = yield* HttpServerRequest.HttpServerRequest
        const requested = pathOf(request.url)
        if (requested.startsWith("/api/") || requested === "/api") return notFound(requested)
        if (Option.isNone(app)) return notBuilt
        const encoding = request.headers["accept-encoding"]
        const found = app.value.file(requested)
        if (found !== undefined) return file(found, requested.startsWith(ASSETS_PREFIX) ? IMMUTABLE : "no-cache", encoding)
        // A bundle that is not there (an old page after a redeploy) must not get the shell as JavaScript.
        if (requested.startsWith(ASSETS_PREFIX)) return notFound(requested)
        return file(app.value.shell, "no-store", encoding).pipe(
          HttpServerResponse.setHeaders({ "content-security-policy": SHELL_POLICY, "referrer-policy": "no-referrer" })
        )
      })

      yield* router.add("GET", "/", answer)
      yield* router.add("GET", "/*", answer)
    })
  )

/** The web app built by `npm run build` (`dist/web/`). */
export const WebAppRoutes = makeWebAppRoutes(defaultWebAppDir())
