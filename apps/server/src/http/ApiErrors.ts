/**
 * Domain errors to the contract's D5 errors (`Failure`, one family for the public and operator APIs): each domain
 * error carries its code and details (`ErrorCodes.Answered`), so no error is mapped here by name; and the one
 * rendering of an error as a response.
 */
import type { HttpApiError, HttpServerError } from "@effect/platform"
import { HttpServerResponse } from "@effect/platform"
import type { ErrorCodes } from "@pdr/domain"
import { Failure } from "@pdr/http-api"
import { Failures } from "@pdr/store-pg"
import { Cause, Effect, FiberRef, Option } from "effect"
import * as RequestId from "../RequestId.js"

/** The D5 error of this code, carrying the current request id. */
export const fail = <C extends Failure.Code>(code: C, message: string, details?: ErrorCodes.Details<C>) =>
  Effect.flatMap(FiberRef.get(RequestId.current), (request) =>
    Effect.fail(Failure.make(code, message, request.id, details))
  )

/** What a body that is not JSON is told (400 `invalid_request`). */
export const notJson = {
  message: "the body is not valid JSON",
  details: [{ path: "", message: "must be a JSON object" }]
} as const

/** The status of an error of the contract, if it is one: one lookup by its class, no scan. */
export const statusOf = Failure.statusOf

/** A D5 error response, rendered directly (for errors raised outside handlers). */
export const response = (status: number, error: Failure.Body["error"], headers: Record<string, string> = {}) =>
  HttpServerResponse.unsafeJson({ error }, { status, headers })

/** An error of the family as its response, with its code's status. */
export const render = (failure: Failure.Failure, headers: Record<string, string> = {}) =>
  response(Failure.statusOf(failure)!, failure.error, headers)

/** A domain error as its D5 error (the code, details and message it carries), with the current request id. */
export const fromDomain = <E extends ErrorCodes.Answered>(e: E): Effect.Effect<never, Failure.Of<Failure.CodeOf<E>>> =>
  Effect.flatMap(FiberRef.get(RequestId.current), (request) => Effect.fail(Failure.fromDomain(e, request.id)))

/** The framework's own failures, by tag, as the D5 error a client is answered (their bodies are never shown). */
interface FrameworkErrors {
  readonly RouteNotFound: (e: HttpServerError.RouteNotFound, requestId: string) => Failure.Failure
  readonly RequestError: (e: HttpServerError.RequestError, requestId: string) => Failure.Failure
  readonly HttpApiDecodeError: (e: HttpApiError.HttpApiDecodeError, requestId: string) => Failure.Failure
}

/** What a listener tells a client of a route it does not have, and of an internal error. */
export interface Messages {
  readonly notFound: string
  readonly internal: string
}

const framework = (messages: Messages): FrameworkErrors => ({
  RouteNotFound: (_, requestId) => Failure.make("not_found", messages.notFound, requestId),
  RequestError: (_, requestId) => Failure.make("invalid_request", notJson.message, requestId, notJson.details),
  HttpApiDecodeError: (e, requestId) => {
    const details = e.issues.map((i) => ({ path: i.path.join("."), message: i.message }))
    return Failure.make(
      "invalid_request",
      `the body must be JSON of the documented shape: ${details.map((d) => `${d.path} ${d.message}`).join("; ")}`,
      requestId,
      details
    )
  }
})

/** What a failure of the database not reached says (its message and its cause's: "connect ECONNREFUSED ..."). */
const unreached = (e: Error): string => {
  const inner = (e as { readonly cause?: unknown }).cause
  return inner instanceof Error && inner.message !== e.message ? `${e.message}: ${inner.message}` : e.message
}

const tagOf = (u: unknown): string | undefined =>
  typeof u === "object" && u !== null && "_tag" in u && typeof u._tag === "string" ? u._tag : undefined

/**
 * The answer to a failed request, in the D5 shape: an error of the contract as it is; a framework failure as its D5
 * error (one lookup by tag); an interruption goes on; anything else is logged and answered 500 `internal`.
 */
export const renderCause = (messages: Messages) => {
  const converters = framework(messages) as unknown as Record<string, (e: unknown, id: string) => Failure.Failure>
  return (cause: Cause.Cause<unknown>, requestId: string): Effect.Effect<HttpServerResponse.HttpServerResponse> => {
    const error = Option.getOrUndefined(Cause.failureOption(cause)) ?? Option.getOrUndefined(Cause.dieOption(cause))
    const status = statusOf(error)
    if (status !== undefined) return Effect.succeed(response(status, (error as Failure.Body).error as never))
    const convert = converters[tagOf(error) ?? ""]
    if (convert !== undefined) {
      const failure = convert(error, requestId)
      return Effect.succeed(render(failure))
    }
    if (Cause.isInterruptedOnly(cause)) return Effect.failCause(cause as Cause.Cause<never>)
    // the database out of reach (a dropped connection, a restart): one line without a stack per request, as each
    // request meets it while it lasts; anything else with its cause
    return (
      Failures.refusedWrite(cause)
        ? Effect.logError("unhandled failure", cause)
        : Failures.readOnly(cause)
          ? Effect.logError(
              "the database took no writes (read-only: a standby, or the old primary after a failover; each connection that says so is replaced); answered 500 internal"
            )
          : Effect.logError(
              `the database was not reached (${Cause.squash(cause) instanceof Error ? unreached(Cause.squash(cause) as Error) : String(error)}); answered 500 internal`
            )
    ).pipe(Effect.as(render(Failure.make("internal", messages.internal, requestId))))
  }
}
