// D5, D13: the contract's error bodies and its OpenAPI document.
import { assert, describe, it } from "@effect/vitest"
import { Catalogue, Examples } from "@pdr/domain"
import { Either, Option, Schema } from "effect"
import { Api, Document, Errors } from "../src/index.js"

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

  it("D13: the contract has one endpoint per platform of the catalogue, as the OpenAPI document has one path", () => {
    const group = Api.Api.groups["platforms"]!
    const endpoints = Object.values(group.endpoints)
    assert.deepStrictEqual(
      endpoints.map((e) => [e.name, e.method, e.path]),
      Catalogue.platforms.map((p) => [p.id, "POST", `/api/v1/platforms/${p.id}`])
    )
    const doc = Document.document({ version: "0.0.0-test" }) as { paths: Record<string, unknown> }
    for (const e of endpoints) assert.property(doc.paths, e.path)
    assert.deepStrictEqual(Object.keys(Api.Api.groups), ["catalogue", "platforms", "account", "calls", "dashboard"])
    assert.property(Api.Served.groups, "unknownPlatform", "served, not published")
  })

  it("D13: each platform's payload Schema takes every op's request as sent and refuses an op of another platform", () => {
    for (const p of Catalogue.platforms) {
      const endpoint = Api.Api.groups["platforms"]!.endpoints[p.id]!
      const payload = Option.getOrThrow(endpoint.payloadSchema as Option.Option<unknown>) as Schema.Schema<unknown>
      for (const o of p.ops) {
        const request = Examples.minimal(o, "synthetic/app-charts")
        assert.isTrue(Either.isRight(Schema.encodeEither(payload)({ request })), `${p.id} ${o.name}`)
      }
      const foreign = Catalogue.platforms.find((q) => q.ops.every((o) => !p.ops.some((x) => x.name === o.name)))
      if (foreign) {
        const request = Examples.minimal(foreign.ops[0]!, "synthetic/app-charts")
        assert.isTrue(Either.isLeft(Schema.encodeEither(payload)({ request })), `${p.id} refuses ${foreign.id}`)
      }
      assert.isTrue(
        Either.isLeft(Schema.encodeEither(payload)({ request: Examples.minimal(p.ops[0]!, "x"), extra: 1 })),
        `${p.id}: an envelope field that is not in the contract is refused, not dropped`
      )
    }
  })
})
