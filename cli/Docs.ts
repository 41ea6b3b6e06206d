import { Command, Options } from "@effect/cli"
import { Console, Effect } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { renderToolsDoc } from "./ToolsDoc.js"

const target = path.join(import.meta.dirname, "..", "docs", "tools.md")

export const docs = Command.make("docs", {
  check: Options.boolean("check").pipe(Options.withDescription("Fail if docs/tools.md is not up to date"))
}, ({ check }) =>
  Effect.gen(function* () {
    const rendered = renderToolsDoc()
    if (!check) {
      yield* Effect.sync(() => fs.writeFileSync(target, rendered))
      return yield* Console.log(`Wrote ${path.relative(process.cwd(), target)}`)
    }
    const current = fs.existsSync(target) ? fs.readFileSync(target, "utf8") : ""
    if (current === rendered) return yield* Console.log("docs/tools.md is up to date")
    yield* Console.error("docs/tools.md is out of date: run `npm run docs` and commit it")
    yield* Effect.sync(() => {
      process.exitCode = 1
    })
  })
).pipe(Command.withDescription("Write docs/tools.md from the tool catalog"))
