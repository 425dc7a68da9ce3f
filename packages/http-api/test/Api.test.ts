// D5, D13: the contract's error bodies and its OpenAPI document.

import { HttpApiError } from "@effect/platform"
import { assert, describe, it } from "@effect/vitest"
import { Catalogue, Examples } from "@pdr/domain"
import { SchemaAST as AST, Either, Option, Schema } from "effect"
import { AdminApi, Api, Document, Failure } from "../src/index.js"

describe("Api contract", () => {
  it("D5: the operator API answers with the public API's one error family, each error with its code's status", () => {
    const family = new Set(Object.values(Failure.wire).map((w) => w.ast))
    const members = (ast: AST.AST): ReadonlyArray<AST.AST> => (AST.isUnion(ast) ? ast.types : [ast])
    const errors = [
      ...members(AdminApi.AdminApi.errorSchema.ast),
      ...Object.values(AdminApi.AdminApi.groups).flatMap((g) => [
        ...members(g.errorSchema.ast),
        ...Object.values(g.endpoints).flatMap((e) => members(e.errorSchema.ast))
      ]),
      ...members(AdminApi.OperatorAuth.failure.ast)
    ]
    const codes = new Set<string>()
    for (const ast of errors) {
      if (ast === HttpApiError.HttpApiDecodeError.ast || AST.isNeverKeyword(ast)) continue
      assert.isTrue(family.has(ast), `an operator error outside the family: ${String(ast)}`)
      codes.add(Object.entries(Failure.wire).find(([, w]) => w.ast === ast)![0])
    }
    assert.includeMembers(
      [...codes],
      ["InvalidRequest", "Unauthorized", "NotFound", "Conflict", "UpstreamFailed", "Internal"]
    )
    const conflict = Failure.make("conflict", "m", "r")
    assert.strictEqual(Failure.statusOf(conflict), 409)
    assert.deepStrictEqual(Schema.encodeSync(Failure.wire.Conflict)(conflict), {
      error: { code: "conflict", message: "m", requestId: "r" }
    })
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
