import { configDefaults, defineConfig } from "vitest/config"
import { filesByTier, type Tier } from "./test/Tiers.js"

// Vite's default server conditions, after the one that selects this checkout's source.
const conditions = ["trellis-source", "module", "node", "development|production"]

const tiers = filesByTier()

// The PostgreSQL pass (DATABASE_URL set) runs the tiers whose behaviour depends on the database;
// the others start `trellis serve` on its own embedded database or use none, and would only repeat.
const onPostgres: ReadonlyArray<Tier> = ["service", "endpoint"]
const run = (tier: Tier) => process.env["DATABASE_URL"] === undefined || onPostgres.includes(tier)

// Migrates one database per tier that uses one; each test file's database is a copy of it (test/support/DatabaseSnapshot.ts).
const usesTestDatabase: ReadonlyArray<Tier> = ["service", "endpoint", "browser"]

// These files time a deadline of the agent's own (offline within 2 s of a signal): they run last,
// one at a time, on a machine nothing else is loading, so that what they time is the agent and
// not the other runtimes and Chromium sharing two cores with it.
const deadlines = ["test/e2e/Shutdown.test.ts", "test/e2e/ShutdownInFlight.test.ts"]
const misplaced = deadlines.filter((file) => !tiers.runtime.includes(file))
if (misplaced.length > 0) throw new Error(`vitest.config.ts: ${misplaced.join(", ")} not in the runtime tier`)

const project = (tier: Tier, groupOrder: number) => ({
  extends: true as const,
  test: {
    name: tier,
    include: run(tier) ? tiers[tier].filter((file) => !deadlines.includes(file)) : [],
    globalSetup: usesTestDatabase.includes(tier) ? ["test/support/GlobalSetup.ts"] : [],
    // The real runtimes run after everything else, on a machine no other tier is loading.
    sequence: { groupOrder }
  }
})

const deadlineProject = (tier: Tier, groupOrder: number) => ({
  extends: true as const,
  test: {
    name: `${tier}-deadlines`,
    include: run(tier) ? tiers[tier].filter((file) => deadlines.includes(file)) : [],
    sequence: { groupOrder },
    poolOptions: { forks: { singleFork: true } }
  }
})

export default defineConfig({
  // `import … from "trellis"` in a test means this checkout's source, not the compiled package
  // (package.json's `trellis-source` export condition); test/e2e/Install.test.ts covers the compiled one.
  resolve: { conditions },
  ssr: { resolve: { conditions } },
  test: {
    exclude: configDefaults.exclude,
    testTimeout: 30_000,
    // A condition waited on with expect.poll may take this long on a loaded 2-core machine (a
    // debounced search, a board of 2,000 cards redrawn): the default second is a typical time, not a deadline.
    expect: { poll: { timeout: 5_000 } },
    hookTimeout: 60_000,
    // PGlite loads a WASM PostgreSQL per test file; two cores fit two at a time.
    maxWorkers: 2,
    // `npm run test:quick` runs without isolation (--no-isolate: the backend is loaded once per
    // worker, not per file); a file restores what it changes of the process, and
    // @effect/vitest's `it` is reset before each file. `npm test` keeps isolation: without it,
    // vitest runs the tiers one after another, and the browser tier's files two at a time on 2 cores.
    setupFiles: ["test/support/EffectVitestReset.ts"],
    minWorkers: 1,
    passWithNoTests: true,
    projects: [
      project("unit", 0),
      project("service", 0),
      project("endpoint", 0),
      project("process", 0),
      project("browser", 0),
      project("runtime", 1),
      deadlineProject("runtime", 2)
    ]
  }
})
