/**
 * The runner's optional probe listener (issue 25, `HEALTH_PORT`): `/healthz`, `/readyz` (database, migrations,
 * upstream router; 503 from the start of shutdown) and, when `ADMIN_TOKEN` is set, `/metrics` behind it (the refresh
 * pass, the queue, the upstream policy's metrics of this runner) in the Prometheus text format.
 */
import { createHash, timingSafeEqual } from "node:crypto"
import { createServer } from "node:http"
import { HttpRouter, HttpServer, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import type { SqlClient } from "@effect/sql"
import { Health, Telemetry } from "@pdr/core"
import type { Upstream } from "@pdr/domain"
import { Config, Effect, Layer, Option, Redacted } from "effect"

/** HEALTH_PORT, HEALTH_HOST (default 0.0.0.0: probes come from the orchestrator) and ADMIN_TOKEN. */
export const settingsConfig = Config.all({
  port: Config.option(Config.port("HEALTH_PORT")),
  host: Config.string("HEALTH_HOST").pipe(Config.withDefault("0.0.0.0")),
  token: Config.option(Config.redacted("ADMIN_TOKEN"))
})

const digest = (s: string) => createHash("sha256").update(s).digest()

/** The listener, or nothing when HEALTH_PORT is unset. */
export const layer = (
  settings: Config.Config.Success<typeof settingsConfig>
): Layer.Layer<never, never, SqlClient.SqlClient | Upstream.Upstream | Telemetry.Prometheus> =>
  Option.match(settings.port, {
    onNone: () => Layer.empty,
    onSome: (port) =>
      Layer.unwrapScoped(
        Effect.gen(function* () {
          const readiness = yield* Health.make()
          yield* Effect.addFinalizer(() => readiness.drain)
          const prometheus = yield* Telemetry.Prometheus
          const context = yield* Effect.context<SqlClient.SqlClient>()
          const metrics = Option.match(settings.token, {
            onNone: () => HttpRouter.empty,
            onSome: (token) => {
              const expected = digest(Redacted.value(token))
              return HttpRouter.empty.pipe(
                HttpRouter.get(
                  "/metrics",
                  Effect.gen(function* () {
                    const request = yield* HttpServerRequest.HttpServerRequest
                    const match = /^Bearer (\S+)$/.exec(request.headers["authorization"] ?? "")
                    if (match === null || !timingSafeEqual(digest(match[1]!), expected))
                      return HttpServerResponse.unsafeJson({ error: { code: "unauthorized" } }, { status: 401 })
                    yield* Effect.provide(Health.readGauges, context)
                    return HttpServerResponse.text(yield* prometheus.scrape, {
                      contentType: "text/plain; version=0.0.4; charset=utf-8"
                    })
                  })
                )
              )
            }
          })
          return HttpServer.serve(HttpRouter.concat(Health.routes(readiness), metrics)).pipe(
            HttpServer.withLogAddress,
            Layer.provide(NodeHttpServer.layer(createServer, { port, host: settings.host }))
          )
        })
      ).pipe(Layer.orDie)
  })
