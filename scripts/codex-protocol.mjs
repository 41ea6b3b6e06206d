#!/usr/bin/env node
// Regenerates cli/agent/runtimes/codex-protocol/ from the pinned codex binary
// (`codex app-server generate-ts --experimental`), so the app-server types always match the version
// in package.json. The generated imports have no extensions; ESM (NodeNext) needs them, so each
// relative import is given its `.js` (or `/index.js` for a directory).
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..")
const out = path.join(root, "cli/agent/runtimes/codex-protocol")
const codexHome = fs.mkdtempSync(path.join(os.tmpdir(), "codex-protocol-"))
fs.rmSync(out, { recursive: true, force: true })
execFileSync(process.execPath, [path.join(root, "node_modules/@openai/codex/bin/codex.js"), "app-server", "generate-ts", "--experimental", "--out", out], {
  env: { ...process.env, CODEX_HOME: codexHome },
  stdio: ["ignore", "inherit", "inherit"]
})
fs.rmSync(codexHome, { recursive: true, force: true })

const files = fs.readdirSync(out, { recursive: true, encoding: "utf8" }).filter((file) => file.endsWith(".ts"))
for (const file of files) {
  const full = path.join(out, file)
  const source = fs.readFileSync(full, "utf8")
  const fixed = source.replace(/(from\s+")(\.{1,2}\/[^"]*)(")/g, (_, before, specifier, after) => {
    const target = path.resolve(path.dirname(full), specifier)
    const resolved = fs.existsSync(`${target}.ts`) ? `${specifier}.js` : `${specifier}/index.js`
    return `${before}${resolved}${after}`
  })
  if (fixed !== source) fs.writeFileSync(full, fixed)
}
console.log(`codex-protocol: ${files.length} files in ${path.relative(root, out)}`)
