import { describe, expect, it } from "@effect/vitest"
import * as fs from "node:fs"
import { configuredModel, lastModelOf, modelRef } from "../../../cli/agent/runtimes/OpenCodeModel.js"

const recorded: unknown = JSON.parse(
  fs.readFileSync(new URL("../../fixtures/recorded/opencode/opencode-serve-raw-compact.messages.json", import.meta.url), "utf8")
)

describe("the model an OpenCode call names", () => {
  it("a thread's cliModel is provider/model; anything without a provider names none", () => {
    expect(modelRef("mock/mock-model")).toEqual({ providerID: "mock", modelID: "mock-model" })
    expect(modelRef("openrouter/anthropic/claude")).toEqual({ providerID: "openrouter", modelID: "anthropic/claude" })
    for (const unnamed of [null, "mock-model", "/mock-model", "mock/"]) expect(modelRef(unnamed), String(unnamed)).toBeUndefined()
  })

  it("a session's model is its latest message's: an answer's providerID/modelID or a prompt's model", () => {
    expect(lastModelOf(recorded)).toEqual({ providerID: "mock", modelID: "mock-model" })
    const messages = [
      { info: { role: "user", model: { providerID: "a", modelID: "first" } } },
      { info: { role: "assistant", providerID: "b", modelID: "second" } },
      { info: { role: "user", model: { providerID: "c", modelID: "third" } } },
      { info: { role: "assistant" } }
    ]
    expect(lastModelOf(messages)).toEqual({ providerID: "c", modelID: "third" })
    expect(lastModelOf([])).toBeUndefined()
    expect(lastModelOf(undefined)).toBeUndefined()
  })

  it("without one, OpenCode's own pick: opencode.json's model, else the first provider's default", () => {
    const providers = { providers: [], default: { anthropic: "claude-sonnet", openai: "gpt" } }
    expect(configuredModel({ model: "mock/mock-model" }, providers)).toEqual({ providerID: "mock", modelID: "mock-model" })
    expect(configuredModel({}, providers)).toEqual({ providerID: "anthropic", modelID: "claude-sonnet" })
    expect(configuredModel({ model: "unprefixed" }, providers)).toEqual({ providerID: "anthropic", modelID: "claude-sonnet" })
    expect(configuredModel({}, { providers: [], default: {} })).toBeUndefined()
  })
})
