/**
 * `POST /api/v1/platforms/<platform>` (one endpoint per platform) and `GET /api/v1/balance`: each handler calls one
 * domain service. An op call with `Idempotency-Key` runs through the Idempotency service (D16) and a replay says
 * `Idempotent-Replayed: true`.
 *
 * The body is decoded by the contract: the platform endpoint's payload Schema (`Requests.payload`, the one the document
 * and the clients are derived from) decides, in the call (`Calls` → `Requests.decode`), then the op's request Schema.
 * The handler is raw because that decode comes after what the framework would put behind it: the media type and body
 * limits (413, 415), the `Cache-Control` and `Prefer` headers (400 naming the header), the key's idempotency claim (a
 * refused body is an answer kept under its key and replayed, another body under the key is 422: D16), and a long
 * call's record (its 202 and call id come before it runs).
 */

import { HttpApiBuilder, HttpApiError, type HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Calls, Catalogue, Envelope, type Keys, LongCalls, Spans } from "@pdr/domain"
import { Api, Failure, Security } from "@pdr/http-api"
import { Context, Deferred, Duration, Effect, Layer, Option, ParseResult, Tracer } from "effect"
import * as RequestId from "../RequestId.js"
import { engineVersion } from "../Version.js"
import * as ApiErrors from "./ApiErrors.js"
import * as Authentication from "./Authentication.js"
import * as Body from "./Body.js"
import * as CallRunner from "./CallRunner.js"
import * as Fallback from "./Fallback.js"

const jsonType = /^application\/([\w.+-]+\+)?json\s*(;|$)/i

const versions = { contextVersion: Api.contextVersion, engineVersion }

/** The response of an outcome: a 200 as its text, an error as its D5 failure (rendered like any other). */
const respond = (o: CallRunner.Outcome, headers: Record<string, string>) =>
  Effect.suspend(() => {
    // the answer as it is (text or UTF-8): node writes it after the headers (`text` would encode a text answer to a
    // new Uint8Array in JavaScript first, ~7 KB of heap per stored call; issue 22)
    if (o.status === 200)
      return Effect.as(
        RequestId.addHeaders(headers),
        HttpServerResponse.raw(o.body, {
          contentType: "application/json",
          contentLength: typeof o.body === "string" ? Buffer.byteLength(o.body) : o.body.length
        })
      )
    const body = JSON.parse(CallRunner.textOf(o)) as Failure.Body
    const failure = Failure.fromBody(body)
    const wait = o.status === 502 ? retryAfterOf(body) : undefined
    return Effect.zipRight(
      RequestId.addHeaders(wait === undefined ? headers : { ...headers, "retry-after": String(wait) }),
      failure === undefined ? Effect.succeed(ApiErrors.response(o.status, body.error)) : Effect.fail(failure)
    )
  }).pipe(Spans.traced("OpsHttp.answer"))

/**
 * A 502's `Retry-After`: the longest `retryAfterSeconds` of its units (those refused by an open circuit), when any
 * has one; retried then, every unit's host is tried again.
 */
const retryAfterOf = (body: Failure.Body): number | undefined => {
  const coverage = (body.error as { readonly details?: { readonly coverage?: unknown } }).details?.coverage
  if (!Array.isArray(coverage)) return undefined
  let wait: number | undefined
  for (const c of coverage) {
    const s = (c as { readonly retryAfterSeconds?: unknown } | null)?.retryAfterSeconds
    if (typeof s === "number" && (wait === undefined || s > wait)) wait = s
  }
  return wait
}

const isObject = (u: unknown): u is Readonly<Record<string, unknown>> =>
  typeof u === "object" && u !== null && !Array.isArray(u)

/**
 * The envelope's freshness controls from `Cache-Control` (issue 21): `no-cache` is `forceFresh: true`, `max-age=N` is
 * `maxAgeSeconds: N` (the shorter of it and the body's). A malformed header is a 400 naming it.
 */
const withCacheControl = (payload: unknown, header: string | undefined) =>
  header === undefined ? Effect.succeed(payload) : withCacheControlHeader(payload, header)

const withCacheControlHeader = (payload: unknown, header: string) =>
  Effect.gen(function* () {
    const asked = Envelope.fromCacheControl(header)
    if ("problem" in asked)
      return yield* ApiErrors.fail("invalid_request", `invalid Cache-Control: ${asked.problem}`, [
        { path: "Cache-Control", message: asked.problem }
      ])
    if (!isObject(payload)) return payload
    if (asked.forceFresh === undefined && asked.maxAgeSeconds === undefined) return payload
    const body = payload
    const out: Record<string, unknown> = { ...body }
    if (asked.forceFresh === true && body["forceFresh"] === undefined) out["forceFresh"] = true
    if (asked.maxAgeSeconds !== undefined) {
      const own = body["maxAgeSeconds"]
      out["maxAgeSeconds"] = typeof own === "number" ? Math.min(own, asked.maxAgeSeconds) : (own ?? asked.maxAgeSeconds)
    }
    return out
  })

