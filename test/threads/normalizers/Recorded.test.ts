import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { unbundle } from "../../../catalog/events/Bundles.js"
import { normalizeChunk } from "../../../src/threads/normalizers/normalize.js"
import { recordedNames, transcript } from "../../support/Transcripts.js"

/**
 * Issue 7: `npm run record-fixtures` re-records the normalizer's transcripts from the pinned
 * binaries (test/fixtures/recorded/). Whatever the ids and wording of a new recording, each
 * scenario must still show what it is about; the invariants every transcript keeps (valid events,
 * nothing unknown but ignored lines, deterministic) are checked over these too, in Normalize.test.ts.
 */

const shows: Readonly<Record<string, ReadonlyArray<string>>> = {
  "claude-raw-hello": ["text", "metadata"],
  "claude-raw-resume": ["tool-input", "tool-output", "text"],
  "claude-raw-compact": ["context-compaction"],
  "claude-raw-stdio-permission": ["tool-input", "tool-output"],
  "claude-raw-stdio-deny": ["tool-input", "tool-error"],
  "claude-raw-stdio-askuser": ["tool-input", "tool-output"],
  "claude-raw-stdio-plan": ["tool-input", "tool-output"],
  "claude-raw-api-retry": ["runtime-notice", "text"],
  "claude-raw-api-error": ["metadata"],
  "codex-exec-raw-hello": ["text", "metadata"],
  "codex-exec-raw-tool": ["tool-input", "tool-output"],
  "codex-exec-raw-resume": ["tool-input", "tool-output", "text"],
  "codex-exec-raw-tool-error": ["tool-input", "tool-error"],
  "codex-exec-raw-slash-compact": ["text"],
  "codex-exec-raw-retry": ["text"],
  "codex-exec-raw-error": ["warning"],
  "codex-appserver-raw-approval": ["tool-input", "tool-output", "context-compaction", "text"],
  "codex-appserver-raw-resume-askuser": ["text"],
  "codex-appserver-raw-plan-askuser": ["text"],
  "codex-appserver-raw-retry": ["runtime-notice", "text"],
  "codex-appserver-raw-error": ["warning"],
  "opencode-serve-raw-permission": ["tool-input", "tool-output"],
  "opencode-serve-raw-question": ["tool-input", "tool-output"],
  "opencode-serve-raw-deny-resume": ["tool-input", "tool-error"],
  "opencode-serve-raw-compact": ["context-compaction"],
  "opencode-serve-raw-command": ["text"],
  "opencode-serve-raw-retry": ["runtime-notice", "text"],
  "opencode-serve-raw-error": ["warning"],
  "opencode-run-raw-hello": ["text", "metadata"],
  "opencode-run-raw-tool-ask": ["text"],
  "opencode-run-raw-tool-error-auto": ["text"]
}

const kindsOf = (name: string): ReadonlySet<string> => {
  const { chunks, source } = transcript(`recorded/${name}`)
  return new Set(chunks.flatMap((chunk) => unbundle(normalizeChunk(source, chunk.type, chunk.data)).map((event) => event.kind)))
}

describe("the transcripts record-fixtures captures from the pinned binaries", () => {
  it.effect("every scenario of the script is recorded, and nothing else", () =>
    Effect.sync(() => {
      expect(recordedNames().map((name) => name.slice("recorded/".length))).toEqual(Object.keys(shows).sort())
    }))

  for (const [name, kinds] of Object.entries(shows)) {
    it.effect(`${name} shows ${kinds.join(", ")}`, () =>
      Effect.sync(() => {
        expect([...kindsOf(name)]).toEqual(expect.arrayContaining([...kinds]))
      }))
  }
})
