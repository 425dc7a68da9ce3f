/**
 * The D5 errors of the public API: one `Schema.TaggedError` per error code, its HTTP status declared once in `codes`,
 * each sent as the D5 body `{"error": {"code", "message", "requestId", "details"?}}` (no `_tag` on the wire). The
 * contract declares each code's `wire` Schema, so the derived client decodes a 402 into `InsufficientCredits` or
 * `QuoteAboveMaxCredits` by its `code`, and `Effect.catchTag` catches it by name.
 */
import { HttpApiSchema } from "@effect/platform"
import { Schema } from "effect"

const int = (description: string) => Schema.Number.pipe(Schema.int()).annotations({ description })

/** Every offending field of a 400: its path from the body's root and what is wrong with it. */
const FieldProblems = Schema.Array(
  Schema.Struct({
    path: Schema.String.annotations({ description: "e.g. request.subjects[2]" }),
    message: Schema.String
  })
).annotations({ description: "every offending field: its path from the body's root and what is wrong with it" })

/**
 * The `details` of each code that has them, declared once: the contract decodes them (the Effect client's errors carry
 * them typed), and the document publishes them (per code, so a generated client narrows `details` by `code`).
 */
export const details = {
  invalid_request: FieldProblems,
  unknown_op: FieldProblems,
  insufficient_credits: Schema.Struct({
    required: int("the quote, in credits"),
    available: Schema.Number.annotations({ description: "spendable credits" })
  }),
  quote_above_max_credits: Schema.Struct({
    required: int("the quote, in credits"),
    maxCredits: int("the cap the request gave (D18)")
  }),
  key_credit_limit: Schema.Struct({
    required: int("the quote, in credits"),
    limit: int("the key's monthly credit limit"),
    spentThisMonth: int("credits the key captured this UTC month plus what its calls in flight hold"),
    resetsAt: Schema.String.annotations({
      description: "the start of the next UTC month",
      jsonSchema: { type: "string", format: "date-time", description: "the start of the next UTC month" }
    })
  }),
  call_finished: Schema.Struct({
    status: Schema.Literal("done", "cancelled").annotations({ description: "how the call ended" }),
    httpStatus: Schema.NullOr(Schema.Number).annotations({ description: "the status of its answer" })
  }),
  rate_limited: Schema.Struct({
    limit: Schema.Struct({ name: Schema.String, perSecond: Schema.Number, burst: Schema.Number })
  }).annotations({ description: "the key's rate limit (absent when the failed-authentication limit answered)" }),
  upstream_failed: Schema.Struct({
    coverage: Schema.Array(Schema.Unknown).annotations({
      description: "every unit, each omitted with its reason",
      jsonSchema: {
        type: "array",
        description: "every unit, each omitted with its reason",
        items: { $ref: "#/components/schemas/CoverageItem" }
      }
    })
  })
} as const

/** Whether a code's `details` are always sent (else they may be absent). */
const detailsAlways: ReadonlySet<string> = new Set([
  "invalid_request",
  "unknown_op",
  "insufficient_credits",
  "quote_above_max_credits",
  "key_credit_limit",
  "call_finished",
  "upstream_failed"
])

type Details = typeof details
type DetailsField<C extends string> = C extends keyof Details
  ? { readonly details: Schema.optionalWith<Details[C], { exact: true }> }
  : { readonly details: Schema.optionalWith<typeof Schema.Unknown, { exact: true }> }

/** The `error` member of a body of this code, its `details` typed as the code declares them. */
const errorOf = <C extends string>(code: C) =>
  Schema.Struct({
    code: Schema.Literal(code),
    message: Schema.String,
    requestId: Schema.String,
    details: Schema.optionalWith(
      (code in details ? details[code as keyof Details] : Schema.Unknown) as Schema.Schema.Any,
      { exact: true }
    )
  } as unknown as { code: Schema.Literal<[C]>; message: typeof Schema.String; requestId: typeof Schema.String } & {
    details: DetailsField<C>["details"]
  })

/** Whether this code always carries `details` (the document marks them required). */
export const alwaysDetailed = (code: string) => detailsAlways.has(code)

