/**
 * The API-level middleware: gives every request its id, renders every error in the D5 shape (including the
 * framework's own: malformed JSON, unknown routes, defects) and never answers HTML or an empty body.
 */

import type { IncomingMessage, Server, ServerResponse } from "node:http"
import type { Socket } from "node:net"
import {
  Cookies,
  HttpApiBuilder,
  type HttpApp,
  HttpServerError,
  HttpServerRequest,
  HttpServerResponse
} from "@effect/platform"
import { NodeHttpServerRequest } from "@effect/platform-node"
import { Api, Failure } from "@pdr/http-api"
import { Context, Effect, type Exit, FiberRef, Layer, Option, Runtime } from "effect"
import * as DashboardHttp from "../dashboard/DashboardHttp.js"
import * as RequestId from "../RequestId.js"
import * as ApiErrors from "./ApiErrors.js"
import * as Observability from "./Observability.js"

const notFound = "no such route; see /docs and /openapi.json"
/** An op call's 500: nothing of it was billed (D24; a settle whose outcome is unknown says so itself). */
const renderCall = ApiErrors.renderCause({ notFound, internal: "internal error; the call was not billed" })
/**
 * A collect's or a list's 500: the read failed, not the call: "the call was not billed" here told a client that a call
 * which had ended, billed, was not (a collect whose read met a cut connection).
 */
const renderRead = ApiErrors.renderCause({
  notFound,
  internal: "internal error; the call could not be read (nothing about it changed): ask again"
})
/** Any other request's 500 (free routes: the balance, the catalogue, a cancel). */
const renderOther = ApiErrors.renderCause({ notFound, internal: "internal error; nothing was billed" })

/** The rendering of a request's failures, by what it asked. */
const renderOf = (request: HttpServerRequest.HttpServerRequest) =>
  request.method === "POST" && request.url.startsWith("/api/v1/platforms/")
    ? renderCall
    : request.method === "GET" && request.url.startsWith("/api/v1/calls")
      ? renderRead
      : renderOther

/** The largest request body accepted (D12), after decompression (no content coding is accepted). */
export const maxBodyBytes = 64 * 1024

const tooLargeError = (requestId: string) =>
  Failure.make("payload_too_large", `the body is over ${maxBodyBytes} bytes; nothing was read or billed`, requestId)

const tooLarge = (requestId: string) => ApiErrors.render(tooLargeError(requestId))

/** Bodies up to this size are read to the end even when refused, so the client can read its 413. */
const drainCap = 1024 * 1024

/** How long a refused client still sending its body is read (and ignored) after its 413, before the close. */
const lingerMs = 2_000

/**
 * Closes a connection whose client may still be sending, without a reset: once the answer is written the socket is
 * half-closed (the client reads its answer and end of stream) and what still arrives is read and dropped, for at most
 * `lingerMs`. Closing at once instead would make the kernel answer the late bytes with a reset, which can destroy
 * the answer before the client reads it.
 */
const lingeringClose = (socket: Socket) => {
  socket.destroySoon = () => {
    socket.end()
    socket.resume()
    socket.once("end", () => socket.destroy())
    setTimeout(() => socket.destroy(), lingerMs).unref()
  }
}

/** A 413 written by hand (outside the framework) in the D5 shape, closing the connection politely. */
const writeTooLarge = (res: ServerResponse) => {
  const requestId = RequestId.make()
  const failure = tooLargeError(requestId)
  const body = JSON.stringify({ error: failure.error })
  res.writeHead(Failure.statusOf(failure)!, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(body),
    "x-request-id": requestId,
    connection: "close"
  })
  lingeringClose(res.socket as Socket)
  res.end(body)
}

/**
 * node's `checkContinue`: a request with `Expect: 100-continue` whose declared body is over the limit gets its 413 at
 * once, instead of `100 Continue` and an upload that would be refused; any other gets `100 Continue` and is served.
 */
export const checkContinue = (server: Server) => (req: IncomingMessage, res: ServerResponse) => {
  const length = req.headers["content-length"]
  if (length !== undefined && Number(length) > maxBodyBytes) return writeTooLarge(res)
  res.writeContinue()
  server.emit("request", req, res)
}

