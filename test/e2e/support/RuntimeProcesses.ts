/**
 * The processes a running agent has started, read from /proc as any local user could (Linux):
 * each descendant's command line, and (ours, so readable) its environment.
 */
import * as fs from "node:fs"

export interface RunningProcess {
  readonly pid: number
  readonly argv: ReadonlyArray<string>
  /** Empty when the process ended while it was read. */
  readonly env: ReadonlyMap<string, string>
}

const read = (file: string): string | undefined => {
  try {
    return fs.readFileSync(file, "utf8")
  } catch {
    return undefined
  }
}

/** The parent of a process, from /proc/<pid>/stat (the fields after the parenthesized command name). */
const parentOf = (pid: string): number | undefined => {
  const stat = read(`/proc/${pid}/stat`)
  if (stat === undefined) return undefined
  return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1])
}

const split = (text: string | undefined): ReadonlyArray<string> => (text ?? "").split("\0").filter((part) => part !== "")

/** `root` and every process below it, now. */
export const processTree = (root: number): ReadonlyArray<RunningProcess> => {
  const children = new Map<number, Array<number>>()
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue
    const parent = parentOf(entry)
    if (parent !== undefined) children.set(parent, [...(children.get(parent) ?? []), Number(entry)])
  }
  const pids: Array<number> = []
  const visit = (pid: number) => {
    pids.push(pid)
    for (const child of children.get(pid) ?? []) visit(child)
  }
  visit(root)
  return pids.map((pid) => ({
    pid,
    argv: split(read(`/proc/${pid}/cmdline`)),
    env: new Map(split(read(`/proc/${pid}/environ`)).map((pair) => [pair.slice(0, pair.indexOf("=")), pair.slice(pair.indexOf("=") + 1)]))
  }))
}

/** The processes of `tree` whose command line holds `text`, as `pid: argv` lines. */
export const commandLinesWith = (tree: ReadonlyArray<RunningProcess>, text: string): ReadonlyArray<string> =>
  tree.filter((p) => p.argv.some((arg) => arg.includes(text))).map((p) => `${p.pid}: ${p.argv.join(" ")}`)
