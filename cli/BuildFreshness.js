// Whether dist/ (`npm run build`) is at least as new as every TypeScript source under the package
// root. An installed package ships only dist/ (package.json `files`): no source, so never stale.
import { existsSync, readdirSync, statSync } from "node:fs"
import { join } from "node:path"

const SOURCE_DIRS = ["catalog", "src", "cli"]

const modifiedAfter = (dir, time) =>
  readdirSync(dir, { withFileTypes: true }).some((entry) => {
    const path = join(dir, entry.name)
    return entry.isDirectory() ? modifiedAfter(path, time) : entry.name.endsWith(".ts") && statSync(path).mtimeMs > time
  })

/** @param {string} root the package root @returns {boolean} */
export const isBuildFresh = (root) => {
  try {
    const built = statSync(join(root, "dist", ".built")).mtimeMs
    return SOURCE_DIRS.every((dir) => !existsSync(join(root, dir)) || !modifiedAfter(join(root, dir), built))
  } catch {
    return false
  }
}
