// D5: one tagged error per code, its status declared once, sent as {error: {code, message, requestId, details?}}.
import { HttpApiSchema } from "@effect/platform"
import { assert, describe, it } from "@effect/vitest"
import { Schema } from "effect"
import { Document, Failure } from "../src/index.js"

describe("Failure", () => {
  it("D5: each code's error encodes to the D5 body and nothing else, and decodes back to its tagged error", () => {
    for (const [code, entry] of Object.entries(Failure.codes)) {
      const { status } = entry
      const cls = entry.error as unknown as new (...args: Array<any>) => Failure.Failure
      const value = Failure.make(code as Failure.Code, "m", "req_1", { required: 3 })
      assert.instanceOf(value, cls)
      assert.strictEqual(Failure.statusOf(value), status)
      const schema = (Failure.wire as Record<string, Schema.Schema<Failure.Failure, Failure.Body>>)[value._tag]!
      assert.strictEqual(HttpApiSchema.getStatusError(schema), status)
      const encoded = Schema.encodeSync(schema)(value)
      assert.deepStrictEqual(encoded, { error: { code, message: "m", requestId: "req_1", details: { required: 3 } } })
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
