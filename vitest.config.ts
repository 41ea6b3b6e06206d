import { defineConfig } from "vitest/config"

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // PGlite loads a WASM PostgreSQL per test file; two cores fit two at a time.
    maxWorkers: 2,
    minWorkers: 1
  }
})
