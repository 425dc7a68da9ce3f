/** Domain errors to D5 error bodies: one mapping, used by every handler and middleware. */
import { HttpServerResponse } from "@effect/platform"
import type { Calls } from "@pdr/domain"
import { Errors } from "@pdr/http-api"
import { Effect, FiberRef } from "effect"
import * as RequestId from "../RequestId.js"

/** The D5 error of this status and code, carrying the current request id. */
export const fail = (status: Errors.ErrorStatus, code: string, message: string, details?: unknown) =>
  Effect.flatMap(FiberRef.get(RequestId.current), (request) =>
    Effect.fail(
      Errors.make(status, { code, message, requestId: request.id, ...(details === undefined ? {} : { details }) })
    )
  )

/** What a body that is not JSON is told (400 `invalid_request`). */
export const notJson = {
  message: "the body is not valid JSON",
  details: [{ path: "", message: "must be a JSON object" }]
} as const

const statusByClass: ReadonlyMap<unknown, number> = new Map(
  Object.entries(Errors.byStatus).map(([status, cls]) => [cls, Number(status)] as const)
)

/** The status of an error body of the contract, if it is one: one lookup by its class, no scan. */
export const statusOf = (u: unknown): number | undefined =>
  typeof u === "object" && u !== null ? statusByClass.get(u.constructor) : undefined

/** A D5 error response, rendered directly (for errors raised outside handlers). */
export const response = (status: number, error: Errors.ErrorObject, headers: Record<string, string> = {}) =>
  HttpServerResponse.unsafeJson({ error }, { status, headers })

/** A call's domain error as its D5 error. */
export const fromCallError = (e: Calls.CallError) => {
  switch (e._tag) {
    case "InvalidRequest":
      return fail(
        400,
        "invalid_request",
        e.message,
        e.details.map((d) => ({ path: d.path, message: d.message }))
      )
    case "UnknownOp":
      return fail(400, "unknown_op", e.message, [{ path: "request.op", message: `must be one of ${e.ops.join(", ")}` }])
    case "UnknownPlatform":
      return fail(404, "unknown_platform", e.message)
    case "OpUnavailable":
      return fail(503, "op_unavailable", e.message)
    case "InsufficientCredits":
      return fail(402, "insufficient_credits", e.message, { required: e.required, available: e.available })
    case "EveryUnitFailed":
      return fail(502, "upstream_failed", e.message, { coverage: e.coverage })
  }
}
