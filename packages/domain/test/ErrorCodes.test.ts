// D5: every error code is declared once (ErrorCodes.codes); a domain error says which code it is answered with and
// carries details of that code's Schema.
import { assert, describe, it } from "@effect/vitest"
import { Either, Schema } from "effect"
import { EveryUnitFailed, InsufficientCredits, OpUnavailable, QuoteAboveMaxCredits } from "../src/CallErrors.js"
import * as ErrorCodes from "../src/ErrorCodes.js"
import { IdempotencyInFlight, IdempotencyKeyInvalid, IdempotencyMismatch } from "../src/Idempotency.js"
import { KeyCreditLimitReached } from "../src/KeyLimits.js"
import { InvalidInput, KeyNotFound, Unauthorized } from "../src/Keys.js"
import { CallNotFound } from "../src/LongCalls.js"
import { AlreadyMember } from "../src/Members.js"
import { AccountNotFound, SettleOutcomeUnknown } from "../src/ports/Ledger.js"
import { FieldProblem, InvalidRequest, UnknownOp, UnknownPlatform } from "../src/Requests.js"

const answered: ReadonlyArray<[ErrorCodes.Answered, ErrorCodes.Code]> = [
  [
    new InvalidRequest({ message: "m", details: [new FieldProblem({ path: "request.limit", message: "x" })] }),
    "invalid_request"
  ],
  [new UnknownOp({ platform: "maps", op: "nope", ops: ["places", "history"] }), "unknown_op"],
  [new UnknownPlatform({ platform: "nope" }), "unknown_platform"],
  [new OpUnavailable({ platform: "explore", op: "schema" }), "op_unavailable"],
  [new InsufficientCredits({ required: 3, available: 1 }), "insufficient_credits"],
  [new QuoteAboveMaxCredits({ required: 3, maxCredits: 1 }), "quote_above_max_credits"],
  [
    new KeyCreditLimitReached({ required: 3, limit: 10, spentThisMonth: 9, resetsAt: "2026-12-01T00:00:00.000Z" }),
    "key_credit_limit"
  ],
  [new EveryUnitFailed({ coverage: [{ subject: "a", status: "omitted" }] }), "upstream_failed"],
  [new SettleOutcomeUnknown({ detail: "lost" }), "internal"],
  [new IdempotencyKeyInvalid(), "invalid_request"],
  [new IdempotencyMismatch(), "idempotency_mismatch"],
  [new IdempotencyInFlight(), "idempotency_in_flight"],
  [new InvalidInput({ field: "name", message: "is required" }), "invalid_request"],
  [new KeyNotFound({ keyId: "kid_x" }), "not_found"],
  [new AccountNotFound({ accountId: "acct_x" }), "not_found"],
  [new Unauthorized(), "unauthorized"],
  [new CallNotFound(), "not_found"],
  [new AlreadyMember({ email: "a@b.c" }), "conflict"]
]

describe("ErrorCodes", () => {
  it("D5: a domain error is answered with its code, and its details are valid for that code's Schema", () => {
    for (const [e, code] of answered) {
      assert.isTrue(ErrorCodes.isAnswered(e), e._tag)
      const wire = e[ErrorCodes.WireId]
      assert.strictEqual(wire.code, code, e._tag)
      const { details, detailsOptional } = ErrorCodes.declaration(code)
      if (details === undefined) assert.isUndefined(wire.details, e._tag)
      else if (wire.details !== undefined || detailsOptional !== true)
        assert.isTrue(Either.isRight(Schema.decodeUnknownEither(details)(wire.details)), e._tag)
    }
  })

  it("D5: the wire says what the answer says: the details of the error's own fields", () => {
    assert.deepStrictEqual(new InsufficientCredits({ required: 3, available: 1 })[ErrorCodes.WireId], {
      code: "insufficient_credits",
      details: { required: 3, available: 1 }
    })
    assert.deepStrictEqual(
      new UnknownOp({ platform: "maps", op: "nope", ops: ["places", "history"] })[ErrorCodes.WireId],
      {
        code: "unknown_op",
        details: [{ path: "request.op", message: "must be one of places, history" }]
      }
    )
    assert.deepStrictEqual(new InvalidInput({ field: "name", message: "is required" })[ErrorCodes.WireId], {
      code: "invalid_request",
      details: [{ path: "name", message: "is required" }],
      message: "name is required"
    })
    assert.isFalse(ErrorCodes.isAnswered(new Error("not ours")))
  })

  it("D5: a code's tag is the code in PascalCase, and no two codes share a tag", () => {
    assert.strictEqual(ErrorCodes.tagOf("quote_above_max_credits"), "QuoteAboveMaxCredits")
    assert.strictEqual(ErrorCodes.tagOf("unauthorized"), "Unauthorized")
    assert.strictEqual(new Set(ErrorCodes.all.map(ErrorCodes.tagOf)).size, ErrorCodes.all.length)
  })
})
