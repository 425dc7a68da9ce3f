/** Wires the domain and the adapters into the public HTTP API and the operator API. */

import { createServer } from "node:http"
import { HttpApiBuilder, HttpApiSwagger, HttpMiddleware, HttpServer } from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import { Core, Telemetry } from "@pdr/core"
import { Audit, CallStore, IdempotencyStore, JobQueue, Keys, Ledger, LongCalls, LowBalance, Members } from "@pdr/domain"
import { Document } from "@pdr/http-api"
import { NodePasswordHasher, PgAccountSettings, PgAuditLog, PgMemberStore, PgUsageReports } from "@pdr/store-pg"
import { Context, DateTime, Duration, Effect, Layer, Option, type Redacted, Schedule } from "effect"
import * as AdminHttp from "./admin/AdminHttp.js"
import * as CommonPasswordList from "./dashboard/CommonPasswordList.js"
import * as DashboardHttp from "./dashboard/DashboardHttp.js"
import * as Authentication from "./http/Authentication.js"
import * as CallRunner from "./http/CallRunner.js"
import * as CallsHttp from "./http/CallsHttp.js"
import * as CatalogueHttp from "./http/CatalogueHttp.js"
import * as Discovery from "./http/Discovery.js"
import * as Fallback from "./http/Fallback.js"
import * as HealthHttp from "./http/HealthHttp.js"
import * as McpHttp from "./http/McpHttp.js"
import * as Observability from "./http/Observability.js"
import * as OpsHttp from "./http/OpsHttp.js"
import * as SmtpMailer from "./mail/SmtpMailer.js"
import { engineVersion } from "./Version.js"

/** What a server instance needs to know: its listeners and the core's options. */
export interface Options extends Core.Options {
  readonly port: number
  readonly host: string
  readonly adminPort: number
  readonly adminHost: string
  readonly adminToken: Redacted.Redacted<string>
  readonly sweepEveryMs?: number
  /** A long call's lease (issue 21, CALL_LEASE_MS); heartbeats come every third of it. */
  readonly callLeaseMs?: number
  /** Slow and idle clients: timeouts of both listeners (`listenerTimeouts` when absent). */
  readonly timeouts?: ListenerTimeouts
  /** The dashboard (D20): session lifetimes, the scrypt cost (tests lower it), Secure cookies behind a TLS proxy. */
  readonly dashboard?: {
    readonly secureCookies?: boolean
    readonly idleTimeoutMs?: number
    readonly absoluteTimeoutMs?: number
    readonly scryptLogN?: number
  }
  /** Issue 25: where traces and logs go (no traces, logs as they are when absent: tests). */
  readonly telemetry?: Telemetry.Settings
  /** One log line per request (request id, key id, route, status, duration, credits); off when absent. */
  readonly logRequests?: boolean
  /** Origins besides loopback's and PUBLIC_URL's that may call `/mcp` from a browser (MCP_ALLOWED_ORIGINS). */
  readonly mcpAllowedOrigins?: ReadonlyArray<string>
  /** How long /readyz answers 503 at shutdown before the listeners stop accepting (0 when absent). */
  readonly drainMs?: number
  /** Email through SMTP (issue 24); without it, invitation and reset links are shown to copy. */
  readonly mail?: SmtpMailer.Options | undefined
}

/** How long a client may take to send its headers, its whole request, and how long an idle keep-alive lasts. */
export interface ListenerTimeouts {
  readonly headersMs: number
  readonly requestMs: number
  readonly keepAliveMs: number
}

/**
 * The listeners' timeouts by default: headers and request well under node's (60 s, 300 s); keep-alive at node's 5 s
 * (at 4 s, fetch clients under load reused connections the server was closing: resets in the 1,000-call test).
 */
export const listenerTimeouts: ListenerTimeouts = { headersMs: 20_000, requestMs: 60_000, keepAliveMs: 5_000 }

