/** Wires the domain and the adapters into the public HTTP API and the operator API. */

import { createServer } from "node:http"
import { HttpApiBuilder, HttpApiSwagger, HttpMiddleware, HttpServer } from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import { Accounts, Calls, Idempotency, IdempotencyStore, Keys, Ledger, RateLimits } from "@pdr/domain"
import { Document } from "@pdr/http-api"
import { Database, NodeCrypto, PgIdempotencyStore, PgKeyStore, PgLedger, PgMeasurements } from "@pdr/store-pg"
import { SyntheticUpstream } from "@pdr/upstream-synthetic"
import { Context, DateTime, Duration, Effect, Layer, type Redacted, Schedule } from "effect"
import * as AdminHttp from "./admin/AdminHttp.js"
import * as Authentication from "./http/Authentication.js"
import * as CatalogueHttp from "./http/CatalogueHttp.js"
import * as Fallback from "./http/Fallback.js"
import * as OpsHttp from "./http/OpsHttp.js"
import { engineVersion } from "./Version.js"

/** What a server instance needs to know. */
export interface Options {
  readonly port: number
  readonly host: string
  readonly adminPort: number
  readonly adminHost: string
  readonly adminToken: Redacted.Redacted<string>
  readonly target: Database.Target
  readonly knobs: SyntheticUpstream.Knobs
  readonly rateLimit?: { readonly perSecond: number; readonly burst: number }
  readonly authFailureLimit?: { readonly perSecond: number; readonly burst: number }
  readonly holdTtlMs?: number
  readonly unitTimeoutMs?: number
  readonly sweepEveryMs?: number
}

/** The domain services on the Postgres store, the synthetic upstream and node's crypto. */
export const services = (options: Options) =>
  Layer.mergeAll(
    Calls.Calls.Default,
    Keys.Keys.Default,
    Accounts.Accounts.Default,
    Idempotency.Idempotency.Default
  ).pipe(
    Layer.provideMerge(
      Layer.mergeAll(
        PgLedger.layer,
        PgKeyStore.layer,
        PgMeasurements.layerCached(),
        PgIdempotencyStore.layer,
        NodeCrypto.layer,
        SyntheticUpstream.layer(options.knobs),
        Layer.succeed(
          RateLimits.RateLimits,
          RateLimits.RateLimits.make(
            { name: "default", ...(options.rateLimit ?? RateLimits.RateLimits.defaults.perKey) },
            { name: "auth", ...(options.authFailureLimit ?? RateLimits.RateLimits.defaults.failedAuth) }
          )
        ),
        Layer.succeed(Calls.CallSettings, {
          ...Calls.CallSettings.defaultValue(),
          ...(options.holdTtlMs === undefined ? {} : { holdTtl: Duration.millis(options.holdTtlMs) }),
          ...(options.unitTimeoutMs === undefined ? {} : { unitTimeout: Duration.millis(options.unitTimeoutMs) })
        })
      )
    ),
    Layer.provideMerge(Database.layer(options.target))
  )

const ApiLive = HttpApiBuilder.api(Document.api(engineVersion)).pipe(
  Layer.provide([CatalogueHttp.layer, OpsHttp.layer]),
  Layer.provide(Authentication.layer)
)

/** The public API on the HttpServer it is given. */
export const publicHttp = HttpApiBuilder.serve().pipe(
  Layer.provide(HttpApiSwagger.layer({ path: "/docs" })),
  Layer.provide(HttpApiBuilder.middlewareOpenApi({ path: "/openapi.json" })),
  Layer.provide(Fallback.layer),
  Layer.provide(ApiLive),
  HttpMiddleware.withTracerDisabledWhen(() => true)
)

/** The operator API on the HttpServer it is given. */
export const adminHttp = (token: Redacted.Redacted<string>) => AdminHttp.layer(token)

/** Background work: the hold sweep (D8), expired idempotency records (D16), the flush of key call counts (D6). */
export const background = (sweepEveryMs: number) =>
  Layer.scopedDiscard(
    Effect.gen(function* () {
      const ledger = yield* Ledger.Ledger
      const keys = yield* Keys.Keys
      const idempotency = yield* IdempotencyStore.IdempotencyStore
      const sweep = Effect.flatMap(DateTime.now, (now) =>
        Effect.zipLeft(ledger.releaseExpired(DateTime.toDate(now)), idempotency.purgeExpired(DateTime.toDate(now)))
      ).pipe(Effect.tap((n) => (n > 0 ? Effect.logInfo(`released ${n} expired holds`) : Effect.void)))
      yield* Effect.forkScoped(
        Effect.repeat(Effect.ignoreLogged(sweep), Schedule.spaced(Duration.millis(sweepEveryMs)))
      )
      yield* Effect.forkScoped(
        Effect.repeat(Effect.ignoreLogged(keys.flushUsage()), Schedule.spaced(Duration.seconds(2)))
      )
      yield* Effect.addFinalizer(() => Effect.ignore(keys.flushUsage()))
    })
  )

/** The base URL the public API listens on (port 0 in tests picks a free one). */
export class PublicUrl extends Context.Tag("@pdr/server/PublicUrl")<PublicUrl, string>() {}

/** The base URL the operator API listens on. */
export class AdminUrl extends Context.Tag("@pdr/server/AdminUrl")<AdminUrl, string>() {}

const urlOf = Effect.map(HttpServer.HttpServer, (server) =>
  server.address._tag === "TcpAddress"
    ? `http://${server.address.hostname === "0.0.0.0" ? "127.0.0.1" : server.address.hostname}:${server.address.port}`
    : `unix:${server.address.path}`
)

/**
 * An http.Server whose close (on shutdown) also closes each keep-alive connection as soon as it is idle, so calls in
 * flight finish and the process exits without waiting for clients' idle connections to time out.
 */
const closingServer = () => {
  const server = createServer()
  const close = server.close.bind(server)
  server.close = ((callback?: (error?: Error) => void) => {
    close(callback)
    server.closeIdleConnections()
    const sweep = setInterval(() => server.closeIdleConnections(), 50)
    sweep.unref()
    server.once("close", () => clearInterval(sweep))
    return server
  }) as typeof server.close
  return server
}

/** Both listeners and the background work, over the services. */
export const layer = (options: Options) =>
  Layer.mergeAll(
    Layer.merge(publicHttp.pipe(HttpServer.withLogAddress), Layer.effect(PublicUrl, urlOf)).pipe(
      Layer.provide(NodeHttpServer.layer(closingServer, { port: options.port, host: options.host }))
    ),
    Layer.merge(adminHttp(options.adminToken), Layer.effect(AdminUrl, urlOf)).pipe(
      Layer.provide(NodeHttpServer.layer(closingServer, { port: options.adminPort, host: options.adminHost }))
    ),
    background(options.sweepEveryMs ?? 15_000)
  ).pipe(Layer.provideMerge(services(options)))
