// Preloaded into `trellis serve` by the memory benchmark (NODE_OPTIONS=--import): every 250 ms it writes the
// process's V8 heap figures to BENCH_MEMORY_PROBE_DIR/<pid>.json, since no other window shows them from outside.
import { renameSync, writeFileSync } from "node:fs"
import { join } from "node:path"

const dir = process.env.BENCH_MEMORY_PROBE_DIR
if (dir !== undefined && dir !== "") {
  const file = join(dir, `${process.pid}.json`)
  const write = () => {
    const { heapUsed, heapTotal, external, arrayBuffers } = process.memoryUsage()
    // Renamed into place, so that a reader never sees half a file.
    writeFileSync(`${file}.tmp`, JSON.stringify({ heapUsed, heapTotal, external, arrayBuffers }))
    renameSync(`${file}.tmp`, file)
  }
  write()
  setInterval(write, 250).unref()
}