/** The domain services: the one core wiring (packages/core), shared with the runner and the tests, and the dashboard's members (D20). */
export const services = (options: Options) =>
  Layer.mergeAll(Members.Members.Default, Audit.Audit.Default, LowBalance.LowBalance.Default).pipe(
    Layer.provideMerge(
      Layer.mergeAll(
        PgMemberStore.layer,
        PgUsageReports.layer,
        PgAuditLog.layer,
        PgAccountSettings.layer,
        CommonPasswordList.layer,
        SmtpMailer.layer(options.mail),
        NodePasswordHasher.layer({
          ...NodePasswordHasher.owasp,
          ...(options.dashboard?.scryptLogN === undefined ? {} : { logN: options.dashboard.scryptLogN })
        }),
        Layer.succeed(Members.MemberSettings, {
          ...Members.MemberSettings.defaultValue(),
          ...(options.dashboard?.idleTimeoutMs === undefined
            ? {}
            : { idleTimeout: Duration.millis(options.dashboard.idleTimeoutMs) }),
          ...(options.dashboard?.absoluteTimeoutMs === undefined
            ? {}
            : { absoluteTimeout: Duration.millis(options.dashboard.absoluteTimeoutMs) })
        })
      )
    ),
    Layer.provideMerge(CallRunner.CallRunner.Default.pipe(Layer.provide(leaseLayer(options.callLeaseMs ?? 15_000)))),
    Layer.provideMerge(
      Core.layer({ ...options, tracing: Option.isSome((options.telemetry ?? Telemetry.testing).tracesUrl) })
    )
  )

/** The lease timing of long calls: a heartbeat every third of the lease, a look for calls to take over every second. */
const leaseLayer = (leaseMs: number) =>
  Layer.succeed(CallRunner.LeaseConfig, {
    leaseMs,
    heartbeatMs: Math.max(50, Math.floor(leaseMs / 3)),
    // a call given back by a process that stopped cleanly is taken over within a second
    claimEveryMs: Math.max(50, Math.min(1000, Math.floor(leaseMs / 3)))
  })

const apiLive = (options: Options) =>
  HttpApiBuilder.api(Document.api(engineVersion)).pipe(
    Layer.provide([
      CatalogueHttp.layer,
      OpsHttp.layer,
      CallsHttp.layer,
      DashboardHttp.layer({ secureCookies: options.dashboard?.secureCookies ?? false })
    ]),
    Layer.provide(Authentication.layer)
  )

/**
 * The public API, the dashboard (D20) and the MCP server at `/mcp`, on the HttpServer it is given; with a slot, the
 * handler of the op calls the listener answers from node's `request` event (issue 22: Fallback.fastLayer).
 */
export const publicHttp = (options: Options, fast?: Fallback.FastSlot) =>
  (fast === undefined ? HttpApiBuilder.serve() : Layer.merge(HttpApiBuilder.serve(), Fallback.fastLayer(fast))).pipe(
    Layer.provide(HttpApiSwagger.layer({ path: "/docs" })),
    Layer.provide(
      McpHttp.layer(
        Effect.suspend(() => urlOf),
        { allowedOrigins: options.mcpAllowedOrigins ?? [] }
      )
    ),
    Layer.provide(Discovery.layer),
    Layer.provide(HttpApiBuilder.middlewareOpenApi({ path: "/openapi.json" })),
    Layer.provide(HealthHttp.layer),
    Layer.provide(Fallback.layer),
    Layer.provide(OpsHttp.routeLayer.pipe(Layer.provide(Authentication.layer))),
    Layer.provide(
      Observability.layer(Document.api(engineVersion), {
        log: options.logRequests ?? false,
        metrics: options.observe !== false,
        tracing: Option.isSome((options.telemetry ?? Telemetry.testing).tracesUrl),
        extra: [
          "/healthz",
          "/readyz",
          "/mcp",
          "/docs",
          "/openapi.json",
          Discovery.metadataPath(""),
          Discovery.metadataPath("/mcp")
        ]
      })
    ),
    Layer.provide(apiLive(options)),
    HttpMiddleware.withTracerDisabledWhen(() => true)
  )

/** The operator API on the HttpServer it is given. */
export const adminHttp = (token: Redacted.Redacted<string>) =>
  // no span of the framework's own: its attributes would carry the path (account and key ids) (issue 25)
  AdminHttp.layer(token).pipe(HttpMiddleware.withTracerDisabledWhen(() => true))

