/**
 * Domain errors to the contract's D5 errors (`Failure`): one tag-keyed map, used by every handler and middleware; and
 * the one rendering of an error as a response.
 */
import { HttpServerResponse } from "@effect/platform"
import type { Calls, Idempotency } from "@pdr/domain"
import { Errors, Failure } from "@pdr/http-api"
import { Effect, FiberRef } from "effect"
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
  EveryUnitFailed: (e) => fail("upstream_failed", e.message, { coverage: e.coverage }),
  IdempotencyKeyInvalid: (e) => fail("invalid_request", e.message, [{ path: "Idempotency-Key", message: e.message }]),
  IdempotencyMismatch: (e) => fail("idempotency_mismatch", e.message),
  IdempotencyInFlight: (e) => fail("idempotency_in_flight", e.message)
}

/** A domain error as its D5 error. */
export const fromDomain = (e: DomainError): Effect.Effect<never, Failure.Failure> =>
  (byTag[e._tag] as (e: DomainError) => Effect.Effect<never, Failure.Failure>)(e)
