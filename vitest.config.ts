import { configDefaults, defineConfig } from "vitest/config"

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // test/e2e/ starts `trellis serve` on its own embedded database whatever DATABASE_URL says, so the
    // PostgreSQL pass (DATABASE_URL set) would only repeat it unchanged.
    exclude: process.env["DATABASE_URL"] ? [...configDefaults.exclude, "test/e2e/**"] : configDefaults.exclude,
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // PGlite loads a WASM PostgreSQL per test file; two cores fit two at a time.
    maxWorkers: 2,
    minWorkers: 1
  }
})
