/**
 * `GET /healthz` and `GET /readyz` (issue 25), without a key, on the listener they are mounted on: `/healthz` answers
 * 200 while the process serves; `/readyz` 200 when the database answers, its migrations are current and the upstream
 * router is built, else 503 with the reason, and 503 from the start of shutdown (Health.make).
 */
import { HttpApiBuilder, HttpRouter, HttpServerResponse } from "@effect/platform"
import { Health } from "@pdr/core"
import { Context, Effect, Layer } from "effect"

/** The readiness of this process. */
export class Readiness extends Context.Tag("@pdr/server/Readiness")<Readiness, Health.Readiness>() {}

/** Readiness over the SqlClient and the Upstream router in context. */
export const readinessLayer = Layer.effect(Readiness, Health.make())

const noStore = { "cache-control": "no-store" }

/** The two probes as routes of a router. */
export const routes = (readiness: Health.Readiness) =>
  HttpRouter.empty.pipe(
    HttpRouter.get("/healthz", HttpServerResponse.unsafeJson({ status: "ok" }, { headers: noStore })),
    HttpRouter.get(
      "/readyz",
      Effect.map(readiness.check, (v) =>
        HttpServerResponse.unsafeJson(
          {
            status: v.ready ? "ready" : "not_ready",
            ...(v.reason === undefined ? {} : { reason: v.reason }),
            checks: v.checks
          },
          { status: v.ready ? 200 : 503, headers: noStore }
        )
      )
    )
  )

/** The probes mounted on the public API's router. */
export const layer = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function* () {
    const readiness = yield* Readiness
    yield* router.concat(routes(readiness))
  })
)
