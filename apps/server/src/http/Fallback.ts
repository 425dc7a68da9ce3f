/**
 * The API-level middleware: gives every request its id, renders every error in the D5 shape (including the
 * framework's own: malformed JSON, unknown routes, defects) and never answers HTML or an empty body.
 */
import {
  HttpApiBuilder,
  HttpApiError,
  HttpIncomingMessage,
  HttpServerError,
  HttpServerRequest,
  HttpServerResponse
} from "@effect/platform"
import { Api } from "@pdr/http-api"
import { Cause, Effect, Option } from "effect"
import * as RequestId from "../RequestId.js"
import * as ApiErrors from "./ApiErrors.js"

const render = (cause: Cause.Cause<unknown>, requestId: string) => {
  const failure = Option.getOrUndefined(Cause.failureOption(cause))
  const defect = Option.getOrUndefined(Cause.dieOption(cause))
  const error = failure ?? defect
  const status = ApiErrors.statusOf(error)
  if (status !== undefined) {
    return Effect.succeed(
      ApiErrors.response(status, (error as { error: { code: string; message: string } }).error as never)
    )
  }
  if (error instanceof HttpServerError.RouteNotFound) {
    return Effect.succeed(
      ApiErrors.response(404, { code: "not_found", message: "no such route; see /docs and /openapi.json", requestId })
    )
  }
  if (error instanceof HttpServerError.RequestError) {
    return Effect.succeed(
      ApiErrors.response(400, {
        code: "invalid_request",
        message: ApiErrors.notJson.message,
        requestId,
        details: ApiErrors.notJson.details
      })
    )
  }
  if (error instanceof HttpApiError.HttpApiDecodeError) {
    const issues = error.issues
    return Effect.succeed(
      ApiErrors.response(400, {
        code: "invalid_request",
        message: "the request is malformed",
        requestId,
        details: issues.map((i) => ({ path: i.path.join("."), message: i.message }))
      })
    )
  }
  if (Cause.isInterruptedOnly(cause)) return Effect.failCause(cause as Cause.Cause<never>)
  return Effect.logError("unhandled failure", cause).pipe(
    Effect.as(
      ApiErrors.response(500, { code: "internal", message: "internal error; the call was not billed", requestId })
    )
  )
}

/** The largest request body accepted (D12), after decompression (no content coding is accepted). */
export const maxBodyBytes = 64 * 1024

const tooLarge = (requestId: string) =>
  ApiErrors.response(413, {
    code: "payload_too_large",
    message: `the body is over ${maxBodyBytes} bytes; nothing was read or billed`,
    requestId
  })

/** Bodies up to this size are read to the end even when refused, so the client can read its 413. */
const drainCap = 1024 * 1024

/**
 * Refusals decided before the body is parsed: a content coding (415), a declared or actual length over the limit
 * (413). A body whose Content-Length is within the limit is not read here: node's parser delivers exactly that many
 * bytes, so it cannot be over. A body without one (chunked) or declared over the limit is read here (the handler
 * reuses the text), so the client can read its 413; a body over `drainCap` is not read at all.
 */
const precheck = (request: HttpServerRequest.HttpServerRequest, requestId: string) =>
  Effect.gen(function* () {
    const coding = request.headers["content-encoding"]
    if (coding !== undefined && coding.trim().toLowerCase() !== "identity") {
      return ApiErrors.response(415, {
        code: "unsupported_media_type",
        message: `content-encoding ${coding} is not accepted; send the JSON body uncompressed`,
        requestId
      })
    }
    if (request.method === "GET" || request.method === "HEAD") return undefined
    const length = request.headers["content-length"]
    if (length !== undefined) {
      const declared = Number(length)
      if (declared <= maxBodyBytes) return undefined
      if (declared > drainCap) return HttpServerResponse.setHeader(tooLarge(requestId), "connection", "close")
    }
    const text = yield* request.text.pipe(HttpIncomingMessage.withMaxBodySize(Option.some(drainCap)), Effect.option)
    if (Option.isNone(text) || Buffer.byteLength(text.value) > maxBodyBytes) return tooLarge(requestId)
    return undefined
  })

/** The API-level middleware layer. */
export const layer = HttpApiBuilder.middleware(Api.Api, (app) =>
  Effect.gen(function* () {
    const request = RequestId.start()
    const refused = yield* precheck(yield* HttpServerRequest.HttpServerRequest, request.id)
    if (refused !== undefined) return HttpServerResponse.setHeaders(refused, request.headers)
    // every answer of the API leaves through here, errors included: its headers are applied once, at the end
    return yield* app.pipe(
      Effect.catchAllCause((cause) => render(cause, request.id)),
      Effect.map((response) => HttpServerResponse.setHeaders(response, request.headers)),
      Effect.locally(RequestId.current, request)
    )
  })
)
