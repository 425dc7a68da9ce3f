/**
 * An op answer's body (issue 22, d): a large answer is encoded to UTF-8 once, from its parts, and sent and recorded as
 * those bytes; a smaller one stays its text. Either way it is exactly the answer's JSON text.
 */

import { assert, describe, it } from "@effect/vitest"
import { Answers } from "@pdr/domain"
import { FastCheck as fc } from "effect"
import * as CallRunner from "../src/http/CallRunner.js"

// any text, surrogate pairs and all (JSON texts never hold a lone surrogate: JSON.stringify escapes one)
const text = fc.string({ unit: "grapheme", maxLength: 40 })

describe("an answer's body", () => {
  it("utf8: the parts' UTF-8 is the joined text's", () =>
    fc.assert(
      fc.property(fc.array(text, { maxLength: 30 }), (parts) => {
        assert.isTrue(CallRunner.utf8(parts).equals(Buffer.from(parts.join(""))))
      })
    ))

  it("okBody: the answer's text below bytesFrom characters, its UTF-8 from there on; the same JSON either way", () =>
    fc.assert(
      fc.property(
        fc.array(fc.record({ subject: text, title: text }), { maxLength: 20 }),
        fc.integer({ min: 0, max: 2 * CallRunner.bytesFrom }),
        (rows, padding) => {
          const body = { data: [...rows, { subject: "x".repeat(padding) }], requestId: "req_é☕" }
          const expected = Answers.text(body)
          assert.strictEqual(expected, JSON.stringify(body))
          const got = CallRunner.okBody(body)
          if (expected.length < CallRunner.bytesFrom) assert.strictEqual(got, expected)
          else {
            assert.instanceOf(got, Buffer)
            assert.isTrue((got as Buffer).equals(Buffer.from(expected)))
          }
        }
      ),
      { numRuns: 200 }
    ))
})
