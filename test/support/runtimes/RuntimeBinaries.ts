/**
 * The pinned runtimes' binaries, resolved from their npm packages (devDependencies), and a bin
 * directory that puts them on PATH under the names the CLI runs (`claude`, `codex`, `opencode`).
 *
 * The wrappers' postinstall scripts copy each platform binary over a placeholder; an npm that
 * skips install scripts leaves the placeholder, so the platform packages are resolved directly
 * (RUNTIMES.md §0). Codex's wrapper is a plain node script that finds its platform package itself.
 */
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import { createRequire } from "node:module"
import * as os from "node:os"
import * as path from "node:path"

const require = createRequire(import.meta.url)

const isMusl = (): boolean => {
  if (os.platform() !== "linux") return false
  const report: unknown = process.report?.getReport()
  const header: unknown = typeof report === "object" && report !== null ? Reflect.get(report, "header") : undefined
  return typeof header === "object" && header !== null && Reflect.get(header, "glibcVersionRuntime") === undefined
}

const hasAvx2 = (): boolean => {
  try {
    return /(^|\s)avx2(\s|$)/i.test(fs.readFileSync("/proc/cpuinfo", "utf8"))
  } catch {
    return true
  }
}

/** The directory of an installed package, or undefined when npm did not install it (another platform). */
const packageDir = (name: string): string | undefined => {
  try {
    return path.dirname(require.resolve(`${name}/package.json`))
  } catch {
    return undefined
  }
}

const firstExisting = (candidates: ReadonlyArray<string | undefined>): string | undefined =>
  candidates.find((file): file is string => file !== undefined && fs.existsSync(file) && fs.statSync(file).size > 1024 * 1024)

const platform = `${os.platform()}-${os.arch()}`

const claudeBinary = (): string | undefined => {
  const suffix = isMusl() ? `${platform}-musl` : platform
  const platformDir = packageDir(`@anthropic-ai/claude-code-${suffix}`)
  const wrapperDir = packageDir("@anthropic-ai/claude-code")
  return firstExisting([
    platformDir === undefined ? undefined : path.join(platformDir, "claude"),
    // The wrapper's binary once its postinstall has replaced the placeholder.
    wrapperDir === undefined ? undefined : path.join(wrapperDir, "bin", "claude.exe")
  ])
}

const opencodeBinary = (): string | undefined => {
  const base = `opencode-${os.platform()}-${os.arch()}`
  const variants = [
    ...(hasAvx2() ? [] : [`${base}-baseline`]),
    ...(isMusl() ? [`${base}-musl`, `${base}-baseline-musl`] : []),
    base,
    `${base}-baseline`
  ]
  const wrapperDir = packageDir("opencode-ai")
  return firstExisting([
    ...variants.map((name) => {
      const dir = packageDir(name)
      return dir === undefined ? undefined : path.join(dir, "bin", "opencode")
    }),
    wrapperDir === undefined ? undefined : path.join(wrapperDir, "bin", "opencode.exe")
  ])
}

const codexBinary = (): string | undefined => {
  const dir = packageDir("@openai/codex")
  return dir === undefined ? undefined : path.join(dir, "bin", "codex.js")
}

export interface RuntimeBinaries {
  readonly claude: string | undefined
  readonly codex: string | undefined
  readonly opencode: string | undefined
}

export const runtimeBinaries = (): RuntimeBinaries => ({ claude: claudeBinary(), codex: codexBinary(), opencode: opencodeBinary() })

/** The pinned Claude Code is not installed for this platform, or does not start (asked only when a suite would run). */
export const claudeCannotRunHere = (): boolean => {
  const claude = claudeBinary()
  return claude === undefined || spawnSync(claude, ["--version"], { encoding: "utf8", timeout: 30_000, stdio: "pipe" }).status !== 0
}

/** A runtime's command: the key of its binary. */
export type RuntimeCommand = keyof RuntimeBinaries
export const RUNTIME_COMMANDS: ReadonlyArray<RuntimeCommand> = ["claude", "codex", "opencode"]

/**
 * Symlinks the resolved binaries of `commands` into `dir` under their command names; returns `dir`.
 * A machine given only the runtimes its test runs starts faster: `trellis agent start` asks each
 * runtime on PATH for its version and models (OpenCode's listing alone is ~2 s of CPU).
 */
export const linkRuntimeBinaries = (dir: string, commands: ReadonlyArray<RuntimeCommand> = RUNTIME_COMMANDS): string => {
  fs.mkdirSync(dir, { recursive: true })
  for (const [name, target] of Object.entries(runtimeBinaries())) {
    if (typeof target !== "string" || !commands.some((command) => command === name)) continue
    const link = path.join(dir, name)
    fs.rmSync(link, { force: true })
    fs.symlinkSync(target, link)
  }
  return dir
}
