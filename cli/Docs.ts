import { Command, Options } from "@effect/cli"
import { Console, Effect } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { packageRoot } from "../src/platform/PackageRoot.js"
import { renderEventsDoc } from "./EventsDoc.js"
import { renderToolsDoc } from "./ToolsDoc.js"

const docsDir = path.join(packageRoot(import.meta.url), "docs")

/** Each generated document: its path and how to render it from what is committed. */
const documents: ReadonlyArray<{ readonly file: string; readonly render: (current: string) => string }> = [
  { file: "tools.md", render: () => renderToolsDoc() },
  { file: "events.md", render: renderEventsDoc }
]

const read = (file: string): string => (fs.existsSync(file) ? fs.readFileSync(file, "utf8") : "")

export const docs = Command.make("docs", {
  check: Options.boolean("check").pipe(Options.withDescription("Fail if a generated document is not up to date"))
}, ({ check }) =>
  Effect.gen(function*() {
    let stale = 0
    for (const { file, render } of documents) {
      const target = path.join(docsDir, file)
      const current = read(target)
      const rendered = render(current)
      if (current === rendered) {
        yield* Console.log(`docs/${file} is up to date`)
      } else if (check) {
        stale += 1
        yield* Console.error(`docs/${file} is out of date: run \`npm run docs\` and commit it`)
      } else {
        yield* Effect.sync(() => fs.writeFileSync(target, rendered))
        yield* Console.log(`Wrote docs/${file}`)
      }
    }
    if (stale > 0) {
      yield* Effect.sync(() => {
        process.exitCode = 1
      })
    }
  })).pipe(Command.withDescription("Write docs/tools.md and the generated part of docs/events.md"))
