#!/usr/bin/env node
// Runs the TypeScript CLI directly: tsx compiles on load, so a checkout needs no build step.
import { register } from "tsx/esm/api"

register()
await import("./main.ts")