/** The handler of a call to a platform: the body is read and parsed here (Body), after the media type is checked. */
const platformCall = Effect.gen(function* () {
  const runner = yield* CallRunner.CallRunner

  /** A synchronous call, as before; its answer is recorded under its call id after it is sent. */
  const syncCall = (
    caller: Keys.Caller,
    platform: string,
    payload: unknown,
    key: string | undefined,
    state: RequestId.State
  ) => {
    const callId = `call_${RequestId.make().slice(4)}`
    return Effect.flatMap(runner.outcome(caller, platform, payload, key, { requestId: state.id, callId }), (o) => {
      const replayedId = o.replayed ? (callIdOf(o.body) ?? callId) : callId
      const answer = respond(o, {
        "call-id": replayedId,
        ...(o.replayed
          ? {
              "idempotent-replayed": "true",
              ...(o.originalRequestId === undefined ? {} : { "x-request-id": o.originalRequestId })
            }
          : {})
      })
      return o.replayed
        ? answer
        : Effect.zipRight(runner.recordSync(caller, platform, payload, callId, state.id, o), answer)
    })
  }

  /** A long call (RFC 7240): answered when done within the wait, else 202 with where to collect it. */
  const longCall = (
    caller: Keys.Caller,
    platform: string,
    payload: unknown,
    key: string | undefined,
    state: RequestId.State,
    preference: { readonly waitMs: number }
  ) =>
    Effect.gen(function* () {
      const started = yield* runner.startLong(caller, platform, payload, key)
      const done = yield* Deferred.await(started.planned).pipe(
        Effect.zipRight(Effect.sleep(Duration.millis(preference.waitMs))),
        // answered, or this process's attempt stopped (its lease lost, or the process stopping): the call goes on elsewhere
        Effect.raceFirst(Deferred.await(started.ended)),
        Effect.zipRight(Deferred.poll(started.done)),
        Effect.flatMap((polled) => (Option.isSome(polled) ? Effect.asSome(polled.value) : Effect.succeedNone))
      )
      if (Option.isSome(done)) {
        const o = done.value
        return yield* respond(o, {
          "call-id": o.replayed ? (callIdOf(o.body) ?? started.id) : started.id,
          ...(o.replayed ? { "idempotent-replayed": "true" } : {})
        })
      }
      yield* RequestId.addHeaders({
        "call-id": started.id,
        location: `/api/v1/calls/${started.id}`,
        "retry-after": String(retryAfter(started.progress)),
        "preference-applied": "respond-async"
      })
      return HttpServerResponse.unsafeJson(CallRunner.progressBody(started.id, started.progress, state.id, false), {
        status: 202
      })
    })

  // (issue 22: a chain rather than a generator: every op call passes here)
  return (caller: Keys.Caller, platform: string, request: HttpServerRequest.HttpServerRequest) => {
    const contentType = request.headers["content-type"]
    if (contentType !== undefined && !jsonType.test(contentType)) {
      return ApiErrors.fail("unsupported_media_type", `the body must be application/json, not ${contentType}`)
    }
    const parsed = Body.json(request).pipe(
      Effect.catchTag("RequestError", () =>
        ApiErrors.fail("invalid_request", ApiErrors.notJson.message, ApiErrors.notJson.details)
      )
    )
    return Effect.flatMap(parsed, (body) =>
      Effect.flatMap(withCacheControl(body, request.headers["cache-control"]), (payload) => {
        const preference = LongCalls.preference(request.headers["prefer"])
        if ("problem" in preference)
          return ApiErrors.fail("invalid_request", `invalid Prefer: ${preference.problem}`, [
            { path: "Prefer", message: preference.problem }
          ])
        const key = request.headers["idempotency-key"]
        return Effect.withFiberRuntime<HttpServerResponse.HttpServerResponse, Failure.Failure>((fiber) => {
          const state = fiber.getFiberRef(RequestId.current)
          return preference.async
            ? longCall(caller, platform, payload, key, state, preference)
            : syncCall(caller, platform, payload, key, state)
        })
      })
    )
  }
})

/** The call id a kept answer carries (an idempotent replay is the original call): its first `"callId":"call_..."`. */
const callIdOf = (body: string | Buffer): string | undefined => {
  const at = body.indexOf('"callId":"call_')
  if (at < 0) return undefined
  const m = /^"callId":"(call_[0-9a-f]+)"/.exec(
    typeof body === "string" ? body.slice(at, at + 64) : body.toString("latin1", at, at + 64)
  )
  return m?.[1]
}

/** When to come back: a second while few units are done, more for a call with many left. */
export const retryAfter = (p: LongCalls.Progress) =>
  p.unitsTotal === null ? 1 : Math.min(10, Math.max(1, Math.ceil((p.unitsTotal - p.unitsDone) / 10)))