/**
 * Reads a body straight from node's IncomingMessage, in one asynchronous step, up to `maxBodyBytes`; past it, the rest
 * is read and dropped up to `drainCap`, and the text is `undefined` (too large) as soon as that is known.
 */
export const readCapped = (source: IncomingMessage) =>
  Effect.async<{ readonly text: string | undefined; readonly ended: boolean; readonly error?: unknown }>((resume) => {
    const chunks: Array<Buffer> = []
    let total = 0
    const onData = (chunk: Buffer) => {
      total += chunk.length
      if (total <= maxBodyBytes) chunks.push(chunk)
      else if (total > drainCap) {
        cleanup()
        source.pause()
        resume(Effect.succeed({ text: undefined, ended: false }))
      }
    }
    const onEnd = () => {
      cleanup()
      const text =
        total > maxBodyBytes
          ? undefined
          : chunks.length === 1
            ? chunks[0]!.toString("utf8")
            : Buffer.concat(chunks).toString("utf8")
      resume(Effect.succeed({ text, ended: true }))
    }
    const onError = (error: unknown) => {
      cleanup()
      resume(Effect.succeed({ text: undefined, ended: false, error }))
    }
    const cleanup = () => {
      source.off("data", onData)
      source.off("end", onEnd)
      source.off("error", onError)
    }
    source.on("data", onData)
    source.once("end", onEnd)
    source.once("error", onError)
    return Effect.sync(cleanup)
  })

/**
 * Refusals decided before the body is parsed: a content coding (415), a declared or actual length over the limit
 * (413). A body whose Content-Length is within the limit is not read here: node's parser delivers exactly that many
 * bytes, so it cannot be over. A body without one (chunked) or declared over the limit is read here (the handler
 * reuses the text), so the client can read its 413; a body over `drainCap` is not read at all.
 */
const precheck = (
  request: HttpServerRequest.HttpServerRequest,
  requestId: string
): Effect.Effect<HttpServerResponse.HttpServerResponse | undefined> | undefined => {
  const coding = request.headers["content-encoding"]
  if (coding !== undefined && coding.trim().toLowerCase() !== "identity") return refusals(request, requestId)
  if (request.method === "GET" || request.method === "HEAD") return undefined
  // (issue 22: most requests have nothing to refuse, known without a step of the fiber's runtime)
  const length = request.headers["content-length"]
  if (length !== undefined && Number(length) <= maxBodyBytes) return undefined
  return refusals(request, requestId)
}

/** The refusals of `precheck` (one of them, or none once the body is read), in their order. */
const refusals = (request: HttpServerRequest.HttpServerRequest, requestId: string) =>
  Effect.gen(function* () {
    const coding = request.headers["content-encoding"]
    if (coding !== undefined && coding.trim().toLowerCase() !== "identity") {
      return ApiErrors.render(
        Failure.make(
          "unsupported_media_type",
          `content-encoding ${coding} is not accepted; send the JSON body uncompressed`,
          requestId
        )
      )
    }
    if (request.method === "GET" || request.method === "HEAD") return undefined
    const length = request.headers["content-length"]
    const source = NodeHttpServerRequest.toIncomingMessage(request)
    if (length !== undefined) {
      const declared = Number(length)
      if (declared <= maxBodyBytes) return undefined
      if (declared > drainCap) {
        lingeringClose(source.socket)
        return HttpServerResponse.setHeader(tooLarge(requestId), "connection", "close")
      }
      // node delivers exactly the declared bytes, so the read is over the limit: it is read (and dropped) to the end
      // so the client can read its 413
      yield* readCapped(source)
      return tooLarge(requestId)
    }
    // chunked: read here, capped; the handler reuses the text (Body)
    if (source.readableEnded) return undefined
    const read = yield* readCapped(source)
    if (read.text !== undefined) {
      cachedText.set(source, read.text)
      return undefined
    }
    if (read.ended) return tooLarge(requestId)
    lingeringClose(source.socket)
    return HttpServerResponse.setHeader(tooLarge(requestId), "connection", "close")
  })

/** Chunked bodies read (capped) by the precheck, for the handler (Body). */
export const cachedText = new WeakMap<IncomingMessage, string>()

/**
 * Requests served beside the framework's router (issue 22, `OpsHttp.routeLayer`: the op calls): the effect that
 * answers one, or `undefined` for a request the router serves. It runs inside this middleware, as the router would.
 */
