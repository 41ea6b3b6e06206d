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

/**
 * The image's directories, listed in the image by the build. PostgreSQL will not start without
 * its empty ones (pg_tblspc, pg_notify, …), and a package keeps no empty directory: `npm pack`
 * leaves them out, so the copy makes each again.
 */
const DIRECTORY_LIST = "trellis-directories.json"

/** Lists the image's directories in it (`cli/BuildClusterImage.ts`, once the cluster is made). */
export const listDirectories = (image: string): void => {
  const below = (relative: string): ReadonlyArray<string> =>
    fs.readdirSync(path.join(image, relative), { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .flatMap((entry) => [path.join(relative, entry.name), ...below(path.join(relative, entry.name))])
  fs.writeFileSync(path.join(image, DIRECTORY_LIST), JSON.stringify([...below("")].sort()))
}

const listedDirectories = (image: string): ReadonlyArray<string> => {
  const file = path.join(image, DIRECTORY_LIST)
  if (!fs.existsSync(file)) return []
  const listed: unknown = JSON.parse(fs.readFileSync(file, "utf8"))
  return Array.isArray(listed) ? listed.filter((entry): entry is string => typeof entry === "string") : []
}

/** Fills a data directory that has no cluster with the build's (`image`), if there is one. */
export const copyTo = (dataDir: string, image: string | undefined = defaultImage): void => {
  if (image === undefined || hasCluster(dataDir) || !hasCluster(image)) return
  // PG_VERSION, what says a cluster is there, goes last: a copy cut short is made again by the next start.
  for (const directory of listedDirectories(image)) fs.mkdirSync(path.join(dataDir, directory), { recursive: true })
  const list = path.join(image, DIRECTORY_LIST)
  const version = path.join(image, "PG_VERSION")
  fs.cpSync(image, dataDir, { recursive: true, filter: (source) => source !== list && source !== version })
  fs.copyFileSync(version, path.join(dataDir, "PG_VERSION"))
}
