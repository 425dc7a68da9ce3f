/**
 * `GET /metrics` on the operator listener (issue 25): every metric in the Prometheus text format (version 0.0.4),
 * behind the operator token like the rest of the operator API (a missing or wrong token: 401, nothing read). The
 * store-backed gauges (holds, refresh pass and queue) are read just before the text is written.
 */
import { createHash, timingSafeEqual } from "node:crypto"
import { HttpApiBuilder, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Health, Telemetry } from "@pdr/core"
import { Failure } from "@pdr/http-api"
import { Effect, FiberRef, Redacted } from "effect"
import * as ApiErrors from "../http/ApiErrors.js"
import * as RequestId from "../RequestId.js"
import * as OperatorToken from "./OperatorToken.js"

const digest = (s: string) => createHash("sha256").update(s).digest()

/** The Prometheus text exposition format's content type. */
export const contentType = "text/plain; version=0.0.4; charset=utf-8"

/** Mounts `/metrics` on the operator API's router. */
export const layer = (token: Redacted.Redacted<string>) =>
  HttpApiBuilder.Router.use((router) =>
    Effect.gen(function* () {
      const expected = digest(Redacted.value(token))
      const prometheus = yield* Telemetry.Prometheus
      const context = yield* Effect.context<Health.GaugeSource>()
      yield* router.get(
        "/metrics",
        Effect.gen(function* () {
          const request = yield* HttpServerRequest.HttpServerRequest
          const match = /^Bearer (\S+)$/.exec(request.headers["authorization"] ?? "")
          if (match === null || !timingSafeEqual(digest(match[1]!), expected))
            return ApiErrors.render(
              Failure.make("unauthorized", OperatorToken.required, (yield* FiberRef.get(RequestId.current)).id)
            )
          yield* Effect.provide(Health.readGauges, context)
          return HttpServerResponse.text(yield* prometheus.scrape, { contentType })
        })
      )
    })
  )
