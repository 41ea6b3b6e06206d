/** What every benchmark's entry point does around its work: progress, clean-ups, signals and failure. */

/** Progress goes to stderr; stdout carries only the report. */
export const progress = (line: string): void => {
  process.stderr.write(`${line}\n`)
}

/** Things to undo at the end, newest first; a clean-up that fails is reported and the rest still run. */
export const makeCleanups = () => {
  const pending: Array<() => Promise<void>> = []
  return {
    push: (cleanup: () => Promise<void>): void => {
      pending.push(cleanup)
    },
    runAll: async (): Promise<void> => {
      for (const cleanup of pending.splice(0).reverse()) {
        await cleanup().catch((error: unknown) => progress(`cleanup failed: ${error instanceof Error ? error.message : String(error)}`))
      }
    }
  }
}

/**
 * Runs `main`, then the clean-ups, also on SIGINT/SIGTERM (exiting 130/143); a failure is printed
 * with its stack and sets exit code 1.
 */
export const runBenchmark = async (main: () => Promise<void>, cleanups: ReturnType<typeof makeCleanups>): Promise<void> => {
  for (const [signal, exitCode] of [["SIGINT", 130], ["SIGTERM", 143]] as const) {
    process.once(signal, () => {
      void cleanups.runAll().finally(() => process.exit(exitCode))
    })
  }
  try {
    await main()
  } catch (error) {
    process.stderr.write(`benchmark failed: ${error instanceof Error ? error.stack ?? error.message : String(error)}\n`)
    process.exitCode = 1
  } finally {
    await cleanups.runAll()
  }
}
