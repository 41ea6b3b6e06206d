import * as HttpLayerRouter from "@effect/platform/HttpLayerRouter"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/** `GET /health`: 200 when the database answers within two seconds, else 503. */
export const HealthRoute = HttpLayerRouter.use((router) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const check = sql`SELECT 1`.pipe(
      Effect.timeout("2 seconds"),
      Effect.match({
        onSuccess: () => HttpServerResponse.unsafeJson({ status: "ok", database: "ok" }),
        onFailure: () => HttpServerResponse.unsafeJson({ status: "error", database: "unreachable" }, { status: 503 })
      })
    )
    yield* router.add("GET", "/health", check)
  })
)
