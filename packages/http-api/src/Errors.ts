/**
 * The operator API's error bodies, `{"error": {"code", "message", "requestId", "details"?}}`, one class per HTTP
 * status. The public API's errors are one tagged error per D5 code, in `Failure`.
 */
import { HttpApiSchema } from "@effect/platform"
import { Schema } from "effect"

/** The `error` member of every error body. */
export const ErrorObject = Schema.Struct({
  code: Schema.String,
  message: Schema.String,
  requestId: Schema.String,
  details: Schema.optionalWith(Schema.Unknown, { exact: true })
})

/** The `error` member, as a value. */
export type ErrorObject = typeof ErrorObject.Type

/** 400: `invalid_request`, `unknown_op`. */
export class BadRequest extends Schema.Class<BadRequest>("BadRequest")(
  { error: ErrorObject },
  HttpApiSchema.annotations({ status: 400 })
) {}
/** 401: `unauthorized`. */
export class Unauthorized extends Schema.Class<Unauthorized>("Unauthorized")(
  { error: ErrorObject },
  HttpApiSchema.annotations({ status: 401 })
) {}
/**
 * 402: `insufficient_credits`, with `details.required` and `details.available`; `quote_above_max_credits` (D18), with
 * `details.required` and `details.maxCredits`.
 */
export class PaymentRequired extends Schema.Class<PaymentRequired>("PaymentRequired")(
  { error: ErrorObject },
  HttpApiSchema.annotations({ status: 402 })
) {}
/** 403: `forbidden` (operator API). */
export class Forbidden extends Schema.Class<Forbidden>("Forbidden")(
  { error: ErrorObject },
  HttpApiSchema.annotations({ status: 403 })
) {}
/** 404: `unknown_platform`, `not_found`. */
export class NotFound extends Schema.Class<NotFound>("NotFound")(
  { error: ErrorObject },
  HttpApiSchema.annotations({ status: 404 })
) {}
/** 409: `idempotency_in_flight`. */
export class Conflict extends Schema.Class<Conflict>("Conflict")(
  { error: ErrorObject },
  HttpApiSchema.annotations({ status: 409 })
) {}
/** 413: `payload_too_large`. */
export class PayloadTooLarge extends Schema.Class<PayloadTooLarge>("PayloadTooLarge")(
  { error: ErrorObject },
  HttpApiSchema.annotations({ status: 413 })
) {}
/** 415: `unsupported_media_type`. */
export class UnsupportedMediaType extends Schema.Class<UnsupportedMediaType>("UnsupportedMediaType")(
  { error: ErrorObject },
  HttpApiSchema.annotations({ status: 415 })
) {}
/** 422: `idempotency_mismatch`. */
export class UnprocessableEntity extends Schema.Class<UnprocessableEntity>("UnprocessableEntity")(
  { error: ErrorObject },
  HttpApiSchema.annotations({ status: 422 })
) {}
/** 429: `rate_limited`. */
export class TooManyRequests extends Schema.Class<TooManyRequests>("TooManyRequests")(
  { error: ErrorObject },
  HttpApiSchema.annotations({ status: 429 })
) {}
/** 500: `internal`; the message reveals no internals. */
export class Internal extends Schema.Class<Internal>("Internal")(
  { error: ErrorObject },
  HttpApiSchema.annotations({ status: 500 })
) {}
/** 502: `upstream_failed`. */
export class BadGateway extends Schema.Class<BadGateway>("BadGateway")(
  { error: ErrorObject },
  HttpApiSchema.annotations({ status: 502 })
) {}
/** 503: `op_unavailable`. */
export class ServiceUnavailable extends Schema.Class<ServiceUnavailable>("ServiceUnavailable")(
  { error: ErrorObject },
  HttpApiSchema.annotations({ status: 503 })
) {}

/** Every error class, by status. */
export const byStatus = {
  400: BadRequest,
  401: Unauthorized,
  402: PaymentRequired,
  403: Forbidden,
  404: NotFound,
  409: Conflict,
  413: PayloadTooLarge,
  415: UnsupportedMediaType,
  422: UnprocessableEntity,
  429: TooManyRequests,
  500: Internal,
  502: BadGateway,
  503: ServiceUnavailable
} as const

/** An HTTP status this contract answers errors with. */
export type ErrorStatus = keyof typeof byStatus

/** Any error body of the contract. */
export type ApiError = InstanceType<(typeof byStatus)[ErrorStatus]>

/** The error of this status carrying this `error` object. */
export const make = (status: ErrorStatus, error: ErrorObject): ApiError => new byStatus[status]({ error })
