import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import * as OpenApi from "@effect/platform/OpenApi"
import { Schema } from "effect"
import { Forbidden, InvalidArgument, NotFound } from "../domain/Errors.js"
import { ProjectId } from "../domain/Ids.js"
import { Authentication } from "./Authentication.js"
import { EventStream } from "./EventStream.js"

/** A change's number in the project change log: what a resumed changes stream goes on after. */
export const ChangeSeq = Schema.String.pipe(
  Schema.pattern(/^\d{1,15}$/, { message: () => "must be the id of a changes frame (digits)" })
).annotations({ description: "Resume after this changes frame id (the SSE \`Last-Event-ID\` header does the same)" })

/** A project's routes beside MCP: what a page of the project waits on. */
export class ProjectsGroup extends HttpApiGroup.make("projects")
  .add(
    HttpApiEndpoint.get("changes")`/${HttpApiSchema.param("projectId", ProjectId)}/changes`
      .setUrlParams(Schema.Struct({ after: Schema.optional(ChangeSeq) }))
      .addSuccess(EventStream)
      .annotate(
        OpenApi.Description,
        "The project's changes as server-sent events. Each `event: changes` frame carries `{threadIds, profileIds, taskIds, listIds, labelIds, artifactIds, agentIds, promptIds, skillIds}`, gathered over 200 ms: the threads the caller may read whose state changed (a run started or ended, a request raised or answered, a message, done, pinned, shared), the caller's machines (CLI profiles) that went online or offline, and the tasks (their comments, links, artifacts and files included), Lists, labels and artifacts (their comments included), project agents, prompts and Skills (the organization's too, except its Skills for a key narrowed to projects) written. Every frame has an \`id\` (a frame of only an \`id\` opens the stream): a client that reconnects with \`Last-Event-ID\` (or \`?after=\`) gets first, in one frame, what changed since that id, or an \`event: reset\` frame when the changes of more than 15 minutes ago are gone or too many (read everything again). A client reads what it shows when the stream first opens, then again for what a frame names"
      )
  )
  .addError(NotFound, { status: 404 })
  .addError(Forbidden, { status: 403 })
  .addError(InvalidArgument, { status: 400 })
  .prefix("/api/projects")
  .middleware(Authentication)
{}
