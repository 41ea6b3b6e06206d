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
import { isSource, packageRoot } from "../PackageRoot.js"

/** Where the build puts it: `dist/pglite-cluster/`. */
export const IMAGE_DIR = path.join(packageRoot(import.meta.url), "dist", "pglite-cluster")

/** The image a new data directory starts from: the build's; run from source, none (initdb, then every migration). */
const defaultImage = isSource(import.meta.url) ? undefined : IMAGE_DIR

const hasCluster = (dir: string): boolean => fs.existsSync(path.join(dir, "PG_VERSION"))

/** Fills a data directory that has no cluster with the build's (`image`), if there is one. */
export const copyTo = (dataDir: string, image: string | undefined = defaultImage): void => {
  if (image === undefined || hasCluster(dataDir) || !hasCluster(image)) return
  fs.cpSync(image, dataDir, { recursive: true })
}