/** 400 `invalid_request`: `details` lists every offending field as `{path, message}`. */
export class InvalidRequest extends Schema.TaggedError<InvalidRequest>()("InvalidRequest", {
  error: errorOf("invalid_request")
}) {}
/** 400 `unknown_op`: `details` names `request.op` and the platform's ops. */
export class UnknownOp extends Schema.TaggedError<UnknownOp>()("UnknownOp", { error: errorOf("unknown_op") }) {}
/** 401 `unauthorized`: the API key is missing, malformed, unknown, revoked or expired. */
export class Unauthorized extends Schema.TaggedError<Unauthorized>()("Unauthorized", {
  error: errorOf("unauthorized")
}) {}
/** 402 `insufficient_credits`: `details.required` and `details.available`. */
export class InsufficientCredits extends Schema.TaggedError<InsufficientCredits>()("InsufficientCredits", {
  error: errorOf("insufficient_credits")
}) {}
/** 402 `quote_above_max_credits` (D18): `details.required` and `details.maxCredits`. */
export class QuoteAboveMaxCredits extends Schema.TaggedError<QuoteAboveMaxCredits>()("QuoteAboveMaxCredits", {
  error: errorOf("quote_above_max_credits")
}) {}
/**
 * 402 `key_credit_limit` (issue 24): the call would take the key past its monthly credit limit; `details.required`,
 * `details.limit`, `details.spentThisMonth` and `details.resetsAt`.
 */
export class KeyCreditLimit extends Schema.TaggedError<KeyCreditLimit>()("KeyCreditLimit", {
  error: errorOf("key_credit_limit")
}) {}
/** 403 `forbidden` (dashboard): a cross-site or not permitted request. */
export class Forbidden extends Schema.TaggedError<Forbidden>()("Forbidden", { error: errorOf("forbidden") }) {}
/** 404 `unknown_platform`. */
export class UnknownPlatform extends Schema.TaggedError<UnknownPlatform>()("UnknownPlatform", {
  error: errorOf("unknown_platform")
}) {}
/** 404 `not_found`: no such route or resource. */
export class NotFound extends Schema.TaggedError<NotFound>()("NotFound", { error: errorOf("not_found") }) {}
/** 409 `idempotency_in_flight` (D16). */
export class IdempotencyInFlight extends Schema.TaggedError<IdempotencyInFlight>()("IdempotencyInFlight", {
  error: errorOf("idempotency_in_flight")
}) {}
/** 409 `call_finished`: cancelling a call that already ended (issue 21); `details.status` says how it ended. */
export class CallFinished extends Schema.TaggedError<CallFinished>()("CallFinished", {
  error: errorOf("call_finished")
}) {}
/** 413 `payload_too_large` (D12). */
export class PayloadTooLarge extends Schema.TaggedError<PayloadTooLarge>()("PayloadTooLarge", {
  error: errorOf("payload_too_large")
}) {}
/** 415 `unsupported_media_type`. */
export class UnsupportedMediaType extends Schema.TaggedError<UnsupportedMediaType>()("UnsupportedMediaType", {
  error: errorOf("unsupported_media_type")
}) {}
/** 422 `idempotency_mismatch` (D16). */
export class IdempotencyMismatch extends Schema.TaggedError<IdempotencyMismatch>()("IdempotencyMismatch", {
  error: errorOf("idempotency_mismatch")
}) {}
/** 429 `rate_limited`. */
export class RateLimited extends Schema.TaggedError<RateLimited>()("RateLimited", {
  error: errorOf("rate_limited")
}) {}
/** 500 `internal`: the message reveals no internals. */
export class Internal extends Schema.TaggedError<Internal>()("Internal", { error: errorOf("internal") }) {}
/** 502 `upstream_failed`: `details.coverage`. */
export class UpstreamFailed extends Schema.TaggedError<UpstreamFailed>()("UpstreamFailed", {
  error: errorOf("upstream_failed")
}) {}
/** 503 `op_unavailable` (D11). */
export class OpUnavailable extends Schema.TaggedError<OpUnavailable>()("OpUnavailable", {
  error: errorOf("op_unavailable")
}) {}

/**
 * Every error code: its class, its HTTP status (the one place a code's status is written) and where it is answered:
 * the public API, or the dashboard only.
 */
