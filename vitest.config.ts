import { configDefaults, defineConfig } from "vitest/config"
import { filesByTier, type Tier } from "./test/Tiers.js"

// Vite's default server conditions, after the one that selects this checkout's source.
const conditions = ["trellis-source", "module", "node", "development|production"]

const tiers = filesByTier()

// `DATABASE_URL` set: only the tiers whose behaviour depends on the database, on that PostgreSQL server;
// the others start `trellis serve` on its own embedded database or use none, and would only repeat.
// `TRELLIS_TEST_POSTGRES_URL` set (CI): every tier on the embedded database and, in the same run,
// those two again on PostgreSQL (projects `service-postgres`, `endpoint-postgres`), so that one
// run keeps both cores busy while the process, browser and runtime tiers wait on their processes.
const onPostgres: ReadonlyArray<Tier> = ["service", "endpoint"]
const postgresOnly = process.env["DATABASE_URL"] !== undefined
const alsoPostgres = postgresOnly ? undefined : process.env["TRELLIS_TEST_POSTGRES_URL"]
const run = (tier: Tier) => !postgresOnly || onPostgres.includes(tier)

// Migrates one database per project that uses one; each test file's database is a copy of it (test/support/DatabaseSnapshot.ts).
const usesTestDatabase: ReadonlyArray<Tier> = ["service", "endpoint", "browser"]

// The tiers that keep a core busy (PGlite and the backend in process) share two worker threads
// without isolation: the backend's modules load once per worker, not once per file. The others
// mostly wait, on processes, Chromium or the mock model, and run beside them in forks of their own.
const cpuBound: ReadonlyArray<Tier> = ["unit", "service", "endpoint"]

// These files time a deadline of the agent's own (offline within 2 s of a signal): they run last,
// on a machine no other tier is loading, so that what they time is the agent and not Chromium or
// the database tiers sharing two cores with it. Side by side, the slowest went offline in 284 ms.
const deadlines = ["test/e2e/Shutdown.test.ts", "test/e2e/ShutdownInFlight.test.ts"]
const misplaced = deadlines.filter((file) => !tiers.runtime.includes(file))
if (misplaced.length > 0) throw new Error(`vitest.config.ts: ${misplaced.join(", ")} not in the runtime tier`)

const project = (tier: Tier, groupOrder: number, postgres?: string) => ({
  extends: true as const,
  test: {
    name: postgres === undefined ? tier : `${tier}-postgres`,
    pool: cpuBound.includes(tier) ? "threads" as const : "forks" as const,
    include: run(tier) ? tiers[tier].filter((file) => !deadlines.includes(file)) : [],
    globalSetup: usesTestDatabase.includes(tier) ? ["test/support/GlobalSetup.ts"] : [],
    ...(postgres === undefined ? {} : { env: { DATABASE_URL: postgres } }),
    // The real runtimes run after everything else, on a machine no other tier is loading.
    sequence: { groupOrder }
  }
})

const deadlineProject = (tier: Tier, groupOrder: number) => ({
  extends: true as const,
  test: {
    name: `${tier}-deadlines`,
    include: run(tier) ? tiers[tier].filter((file) => deadlines.includes(file)) : [],
    sequence: { groupOrder }
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
    // Two cores: two threads for the busy tiers, and three forks for the waiting ones beside them.
    // Without isolation a file restores what it changes of the process, and @effect/vitest's `it`
    // is reset before each file (test/support/EffectVitestReset.ts).
    maxWorkers: 2,
    poolOptions: { threads: { maxThreads: 2, minThreads: 1, isolate: false }, forks: { maxForks: 3, minForks: 1 } },
    setupFiles: ["test/support/EffectVitestReset.ts"],
    minWorkers: 1,
    passWithNoTests: true,
    projects: [
      project("unit", 0),
      project("service", 0),
      project("endpoint", 0),
      ...(alsoPostgres === undefined ? [] : onPostgres.map((tier) => project(tier, 0, alsoPostgres))),
      project("process", 0),
      project("browser", 0),
      project("runtime", 1),
      deadlineProject("runtime", 2)
    ]
  }
})
