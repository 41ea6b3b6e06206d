/**
 * The embedded database's first start from a cluster made when Trellis was built: initdb and
 * every migration already run (`cli/BuildClusterImage.ts`, part of `npm run build`). Copying its
 * files takes a fraction of a second, where creating a cluster is PostgreSQL's initdb in
 * WebAssembly (in a child process, `PgliteCluster.ts`): a first `trellis serve` is ready in the
 * time of a restart, and holds no more memory than one. A directory, not a tarball: PGlite
 * unpacks a tarball in the opening process, whose WebAssembly memory then stays ~100 MB larger.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"

/** Beside the compiled sources: `dist/pglite-cluster/`. Run from source, there is none. */
export const IMAGE_DIR = fileURLToPath(new URL("../../../pglite-cluster", import.meta.url))

const hasCluster = (dir: string): boolean => fs.existsSync(path.join(dir, "PG_VERSION"))

/** Fills a data directory that has no cluster with the build's (`image`), if there is one. */
export const copyTo = (dataDir: string, image: string = IMAGE_DIR): void => {
  if (hasCluster(dataDir) || !hasCluster(image)) return
  fs.cpSync(image, dataDir, { recursive: true })
}
