import { configDefaults, defineConfig } from "vitest/config"

// Vite's default server conditions, after the one that selects this checkout's source.
const conditions = ["trellis-source", "module", "node", "development|production"]

export default defineConfig({
  // `import … from "trellis"` in a test means this checkout's source, not the compiled package
  // (package.json's `trellis-source` export condition); test/e2e/Install.test.ts covers the compiled one.
  resolve: { conditions },
  ssr: { resolve: { conditions } },
  test: {
    include: ["test/**/*.test.ts"],
    // test/e2e/ starts `trellis serve` on its own embedded database whatever DATABASE_URL says, so the
    // PostgreSQL pass (DATABASE_URL set) would only repeat it unchanged.
    exclude: process.env["DATABASE_URL"] ? [...configDefaults.exclude, "test/e2e/**"] : configDefaults.exclude,
    // Migrates one database for the whole run; each test file's database is a copy of it (test/support/DatabaseSnapshot.ts).
    globalSetup: ["test/support/GlobalSetup.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // PGlite loads a WASM PostgreSQL per test file; two cores fit two at a time.
    maxWorkers: 2,
    minWorkers: 1
  }
})