/** Background work: the hold sweep (D8), expired idempotency records (D16), call records and their ended jobs (issue 21), the flush of key call counts (D6). */
export const background = (sweepEveryMs: number) =>
  Layer.scopedDiscard(
    Effect.gen(function* () {
      const ledger = yield* Ledger.Ledger
      const keys = yield* Keys.Keys
      const idempotency = yield* IdempotencyStore.IdempotencyStore
      const callStore = yield* CallStore.CallStore
      const jobs = yield* JobQueue.JobQueue
      const sweep = Effect.flatMap(DateTime.now, (now) =>
        Effect.zipLeft(
          ledger.releaseExpired(DateTime.toDate(now)),
          Effect.all([
            idempotency.purgeExpired(DateTime.toDate(now)),
            callStore.purgeExpired(DateTime.toDate(now)),
            // a long call's ended job is of no use once its record is gone
            jobs.cleanup(
              LongCalls.queue,
              new Date(DateTime.toEpochMillis(now) - Duration.toMillis(LongCalls.retention))
            )
          ])
        )
      ).pipe(Effect.tap((n) => (n > 0 ? Effect.logInfo(`released ${n} expired holds`) : Effect.void)))
      yield* Effect.forkScoped(
        Effect.repeat(Effect.ignoreLogged(sweep), Schedule.spaced(Duration.millis(sweepEveryMs)))
      )
      yield* Effect.forkScoped(
        Effect.repeat(Effect.ignoreLogged(keys.flushUsage()), Schedule.spaced(Duration.seconds(2)))
      )
      yield* Effect.addFinalizer(() => Effect.ignore(keys.flushUsage()))
      // the audit log keeps a year (issue 24): older entries go once a day
      const audit = yield* Audit.Audit
      yield* Effect.forkScoped(
        Effect.repeat(Effect.ignoreLogged(audit.purgeExpired()), Schedule.spaced(Duration.hours(24)))
      )
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
const closingServer = (timeouts: ListenerTimeouts, fast?: Fallback.FastSlot) => () => {
  const server = createServer({
    headersTimeout: timeouts.headersMs,
    requestTimeout: Math.max(timeouts.requestMs, timeouts.headersMs),
    keepAliveTimeout: timeouts.keepAliveMs,
    // how often node checks the two timeouts above (its default, 30 s, would let them run that much over)
    connectionsCheckingInterval: Math.max(50, Math.min(1_000, Math.floor(timeouts.headersMs / 4)))
  })
  // Expect: 100-continue with a body over the limit: an immediate 413, not 100 Continue
  server.on("checkContinue", Fallback.checkContinue(server))
  // the op calls answered from node's `request` event, before platform-node's handler (issue 22)
  if (fast !== undefined) Fallback.withFastPath(server, fast)
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

/**
 * Connections the public listener lets the kernel queue before it accepts them (Node's default is 511; the kernel
 * caps it at net.core.somaxconn). A burst of new connections (1,000 clients at once, a balancer's pool refilling)
 * past 511 overflowed the queue on a busy machine: thousands of dropped handshakes per burst, and a client's
 * connection reset now and then (the D8 race of 1,000 calls failed so in a CI run of stop 40).
 */
const listenBacklog = 4096

/** Both listeners and the background work, over the services. */
export const layer = (options: Options) => {
  const listener = closingServer(options.timeouts ?? listenerTimeouts)
  const fast: Fallback.FastSlot = { handler: undefined }
  const publicListener = closingServer(options.timeouts ?? listenerTimeouts, fast)
  // built after the listeners, so its finalizer runs first: /readyz turns 503, then (after drainMs) they close
  const drain = Layer.scopedDiscard(
    Effect.flatMap(HealthHttp.Readiness, (readiness) =>
      Effect.addFinalizer(() => Effect.zipRight(readiness.drain, Effect.sleep(Duration.millis(options.drainMs ?? 0))))
    )
  )
  return drain.pipe(
    Layer.provideMerge(
      Layer.mergeAll(
        Layer.merge(publicHttp(options, fast).pipe(HttpServer.withLogAddress), Layer.effect(PublicUrl, urlOf)).pipe(
          Layer.provide(
            NodeHttpServer.layer(publicListener, { port: options.port, host: options.host, backlog: listenBacklog })
          )
        ),
        Layer.merge(adminHttp(options.adminToken), Layer.effect(AdminUrl, urlOf)).pipe(
          Layer.provide(NodeHttpServer.layer(listener, { port: options.adminPort, host: options.adminHost }))
        ),
        background(options.sweepEveryMs ?? 15_000)
      )
    ),
    Layer.provideMerge(HealthHttp.readinessLayer),
    Layer.provideMerge(services(options)),
    Layer.provideMerge(Telemetry.layer(options.telemetry ?? Telemetry.testing))
  )
}
