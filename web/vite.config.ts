import react from "@vitejs/plugin-react"
import { fileURLToPath } from "node:url"
import { defineConfig, type Plugin } from "vite"

const catalogDir = fileURLToPath(new URL("../catalog/", import.meta.url))

/**
 * The contract's modules only declare Schemas, types and functions (test/catalog/BrowserBundle.test.ts
 * holds them to the browser), so a module the app does not use is dropped whole: without this,
 * Rollup keeps every tool's top-level `Schema.Struct(…)` call, and with them the rich-text Schemas'
 * Markdown parser, since `McpClient.ts` imports the full catalog for `make`.
 */
const catalogHasNoSideEffects = (): Plugin => ({
  name: "trellis-catalog-has-no-side-effects",
  enforce: "pre",
  async resolveId(source, importer, options) {
    const resolved = await this.resolve(source, importer, { ...options, skipSelf: true })
    return resolved !== null && resolved.id.startsWith(catalogDir) ? { ...resolved, moduleSideEffects: false } : resolved
  }
})

// `npm run build` writes the app beside the compiled server, which serves it (src/platform/http/WebApp.ts).
export default defineConfig({
  root: fileURLToPath(new URL(".", import.meta.url)),
  base: "/",
  plugins: [catalogHasNoSideEffects(), react()],
  // Everything the app ships is imported by its code, so hashed; nothing is copied as it is.
  publicDir: false,
  build: {
    outDir: fileURLToPath(new URL("../dist/web", import.meta.url)),
    emptyOutDir: true,
    target: "es2022",
    assetsDir: "assets",
    reportCompressedSize: true,
    // The budget is 250 KB gzipped (test/web/Bundle.test.ts), not Rollup's 500 KB minified.
    chunkSizeWarningLimit: 800,
    // Source maps stay out of the shipped package (package.json `files`), so none are built.
    sourcemap: false
  }
})
