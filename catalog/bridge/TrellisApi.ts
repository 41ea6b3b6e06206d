import * as HttpApi from "@effect/platform/HttpApi"
import { AgentGroup } from "./AgentApi.js"
import { ProjectsGroup } from "./ProjectsApi.js"
import { PromptsGroup } from "./PromptsApi.js"
import { TaskFilesGroup } from "./TaskFilesApi.js"
import { TaskOrderGroup } from "./TaskOrderApi.js"
import { ThreadsGroup } from "./ThreadsApi.js"

/** Every route beside MCP: the CLI bridge and the client API (OpenAPI at `/api/openapi.json`). */
export class TrellisApi extends HttpApi.make("trellis").add(AgentGroup).add(ThreadsGroup).add(ProjectsGroup)
  .add(TaskFilesGroup).add(TaskOrderGroup).add(PromptsGroup)
{}
