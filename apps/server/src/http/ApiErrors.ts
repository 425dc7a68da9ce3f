/**
 * Domain errors to the contract's D5 errors (`Failure`): one tag-keyed map, used by every handler and middleware; and
 * the one rendering of an error as a response.
 */
import type { HttpApiError, HttpServerError } from "@effect/platform"
import { HttpServerResponse } from "@effect/platform"
import type { Calls, Idempotency } from "@pdr/domain"
import { Errors, Failure } from "@pdr/http-api"
import { Cause, Effect, FiberRef, Option } from "effect"
import * as RequestId from "../RequestId.js"

/** The D5 error of this code, carrying the current request id. */
export const fail = <C extends Failure.Code>(code: C, message: string, details?: unknown) =>
  Effect.flatMap(FiberRef.get(RequestId.current), (request) =>
    Effect.fail(Failure.make(code, message, request.id, details))
  )

/** What a body that is not JSON is told (400 `invalid_request`). */
export const notJson = {
  message: "the body is not valid JSON",
  details: [{ path: "", message: "must be a JSON object" }]
} as const

const statusByClass: ReadonlyMap<unknown, number> = new Map(
  Object.entries(Errors.byStatus).map(([status, cls]) => [cls, Number(status)] as const)
)

/**
 * The status of an error of the contract (a `Failure`, or an operator API per-status body), if it is one: one lookup
 * by its class, no scan.
 */
export const statusOf = (u: unknown): number | undefined =>
  Failure.statusOf(u) ?? (typeof u === "object" && u !== null ? statusByClass.get(u.constructor) : undefined)

/** A D5 error response, rendered directly (for errors raised outside handlers). */
export const response = (status: number, error: Errors.ErrorObject, headers: Record<string, string> = {}) =>
  HttpServerResponse.unsafeJson({ error }, { status, headers })

/** A domain error the public API answers. */
export type DomainError =
  | Calls.CallError
  | Idempotency.IdempotencyKeyInvalid
  | Idempotency.IdempotencyMismatch
  | Idempotency.IdempotencyInFlight

type Mapping = {
  readonly [T in DomainError["_tag"]]: (
    e: Extract<DomainError, { readonly _tag: T }>
  ) => Effect.Effect<never, Failure.Failure>
}

/** Each domain error's D5 error, keyed by the domain error's tag: the one place a domain error becomes its Failure. */
const byTag: Mapping = {
  InvalidRequest: (e) =>
    fail(
      "invalid_request",
      e.message,
      e.details.map((d) => ({ path: d.path, message: d.message }))
    ),
  UnknownOp: (e) =>
    fail("unknown_op", e.message, [{ path: "request.op", message: `must be one of ${e.ops.join(", ")}` }]),
  UnknownPlatform: (e) => fail("unknown_platform", e.message),
  OpUnavailable: (e) => fail("op_unavailable", e.message),
  InsufficientCredits: (e) => fail("insufficient_credits", e.message, { required: e.required, available: e.available }),
  QuoteAboveMaxCredits: (e) =>
    fail("quote_above_max_credits", e.message, { required: e.required, maxCredits: e.maxCredits }),
  KeyCreditLimitReached: (e) =>
    fail("key_credit_limit", e.message, {
      required: e.required,
      limit: e.limit,
      spentThisMonth: e.spentThisMonth,
      resetsAt: e.resetsAt
    }),
  EveryUnitFailed: (e) => fail("upstream_failed", e.message, { coverage: e.coverage }),
  SettleOutcomeUnknown: (e) => fail("internal", e.message),
  IdempotencyKeyInvalid: (e) => fail("invalid_request", e.message, [{ path: "Idempotency-Key", message: e.message }]),
  IdempotencyMismatch: (e) => fail("idempotency_mismatch", e.message),
  IdempotencyInFlight: (e) => fail("idempotency_in_flight", e.message)
}

/** A domain error as its D5 error. */
export const fromDomain = (e: DomainError): Effect.Effect<never, Failure.Failure> =>
  (byTag[e._tag] as (e: DomainError) => Effect.Effect<never, Failure.Failure>)(e)

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
      return Effect.succeed(response(Failure.statusOf(failure)!, failure.error))
    }
    if (Cause.isInterruptedOnly(cause)) return Effect.failCause(cause as Cause.Cause<never>)
    return Effect.logError("unhandled failure", cause).pipe(
      Effect.as(response(500, Failure.make("internal", messages.internal, requestId).error))
    )
  }
}
