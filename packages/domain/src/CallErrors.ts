/** The domain errors of an op call (D5 codes in the HTTP layer), re-exported by `Calls`. */
import { Schema } from "effect"
import { WireId, wire } from "./ErrorCodes.js"

/** 503 `op_unavailable`: the op is marked unavailable in the catalogue (D11). */
export class OpUnavailable extends Schema.TaggedError<OpUnavailable>()("OpUnavailable", {
  platform: Schema.String,
  op: Schema.String
}) {
  override get message() {
    return `${this.platform} ${this.op} is currently unavailable; nothing was billed`
  }
  get [WireId]() {
    return wire("op_unavailable")
  }
}

/** 402 `insufficient_credits`: the quote exceeds spendable credits. */
export class InsufficientCredits extends Schema.TaggedError<InsufficientCredits>()("InsufficientCredits", {
  required: Schema.Number,
  available: Schema.Number
}) {
  override get message() {
    return `this call costs ${this.required} credits and ${this.available} are spendable; nothing was fetched or billed`
  }
  get [WireId]() {
    return wire("insufficient_credits", { required: this.required, available: this.available })
  }
}

/** 402 `quote_above_max_credits`: the quote exceeds the call's `maxCredits` (D18); nothing was held or billed. */
export class QuoteAboveMaxCredits extends Schema.TaggedError<QuoteAboveMaxCredits>()("QuoteAboveMaxCredits", {
  required: Schema.Number,
  maxCredits: Schema.Number
}) {
  override get message() {
    return `this call is quoted at ${this.required} credits, above its maxCredits of ${this.maxCredits}; nothing was fetched or billed`
  }
  get [WireId]() {
    return wire("quote_above_max_credits", { required: this.required, maxCredits: this.maxCredits })
  }
}

/** 502 `upstream_failed`: every unit failed upstream; nothing was billed. */
export class EveryUnitFailed extends Schema.TaggedError<EveryUnitFailed>()("EveryUnitFailed", {
  coverage: Schema.Array(Schema.Unknown),
  /** Units failed on hosts whose circuit is open: the longest wait before they are tried again (ms); not on the wire. */
  retryInMs: Schema.optional(Schema.Number)
}) {
  override get message() {
    return "every unit of this call failed upstream; nothing was billed"
  }
  get [WireId]() {
    return wire("upstream_failed", { coverage: this.coverage })
  }
}
