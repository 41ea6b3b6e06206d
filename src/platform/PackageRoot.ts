import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"

const nearestPackage = (dir: string): string =>
  fs.existsSync(path.join(dir, "package.json")) || path.dirname(dir) === dir ? dir : nearestPackage(path.dirname(dir))

/**
 * This package's root: the nearest folder above `moduleUrl` with a package.json (the checkout, or
 * where npm installed it). The TypeScript sources, the compiled files and the bundle the CLI runs
 * (`dist/bundle/`) sit at different depths, so what the build makes is found from here.
 */
export const packageRoot = (moduleUrl: string): string => nearestPackage(path.dirname(fileURLToPath(moduleUrl)))

/** Whether `moduleUrl` is a TypeScript source run through tsx, not the build. */
export const isSource = (moduleUrl: string): boolean => moduleUrl.endsWith(".ts")
