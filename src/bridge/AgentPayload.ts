import type * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import type * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import type { AgentGroup } from "../../catalog/bridge/AgentApi.js"

/** The decoded payload of a CLI bridge endpoint, as the contract declares it, by the endpoint's name. */
export type AgentPayload<Name extends HttpApiGroup.HttpApiGroup.Endpoints<typeof AgentGroup>["name"]> =
  HttpApiEndpoint.HttpApiEndpoint.Payload<
    HttpApiEndpoint.HttpApiEndpoint.WithName<HttpApiGroup.HttpApiGroup.Endpoints<typeof AgentGroup>, Name>
  >
