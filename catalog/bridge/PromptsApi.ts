import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import * as OpenApi from "@effect/platform/OpenApi"
import { Forbidden, InvalidArgument, NotFound } from "../domain/Errors.js"
import { PromptId } from "../domain/Ids.js"
import { Authentication } from "./Authentication.js"

/**
 * The prompt routes beside MCP. SPEC leaves deleting a prompt out of the tool interface ("web UI
 * only"), so it is a route of the web app: a browser session may call it, an API key may not.
 */
export class PromptsGroup extends HttpApiGroup.make("prompts")
  .add(
    HttpApiEndpoint.del("remove")`/${HttpApiSchema.param("promptId", PromptId)}`
      .annotate(
        OpenApi.Description,
        "Delete a prompt (slash command) for good. Web app only: signed in with a browser session, never an API key (403). " +
          "A project prompt needs the project role admin or member, an organization prompt the organization role owner or " +
          "admin (403); a prompt the caller cannot see is 404"
      )
  )
  .addError(NotFound, { status: 404 })
  .addError(Forbidden, { status: 403 })
  .addError(InvalidArgument, { status: 400 })
  .prefix("/api/prompts")
  .middleware(Authentication)
{}
