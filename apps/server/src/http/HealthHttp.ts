/**
 * `GET /healthz` and `GET /readyz` (issue 25), without a key, on the listener they are mounted on: `/healthz` answers
 * 200 while the process serves; `/readyz` 200 when the database answers, its migrations are current and the upstream
 * router is built, else 503 with the reason, and 503 from the start of shutdown (Health.make).
 */
import { HttpApiBuilder } from "@effect/platform"
import { Health } from "@pdr/core"
import { Context, Effect, Layer } from "effect"

/** The readiness of this process. */
export class Readiness extends Context.Tag("@pdr/server/Readiness")<Readiness, Health.Readiness>() {}

/** Readiness over the SqlClient and the Upstream router in context. */
export const readinessLayer = Layer.effect(Readiness, Health.make())

/** The probes mounted on the public API's router. */
export const layer = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function* () {
    const readiness = yield* Readiness
    yield* router.concat(Health.routes(readiness))
  })
)
