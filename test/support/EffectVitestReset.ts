import { it, makeMethods } from "@effect/vitest"

/**
 * Runs before each test file (vitest's setupFiles). The suite runs files one after another in a
 * worker without isolating them (vitest.config.ts), and @effect/vitest's `layer()` assigns its
 * own `effect`, `scoped` and `layer` onto vitest's shared `it`: without this, the next file's
 * `it.layer(…)` would be built over the previous file's layer and test services.
 */
makeMethods(it)
