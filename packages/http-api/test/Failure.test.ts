// D5: one tagged error per code, its status declared once, sent as {error: {code, message, requestId, details?}}.
import { HttpApiSchema } from "@effect/platform"
import { assert, describe, it } from "@effect/vitest"
import { Schema } from "effect"
import { Document, Failure } from "../src/index.js"

// a valid `details` of each code that declares them (issue 23: details typed per code); any value for the others
const sample: Record<string, unknown> = {
  invalid_request: [{ path: "request.subjects[0]", message: "m" }],
  unknown_op: [{ path: "request.op", message: "m" }],
  insufficient_credits: { required: 3, available: 1 },
  quote_above_max_credits: { required: 3, maxCredits: 1 },
  key_credit_limit: { required: 3, limit: 10, spentThisMonth: 9, resetsAt: "2026-12-01T00:00:00.000Z" },
  call_finished: { status: "done", httpStatus: 200 },
  rate_limited: { limit: { name: "default", perSecond: 20, burst: 40 } },
  upstream_failed: { coverage: [] }
}

describe("Failure", () => {
  it("a code's details are typed: a body whose details do not fit its code is refused", () => {
    const bad = { error: { code: "insufficient_credits", message: "m", requestId: "r", details: { required: "3" } } }
    assert.throws(() => Schema.decodeUnknownSync(Failure.wire.InsufficientCredits)(bad))
    const good = {
      error: { code: "insufficient_credits", message: "m", requestId: "r", details: { required: 3, available: 0 } }
    }
    assert.strictEqual(Schema.decodeUnknownSync(Failure.wire.InsufficientCredits)(good).error.details?.available, 0)
  })

  it("D5: each code's error encodes to the D5 body and nothing else, and decodes back to its tagged error", () => {
    for (const [code, entry] of Object.entries(Failure.codes)) {
      const { status } = entry
      const cls = entry.error as unknown as new (...args: Array<any>) => Failure.Failure
      const details = sample[code] ?? { required: 3 }
      const value = Failure.make(code as Failure.Code, "m", "req_1", details)
      assert.instanceOf(value, cls)
      assert.strictEqual(Failure.statusOf(value), status)
      const schema = (Failure.wire as Record<string, Schema.Schema<Failure.Failure, Failure.Body>>)[value._tag]!
      assert.strictEqual(HttpApiSchema.getStatusError(schema), status)
      const encoded = Schema.encodeSync(schema)(value)
      assert.deepStrictEqual(encoded, { error: { code, message: "m", requestId: "req_1", details } })
      const decoded = Schema.decodeUnknownSync(schema)(encoded)
      assert.instanceOf(decoded, cls)
      assert.strictEqual(decoded._tag, value._tag)
      assert.deepStrictEqual(Failure.fromBody(encoded), decoded)
    }
    assert.deepStrictEqual(Schema.encodeSync(Failure.wire.NotFound)(Failure.make("not_found", "m", "r")), {
      error: { code: "not_found", message: "m", requestId: "r" }
    })
  })

  it("D5: two errors of one status are told apart by their code, and a body of another code is refused", () => {
    const payment = Schema.Union(Failure.wire.InsufficientCredits, Failure.wire.QuoteAboveMaxCredits)
    const body = (code: string) => ({ error: { code, message: "m", requestId: "r" } })
    assert.strictEqual(Schema.decodeUnknownSync(payment)(body("quote_above_max_credits"))._tag, "QuoteAboveMaxCredits")
    assert.strictEqual(Schema.decodeUnknownSync(payment)(body("insufficient_credits"))._tag, "InsufficientCredits")
    assert.throws(() => Schema.decodeUnknownSync(payment)(body("rate_limited")))
    assert.isUndefined(Failure.fromBody(body("no_such_code")))
  })

  it("D5: the document's codes by status are the public API's errors and their statuses", () => {
    assert.deepStrictEqual(JSON.parse(JSON.stringify(Document.errorCodes)), {
      400: ["invalid_request", "unknown_op"],
      401: ["unauthorized"],
      402: ["insufficient_credits", "quote_above_max_credits", "key_credit_limit"],
      404: ["unknown_platform", "not_found"],
      409: ["idempotency_in_flight", "call_finished"],
      413: ["payload_too_large"],
      415: ["unsupported_media_type"],
      422: ["idempotency_mismatch"],
      429: ["rate_limited"],
      500: ["internal"],
      502: ["upstream_failed"],
      503: ["op_unavailable"]
    })
  })
})