export class BesideRouter extends Context.Tag("@pdr/server/BesideRouter")<
  BesideRouter,
  (
    request: HttpServerRequest.HttpServerRequest
  ) => Effect.Effect<HttpServerResponse.HttpServerResponse, unknown> | undefined
>() {}

/** What the API-level middleware does around the app that answers a request (the router, or `BesideRouter`'s). */
const around =
  (observe: Observability.Observer["Type"]) =>
  <R>(
    incoming: HttpServerRequest.HttpServerRequest,
    served: (
      incoming: HttpServerRequest.HttpServerRequest
    ) => Effect.Effect<HttpServerResponse.HttpServerResponse, unknown, R>
  ) => {
    const request = RequestId.start()
    // a dashboard address answers its errors as a page with the dashboard's headers (issue 24); an API key sent
    // there keeps the JSON 401 / 429 of any bad key (D20)
    const dashboard =
      incoming.url === "/dashboard" || incoming.url.startsWith("/dashboard/") || incoming.url.startsWith("/dashboard?")
    // the request's fiber is its own (one per request): its state is set once, not around the app (issue 22:
    // `Effect.locally` is an acquire-use-release and two fiber-ref writes per request), in the step that starts the
    // app (a chain rather than a generator: every request passes here)
    const render = renderOf(incoming)
    const answer = Effect.flatMap(FiberRef.set(RequestId.current, request), () =>
      // every answer of the API leaves through here, errors included: its headers are applied once, at the end
      served(incoming).pipe(
        Effect.catchAllCause((cause) =>
          dashboard
            ? Effect.map(render(cause, request.id), (r) =>
                r.status === 401 || r.status === 429 ? r : DashboardHttp.errorResponse(r.status)
              )
            : render(cause, request.id)
        ),
        Effect.map((response) => HttpServerResponse.setHeaders(response, request.headers))
      )
    )
    return observe(
      incoming,
      request,
      Effect.suspend(() => {
        const check = precheck(incoming, request.id)
        return check === undefined
          ? answer
          : Effect.flatMap(check, (refused) =>
              refused === undefined ? answer : Effect.succeed(HttpServerResponse.setHeaders(refused, request.headers))
            )
      })
    )
  }

/** The API-level middleware layer. */
export const layer = HttpApiBuilder.middleware(
  Api.Served,
  Effect.map(Effect.all([Observability.Observer, BesideRouter]), ([observe, beside]) => {
    const serve = around(observe)
    return (app: HttpApp.Default) =>
      Effect.flatMap(HttpServerRequest.HttpServerRequest, (incoming) =>
        // an op call is served beside the router (issue 22: BesideRouter; when it was not answered from node's
        // `request` event: `fastLayer`); any other request by it (its failures are caught like the router's: `app`
        // declares none, the catch takes any)
        serve(incoming, (request) => (beside(request) as typeof app | undefined) ?? app)
      )
  })
)

/**
 * The request of an op call answered from node's `request` event (issue 22, `fastLayer`): what the middleware, the
 * Authentication middleware and the body reader read of a request (method, URL, headers, the client's address, node's
 * IncomingMessage), without platform-node's request object. The body is read from `source` (Body, `readCapped`).
 */
class OpRequest {
  readonly [HttpServerRequest.TypeId]: HttpServerRequest.TypeId = HttpServerRequest.TypeId
  readonly method: string
  readonly url: string
  readonly originalUrl: string
  readonly headers: IncomingMessage["headers"]
  constructor(readonly source: IncomingMessage) {
    this.method = source.method!
    this.url = source.url!
    this.originalUrl = this.url
    this.headers = source.headers
  }
  get remoteAddress(): Option.Option<string> {
    return Option.fromNullable(this.source.socket.remoteAddress)
  }
  /** The body as text (only when nothing has read it yet: the readers here read `source` directly). */
  get text(): Effect.Effect<string, HttpServerError.RequestError> {
    return Effect.flatMap(readCapped(this.source), (read) =>
      read.text === undefined || read.error !== undefined
        ? Effect.fail(
            new HttpServerError.RequestError({
              request: this as never,
              reason: "Decode",
              cause: read.error ?? new Error("the body is over the limit or was read")
            })
          )
        : Effect.succeed(read.text)
    )
  }
}