/**
 * The handlers builder as the loop below sees it: the endpoint names come from the catalogue at run time, which the
 * builder's types cannot follow (the contract's tests check that every platform has its endpoint).
 */
type AnyHandlers = {
  readonly handleRaw: (
    name: string,
    handler: (args: { readonly request: HttpServerRequest.HttpServerRequest }) => unknown
  ) => AnyHandlers
}

/** The platforms group: one raw handler per platform of the catalogue, each the same call with its platform. */
export const platformsLayer = HttpApiBuilder.group(Api.Api, "platforms", (handlers) =>
  Effect.map(
    platformCall,
    (call) =>
      Catalogue.platforms.reduce(
        (h, p) =>
          h.handleRaw(p.id, ({ request }) => Effect.flatMap(Security.CurrentCaller, (c) => call(c, p.id, request))),
        handlers as unknown as AnyHandlers
      ) as unknown as HttpApiBuilder.Handlers<never, never, never>
  )
)

/** A path under /api/v1/platforms/ that is no platform: the domain answers it (404 `unknown_platform`). */
export const unknownPlatformLayer = HttpApiBuilder.group(Api.Served, "unknownPlatform", (handlers) =>
  Effect.map(platformCall, (call) =>
    handlers.handleRaw("call", ({ path, request }) =>
      Effect.flatMap(Security.CurrentCaller, (c) => call(c, path.platform, request))
    )
  )
)

/**
 * The route the framework's router would take for a request, when this module serves it without the router (issue
 * 22): `POST /api/v1/platforms/<segment>` with a plain lowercase segment and nothing after it but a query. Any other
 * path (a trailing or doubled slash, upper case, an escape, `;`) goes through the router as before, so every answer
 * stays the router's: a platform's own route, else the unknown platform's (`:platform`, the segment as it is).
 */
const platformPrefix = "/api/v1/platforms/"
const plainSegment = /^[a-z0-9_-]{1,64}$/
const byLowerId = new Map(Catalogue.platforms.map((p) => [p.id.toLowerCase(), p.id]))

export const routeOf = (
  method: string,
  url: string
): { readonly platform: string; readonly path: string } | undefined => {
  if (method !== "POST" || !url.startsWith(platformPrefix)) return undefined
  const q = url.indexOf("?", platformPrefix.length)
  const segment = url.slice(platformPrefix.length, q === -1 ? undefined : q)
  if (!plainSegment.test(segment)) return undefined
  const id = byLowerId.get(segment)
  return id === undefined
    ? { platform: segment, path: `${platformPrefix}:platform` }
    : { platform: id, path: `${platformPrefix}${id}` }
}

/**
 * An op call served beside the framework's router (issue 22): the router, the group handler and the middleware of
 * HttpApiBuilder copy the request fiber's context (~35 services) three times per request (the route's context, the
 * handler's `Context.merge` of its build context, the `provideServiceEffect` of the caller) and decode the three call
 * headers with a Schema that cannot fail. Here the same steps run without them, in the same order: the Authentication
 * middleware's own effect (its errors, headers and rate limit), then the same handler with the caller it gives, the
 * handler interruptible (the router's own) and its Schema failures refailed as the router does. The Fallback middleware
 * around it (request id, prechecks, metrics, the log line, the span, the D5 rendering) is the one every request has.
 * `undefined` for a request it does not serve (the router serves it).
 */
export const routeLayer = Layer.effect(
  Fallback.BesideRouter,
  Effect.gen(function* () {
    const call = yield* platformCall
    // the middleware's effect, as HttpApiBuilder applies it, given the request (it is not in the fiber's context when
    // the call is answered from node's `request` event: Fallback.fastLayer)
    const authenticate = yield* Authentication.Authenticate
    return (request) => {
      const route = routeOf(request.method, request.url)
      if (route === undefined) return undefined
      return Effect.interruptible(
        Effect.withFiberRuntime<HttpServerResponse.HttpServerResponse, unknown>((fiber) => {
          // what the router does with a traced request: the route's template on the request's span
          const span = Context.getOption(fiber.currentContext, Tracer.ParentSpan)
          if (span._tag === "Some" && span.value._tag === "Span") span.value.attribute("http.route", route.path)
          return Effect.flatMap(authenticate(request), (caller) =>
            Effect.catchIf(
              call(caller, route.platform, request),
              ParseResult.isParseError,
              HttpApiError.HttpApiDecodeError.refailParseError
            )
          )
        })
      )
    }
  })
)

/** The account group: the balance (D7). */
export const accountLayer = HttpApiBuilder.group(Api.Api, "account", (handlers) =>
  Effect.map(Calls.Calls, (calls) =>
    handlers.handle("balance", () =>
      Effect.gen(function* () {
        const caller = yield* Security.CurrentCaller
        return { creditsRemaining: yield* calls.balance(caller), ...versions }
      })
    )
  )
)

/** Every handler of op calls and the balance. */
export const layer = Layer.mergeAll(platformsLayer, unknownPlatformLayer, accountLayer)
