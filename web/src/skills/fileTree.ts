/** A folder of a Skill's file tree: its files and sub-folders, by name. */
export interface Folder {
  readonly name: string
  readonly path: string
  readonly folders: ReadonlyArray<Folder>
  readonly files: ReadonlyArray<{ readonly name: string; readonly path: string }>
}

/** The tree of relative POSIX paths: folders first, then files, each by name; SKILL.md leads the root. */
export const fileTree = (paths: ReadonlyArray<string>, name = "", prefix = ""): Folder => {
  const files: Array<{ name: string; path: string }> = []
  const below = new Map<string, Array<string>>()
  for (const path of paths) {
    const slash = path.indexOf("/")
    if (slash === -1) files.push({ name: path, path: prefix + path })
    else below.set(path.slice(0, slash), [...(below.get(path.slice(0, slash)) ?? []), path.slice(slash + 1)])
  }
  const byName = (a: { readonly name: string }, b: { readonly name: string }) =>
    a.name === "SKILL.md" ? -1 : b.name === "SKILL.md" ? 1 : a.name.localeCompare(b.name)
  return {
    name,
    path: prefix,
    folders: [...below].map(([folder, rest]) => fileTree(rest, folder, `${prefix}${folder}/`)).sort(byName),
    files: files.sort(byName)
  }
}
