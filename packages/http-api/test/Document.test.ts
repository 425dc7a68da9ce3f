// The OpenAPI document passes two independent 3.1 validators (the OpenAPI 3.1 meta-schema, and Redocly's lint with
// its recommended rules), has one path per platform with a branch per op, and says the engine's version.

import { assert, describe, it } from "@effect/vitest"
import { Catalogue } from "@pdr/domain"
import { createConfig, lintFromString } from "@redocly/openapi-core"
import { Validator } from "@seriousme/openapi-schema-validator"
import { Document } from "../src/index.js"

const doc = Document.document({ version: "9.9.9" })

describe("the OpenAPI document", () => {
  it("is valid OpenAPI 3.1 for @seriousme/openapi-schema-validator", async () => {
    const validator = new Validator()
    const result = await validator.validate(structuredClone(doc) as never)
    assert.deepStrictEqual(result.errors ?? [], [], JSON.stringify(result.errors ?? []).slice(0, 2000))
    assert.isTrue(result.valid)
    assert.strictEqual(validator.version, "3.1")
  })

  it("has no error under @redocly/openapi-core lint with the recommended rules", async () => {
    const config = await createConfig({ extends: ["recommended"] })
    const problems = await lintFromString({ source: JSON.stringify(doc), absoluteRef: "openapi.json", config })
    const errors = problems.filter((p) => p.severity === "error")
    assert.deepStrictEqual(
      errors.map((p) => `${p.ruleId}: ${p.message} at ${p.location[0]?.pointer}`),
      []
    )
  })

  it("has one path per platform, one request branch and one answer per op, and the engine version", () => {
    const paths = doc["paths"] as Record<string, any>
    assert.strictEqual((doc["info"] as any).version, "9.9.9")
    for (const p of Catalogue.platforms) {
      const post = paths[`/api/v1/platforms/${p.id}`].post
      const branches = post.requestBody.content["application/json"].schema.oneOf
      assert.deepStrictEqual(
        branches.map((b: any) => b.properties.request.properties.op.enum[0]),
        p.ops.map((o) => o.name)
      )
      assert.strictEqual(post.responses["200"].content["application/json"].schema.anyOf.length, p.ops.length)
      assert.notProperty(post.responses, "404")
    }
    assert.notInclude(JSON.stringify(doc), '"$id"')
  })
})
