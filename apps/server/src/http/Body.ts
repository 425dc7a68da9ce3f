/**
 * The JSON body of an op call. A body with a Content-Length (at most 64 KiB: the Fallback middleware refused any
 * larger one before this runs) is read here straight from node's IncomingMessage in one asynchronous step; a chunked
 * body was already read, with its cap, by the Fallback middleware, and the text it kept is reused.
 */
import { HttpServerError, type HttpServerRequest } from "@effect/platform"
import { NodeHttpServerRequest } from "@effect/platform-node"
import { Requests } from "@pdr/domain"
import type { Failure } from "@pdr/http-api"
import { Effect } from "effect"
import * as ApiErrors from "./ApiErrors.js"
import * as Fallback from "./Fallback.js"

const decodeError = (request: HttpServerRequest.HttpServerRequest, cause: unknown) =>
  new HttpServerError.RequestError({ request, reason: "Decode", cause })

/** The body as text. */
export const text = (
  request: HttpServerRequest.HttpServerRequest
): Effect.Effect<string, HttpServerError.RequestError> => {
  const source = NodeHttpServerRequest.toIncomingMessage(request)
  if (request.headers["content-length"] === undefined) {
    const cached = Fallback.cachedText.get(source)
    return cached === undefined ? request.text : Effect.succeed(cached)
  }
  return source.readableEnded
    ? request.text
    : Effect.flatMap(Fallback.readCapped(source), (read) =>
        read.text === undefined
          ? Effect.fail(decodeError(request, read.error ?? new Error("the body is over the limit")))
          : Effect.succeed(read.text)
      )
}

/**
 * The body parsed as JSON (an empty body is `null`); a body that is not JSON fails as the framework's would. A body
 * nested deeper than `Requests.maxJsonDepth` is refused (400 naming the field) before it is parsed, by a scan that
 * does not recurse.
 */
export const json = (
  request: HttpServerRequest.HttpServerRequest
): Effect.Effect<unknown, HttpServerError.RequestError | Failure.Failure> =>
  Effect.flatMap(text(request), (body): Effect.Effect<unknown, HttpServerError.RequestError | Failure.Failure> => {
    if (body === "") return Effect.succeed(null)
    const deep = Requests.tooDeep(body)
    if (deep !== undefined) {
      const message = `is nested deeper than ${Requests.maxJsonDepth} levels`
      return ApiErrors.fail("invalid_request", `the body ${message}; nothing was read further or billed`, [
        { path: deep, message }
      ])
    }
    try {
      return Effect.succeed(JSON.parse(body) as unknown)
    } catch (cause) {
      return Effect.fail(decodeError(request, cause))
    }
  })
