/**
 * Each request of a listener, observed (issue 25): its route template (bounded: a path of the contract, or `other`),
 * status and duration as metrics; one span for the whole request (the trace's root: authentication, plan, hold,
 * fetches, settle and the answer are its children) whose `pdr.request_id` attribute is the request id, so a log line
 * finds its trace; and one log line per request (`LOG_REQUESTS`): request id, trace id, key id (never the key), route,
 * status, duration, credits. Probes (`/healthz`, `/readyz`) are measured but not logged.
 */
import { HttpApi, type HttpServerRequest, type HttpServerResponse } from "@effect/platform"
import { Metrics, Telemetry } from "@pdr/core"
import { Context, Effect, FiberRef, HashMap, Layer, type Tracer } from "effect"
import type * as RequestId from "../RequestId.js"

interface Template {
  readonly method: string
  readonly path: string
  readonly segments: ReadonlyArray<string>
  readonly params: number
}

/** The route templates of an HttpApi, and a few mounted beside it. */
export const templatesOf = (api: HttpApi.HttpApi.Any, extra: ReadonlyArray<string> = []): ReadonlyArray<Template> => {
  const out: Array<Template> = []
  const add = (method: string, path: string) => {
    const segments = path.split("/").filter((s) => s.length > 0)
    out.push({ method, path, segments, params: segments.filter((s) => s.startsWith(":")).length })
  }
  HttpApi.reflect(api as HttpApi.HttpApi.AnyWithProps, {
    onGroup: () => {},
    onEndpoint: ({ endpoint }) => add(endpoint.method, endpoint.path)
  })
  for (const path of extra) add("*", path)
  // the most specific template wins: fewer parameters first
  return out.sort((a, b) => a.params - b.params)
}

/** A matcher from a request's method and path to its route template (`other` when none). */
export const routeMatcher = (templates: ReadonlyArray<Template>) => {
  const cache = new Map<string, string>()
  return (method: string, url: string): string => {
    const q = url.indexOf("?")
    const path = q === -1 ? url : url.slice(0, q)
    const id = `${method} ${path}`
    const known = cache.get(id)
    if (known !== undefined) return known
    const segments = path.split("/").filter((s) => s.length > 0)
    const found = templates.find(
      (t) =>
        (t.method === "*" || t.method === method) &&
        t.segments.length === segments.length &&
        t.segments.every((s, i) => s.startsWith(":") || s === segments[i])
    )
    const route = found === undefined ? "other" : found.path
    // only literal paths of the contract are kept (bounded); a parameterised one is matched again next time
    if (found !== undefined && found.params === 0 && cache.size < 10_000) cache.set(id, route)
    return route
  }
}

const probes = new Set(["/healthz", "/readyz"])

/** Observes one request answered by `app`. */
export const observe =
  (options: {
    readonly route: (method: string, url: string) => string
    readonly log: boolean
    readonly metrics: boolean
    /** Traces exported: then each request is a span (else the tracer is off and no span is made at all). */
    readonly tracing: boolean
  }) =>
  <E, R>(
    request: HttpServerRequest.HttpServerRequest,
    state: RequestId.State,
    app: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>
  ): Effect.Effect<HttpServerResponse.HttpServerResponse, E, R> => {
    // the request path is kept to a handful of synchronous steps (issue 25: metrics on within 3% of off): the clock is
    // read directly (it is only a duration), the metrics updated in place
    const started = performance.now()
    const route = options.route(request.method, request.url)
    const record = (response: HttpServerResponse.HttpServerResponse, span: Tracer.Span | undefined) => {
      const ms = performance.now() - started
      span?.attribute("http.response.status_code", response.status)
      if (options.metrics) Metrics.unsafeRecordRequest(route, request.method, response.status, ms / 1000)
      return ms
    }
    const finish = (response: HttpServerResponse.HttpServerResponse, span: Tracer.Span | undefined) => {
      const ms = record(response, span)
      if (!options.log || probes.has(route)) return Effect.succeed(response)
      // the line written at once when that is all the fiber's logging would do (Telemetry.infoLine; not with a span,
      // which Effect's tracer logger would give the line to)
      if (span === undefined)
        return Effect.withFiberRuntime<HttpServerResponse.HttpServerResponse, never, never>((fiber) => {
          const fields: Array<readonly [string, Telemetry.Plain]> = [["requestId", state.id]]
          if (state.keyId !== undefined) fields.push(["keyId", state.keyId])
          fields.push(["method", request.method], ["route", route], ["status", response.status])
          fields.push(["durationMs", Math.round(ms)])
          if (state.credits !== undefined) fields.push(["credits", state.credits])
          return Telemetry.infoLine(fiber as never, "request", fields)
            ? Effect.succeed(response)
            : logged(response, ms, span)
        })
      return logged(response, ms, span)
    }
    const logged = (response: HttpServerResponse.HttpServerResponse, ms: number, span: Tracer.Span | undefined) => {
      // the annotations are added to the request's own fiber, not around the line (`Effect.annotateLogs` is an
      // acquire-use-release and two fiber-ref writes): the line is the last thing the fiber logs (issue 22)
      return Effect.as(
        Effect.zipRight(
          // (in one mutable copy of the map, not one copy per field: issue 22)
          FiberRef.update(FiberRef.currentLogAnnotations, (annotations) =>
            HashMap.mutate(annotations, (map) => {
              HashMap.set(map, "requestId", state.id as unknown)
              if (span !== undefined) HashMap.set(map, "traceId", span.traceId as unknown)
              if (state.keyId !== undefined) HashMap.set(map, "keyId", state.keyId as unknown)
              HashMap.set(map, "method", request.method as unknown)
              HashMap.set(map, "route", route as unknown)
              HashMap.set(map, "status", response.status as unknown)
              HashMap.set(map, "durationMs", Math.round(ms) as unknown)
              if (state.credits !== undefined) HashMap.set(map, "credits", state.credits as unknown)
            })
          ),
          Effect.logInfo("request")
        ),
        response
      )
    }
    if (!options.tracing) return Effect.flatMap(app, (r) => finish(r, undefined))
    return Effect.useSpan(
      `${request.method} ${route}`,
      {
        kind: "server",
        captureStackTrace: false,
        attributes: { "http.request.method": request.method, "http.route": route, "pdr.request_id": state.id }
      },
      (span) => Effect.flatMap(Effect.withParentSpan(app, span), (r) => finish(r, span))
    )
  }

/** The observer of a listener's requests. */
export class Observer extends Context.Tag("@pdr/server/Observer")<Observer, ReturnType<typeof observe>>() {}

/** The observer of the public API: its contract's templates and the routes mounted beside it. */
export const layer = (
  api: HttpApi.HttpApi.Any,
  options: {
    readonly log: boolean
    readonly metrics: boolean
    readonly tracing: boolean
    readonly extra: ReadonlyArray<string>
  }
) =>
  Layer.sync(Observer, () =>
    observe({
      route: routeMatcher(templatesOf(api, options.extra)),
      log: options.log,
      metrics: options.metrics,
      tracing: options.tracing
    })
  )