export const codes = {
  invalid_request: { error: InvalidRequest, status: 400, surface: "api" },
  unknown_op: { error: UnknownOp, status: 400, surface: "api" },
  unauthorized: { error: Unauthorized, status: 401, surface: "api" },
  insufficient_credits: { error: InsufficientCredits, status: 402, surface: "api" },
  quote_above_max_credits: { error: QuoteAboveMaxCredits, status: 402, surface: "api" },
  key_credit_limit: { error: KeyCreditLimit, status: 402, surface: "api" },
  forbidden: { error: Forbidden, status: 403, surface: "dashboard" },
  unknown_platform: { error: UnknownPlatform, status: 404, surface: "api" },
  not_found: { error: NotFound, status: 404, surface: "api" },
  idempotency_in_flight: { error: IdempotencyInFlight, status: 409, surface: "api" },
  call_finished: { error: CallFinished, status: 409, surface: "api" },
  payload_too_large: { error: PayloadTooLarge, status: 413, surface: "api" },
  unsupported_media_type: { error: UnsupportedMediaType, status: 415, surface: "api" },
  idempotency_mismatch: { error: IdempotencyMismatch, status: 422, surface: "api" },
  rate_limited: { error: RateLimited, status: 429, surface: "api" },
  internal: { error: Internal, status: 500, surface: "api" },
  upstream_failed: { error: UpstreamFailed, status: 502, surface: "api" },
  op_unavailable: { error: OpUnavailable, status: 503, surface: "api" }
} as const

/** An error code. */
export type Code = keyof typeof codes

/** An error code of the public API (not the dashboard's). */
export type ApiCode = { [C in Code]: (typeof codes)[C]["surface"] extends "api" ? C : never }[Code]

/** An HTTP status of an error of the public API. */
export type ApiStatus = (typeof codes)[ApiCode]["status"]

/** The error of this code. */
export type Of<C extends Code> = InstanceType<(typeof codes)[C]["error"]>

/** Any error of the public API. */
export type Failure = Of<Code>

/** The D5 body of an error. */
export interface Body {
  readonly error: {
    readonly code: string
    readonly message: string
    readonly requestId: string
    readonly details?: unknown
  }
}

type Ctor = new (props: Body, disableValidation?: boolean) => Failure

/** The error of this code, with its message, request id and details. */
export const make = <C extends Code>(code: C, message: string, requestId: string, details?: unknown): Of<C> => {
  const error = details === undefined ? { code, message, requestId } : { code, message, requestId, details }
  return new (codes[code].error as unknown as Ctor)({ error }, true) as Of<C>
}

/** The error of this D5 body whose code is one of ours, else `undefined` (a replayed body, D16). */
export const fromBody = (body: Body): Failure | undefined => {
  const entry = (codes as Record<string, { readonly error: unknown }>)[body.error.code]
  return entry === undefined ? undefined : new (entry.error as Ctor)(body, true)
}

const statusByClass: ReadonlyMap<unknown, number> = new Map(
  Object.values(codes).map(({ error, status }) => [error, status] as const)
)

/** The status of an error of this module (one lookup by its class), else `undefined`. */
export const statusOf = (u: unknown): number | undefined =>
  typeof u === "object" && u !== null ? statusByClass.get(u.constructor) : undefined

/**
 * The contract Schema of the error of this code: the D5 body on the wire, the tagged error in code, with the status.
 */
const wireOf = <C extends Code>(code: C): Schema.Schema<Of<C>, Body> => {
  const cls = codes[code].error as unknown as Ctor & Schema.Schema.Any
  return Schema.transform(Schema.Struct({ error: errorOf(code) }), Schema.typeSchema(cls), {
    strict: false,
    decode: (body) => new cls(body as unknown as Body, true),
    encode: (e) => ({ error: (e as Body).error })
  }).annotations({
    ...HttpApiSchema.annotations({ status: codes[code].status }),
    identifier: `Error_${code}`
  }) as unknown as Schema.Schema<Of<C>, Body>
}

/** The contract Schema of each error, by tag. */
export const wire = {
  InvalidRequest: wireOf("invalid_request"),
  UnknownOp: wireOf("unknown_op"),
  Unauthorized: wireOf("unauthorized"),
  InsufficientCredits: wireOf("insufficient_credits"),
  QuoteAboveMaxCredits: wireOf("quote_above_max_credits"),
  KeyCreditLimit: wireOf("key_credit_limit"),
  Forbidden: wireOf("forbidden"),
  UnknownPlatform: wireOf("unknown_platform"),
  NotFound: wireOf("not_found"),
  IdempotencyInFlight: wireOf("idempotency_in_flight"),
  CallFinished: wireOf("call_finished"),
  PayloadTooLarge: wireOf("payload_too_large"),
  UnsupportedMediaType: wireOf("unsupported_media_type"),
  IdempotencyMismatch: wireOf("idempotency_mismatch"),
  RateLimited: wireOf("rate_limited"),
  Internal: wireOf("internal"),
  UpstreamFailed: wireOf("upstream_failed"),
  OpUnavailable: wireOf("op_unavailable")
} as const
