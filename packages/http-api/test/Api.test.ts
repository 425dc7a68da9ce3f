// D5, D13: the contract's error bodies and its OpenAPI document.
import { OpenApi } from "@effect/platform"
import { assert, describe, it } from "@effect/vitest"
import { Schema } from "effect"
import { Api, Errors } from "../src/index.js"

describe("Api contract", () => {
  it("D5: every error class encodes to {error: {code, message, requestId, details?}} and nothing else", () => {
    for (const [status, cls] of Object.entries(Errors.byStatus)) {
      const value = Errors.make(Number(status) as Errors.ErrorStatus, { code: "c", message: "m", requestId: "req_1" })
      assert.instanceOf(value, cls)
      const encoded = Schema.encodeSync(cls as unknown as Schema.Schema<unknown, unknown>)(value)
      assert.deepStrictEqual(encoded, { error: { code: "c", message: "m", requestId: "req_1" } })
    }
    const withDetails = Errors.make(402, {
      code: "insufficient_credits",
      message: "m",
      requestId: "r",
      details: { required: 3, available: 1 }
    })
    assert.deepStrictEqual(
      Schema.encodeSync(Errors.PaymentRequired)(withDetails as Errors.PaymentRequired).error.details,
      {
        required: 3,
        available: 1
      }
    )
  })

  it("D13: the OpenAPI document names the three endpoints and the error statuses", () => {
    const doc = OpenApi.fromApi(Api.Api) as any
    assert.strictEqual(doc.openapi, "3.1.0")
    assert.containsAllKeys(doc.paths, ["/api/v1/platforms", "/api/v1/platforms/{platform}", "/api/v1/balance"])
    const call = doc.paths["/api/v1/platforms/{platform}"].post
    assert.containsAllKeys(call.responses, [
      "200",
      "400",
      "401",
      "402",
      "404",
      "409",
      "413",
      "415",
      "422",
      "429",
      "500",
      "502",
      "503"
    ])
    assert.strictEqual(call.requestBody.content["application/json"].schema.$ref, "#/components/schemas/OpEnvelope")
    assert.deepStrictEqual(doc.components.schemas.OpEnvelope.required, ["request"])
    assert.deepStrictEqual(Object.keys(doc.components.securitySchemes), ["apiKey", "bearer"])
    assert.deepStrictEqual(call.security, [{ apiKey: [] }, { bearer: [] }])
    assert.deepStrictEqual(doc.paths["/api/v1/balance"].get.security, [{ apiKey: [] }, { bearer: [] }])
    assert.deepStrictEqual(doc.paths["/api/v1/platforms"].get.security ?? [], [], "the catalogue needs no key")
  })
})