/** How many requests `fastLayer` has taken (the tests read it to know which way a request went). */
export const answeredHere = { count: 0 }

/** Where the public listener finds the handler of the op calls it answers itself (set by `fastLayer`). */
export interface FastSlot {
  handler: ((req: IncomingMessage, res: ServerResponse) => boolean) | undefined
}

/** A node listener's `emit`, with its `request` events offered to the slot's handler first (which takes op calls). */
export const withFastPath = (server: Server, slot: FastSlot) => {
  const emit = server.emit.bind(server) as (event: string | symbol, ...args: Array<unknown>) => boolean
  server.emit = ((event: string | symbol, ...args: Array<unknown>) =>
    event === "request" &&
    slot.handler !== undefined &&
    slot.handler(args[0] as IncomingMessage, args[1] as ServerResponse)
      ? true
      : emit(event, ...args)) as typeof server.emit
}

/** Writes a response to node as platform-node's handler does (status, headers, cookies, the body). */
const write = (res: ServerResponse, response: HttpServerResponse.HttpServerResponse): void => {
  if (res.writableEnded) return
  let headers = response.headers as Record<string, string | Array<string>>
  if (!Cookies.isEmpty(response.cookies)) {
    headers = { ...headers }
    const toSet = Cookies.toSetCookieHeaders(response.cookies)
    if (headers["set-cookie"] !== undefined) toSet.push(headers["set-cookie"] as string)
    headers["set-cookie"] = toSet
  }
  res.writeHead(response.status, headers)
  const body = response.body
  switch (body._tag) {
    case "Empty":
      res.end()
      return
    case "Raw":
      if (typeof body.body === "string" || body.body instanceof Uint8Array) res.end(body.body)
      else res.end(String(body.body))
      return
    case "Uint8Array":
      res.end(body.body)
      return
    default:
      // no answer of an op call is a stream or a form (OpsHttp, ApiErrors)
      res.end()
  }
}

/**
 * Issue 22: the op calls (`POST /api/v1/platforms/<plain segment>`, `BesideRouter`) answered straight from node's
 * `request` event, without @effect/platform's serve pipeline (platform-node's request object and handler,
 * `HttpApp.toHandled`'s scope, pre-response handlers, tracer and error wrappers, the wait for `end`'s callback: about a
 * third of the Effect operations of a stored call). Each call runs the same steps as through the platform: this
 * middleware (request id, the prechecks, the request's metrics, span and log line, the D5 rendering of every failure,
 * the answer's headers) around the same `BesideRouter` effect (the Authentication middleware's effect and the op
 * handler), in a fiber of the listener's runtime, uninterruptible but for the handler (as `toHandled` makes it), which
 * a client's disconnect interrupts as platform-node does; the answer is written to node as platform-node writes it.
 * Every other request goes to the platform as before.
 */
export const fastLayer = (slot: FastSlot) =>
  Layer.scopedDiscard(
    Effect.gen(function* () {
      const serve = around(yield* Observability.Observer)
      const beside = yield* BesideRouter
      const runFork = Runtime.runFork(yield* Effect.runtime<never>())
      const onExit = (res: ServerResponse) => (exit: Exit.Exit<void, unknown>) => {
        // what escapes the middleware (an interruption: the client is gone): answered as platform-node answers it
        if (exit._tag === "Failure" && !res.writableEnded)
          Effect.runFork(Effect.map(HttpServerError.causeResponse(exit.cause), ([response]) => write(res, response)))
      }
      slot.handler = (req, res) => {
        const incoming = new OpRequest(req) as unknown as HttpServerRequest.HttpServerRequest
        const served = beside(incoming)
        if (served === undefined) return false
        answeredHere.count++
        const fiber = runFork(
          Effect.uninterruptible(
            Effect.map(
              serve(incoming, () => served),
              (response) => write(res, response)
            )
          )
        )
        fiber.addObserver(onExit(res))
        res.on("close", () => {
          if (!res.writableEnded) fiber.unsafeInterruptAsFork(HttpServerError.clientAbortFiberId)
        })
        return true
      }
      yield* Effect.addFinalizer(() =>
        Effect.sync(() => {
          slot.handler = undefined
        })
      )
    })
  )
