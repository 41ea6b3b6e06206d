/**
 * `npm run build`'s step after the compile: the CLI as a few files (`dist/bundle/`), which is what
 * `cli/bin.js` runs. Loaded as ~1,500 separate modules, a command spent most of its start in
 * Node's module loader (resolving, reading and linking each file): `trellis --version` took 0.95 s of
 * CPU, 0.36 s bundled, and every `trellis serve` and `trellis agent start` starts that much sooner
 * (docs/decisions.md). Each subcommand stays a chunk of its own (`cli/main.ts` imports the one asked
 * for), so the agent still does not load the backend.
 */
import * as esbuild from "esbuild"
import * as path from "node:path"
import { packageRoot } from "../src/platform/PackageRoot.js"

const root = packageRoot(import.meta.url)

await esbuild.build({
  entryPoints: [path.join(root, "dist", "cli", "main.js")],
  outdir: path.join(root, "dist", "bundle"),
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20",
  // Whitespace and syntax only: stack traces keep their function and class names.
  minifyWhitespace: true,
  minifySyntax: true,
  // PGlite finds its WebAssembly and data files beside its own modules.
  external: ["@electric-sql/pglite"],
  // Bundled CommonJS dependencies (pg, markdown-it) call `require` for Node's built-ins.
  banner: { js: `import { createRequire as __trellisRequire } from "node:module"; const require = __trellisRequire(import.meta.url);` },
  logLevel: "warning"
})
