// The operator API's OpenAPI document (served on the operator listener) is valid OpenAPI 3.1 for two validators and
// declares every operator endpoint behind the operator bearer scheme.

import { OpenApi } from "@effect/platform"
import { assert, describe, it } from "@effect/vitest"
import { createConfig, lintFromString } from "@redocly/openapi-core"
import { Validator } from "@seriousme/openapi-schema-validator"
import { AdminApi } from "../src/index.js"

const doc = OpenApi.fromApi(AdminApi.AdminApi) as unknown as Record<string, any>

describe("the operator API's OpenAPI document", () => {
  it("is valid OpenAPI 3.1 for @seriousme/openapi-schema-validator", async () => {
    const validator = new Validator()
    const result = await validator.validate(structuredClone(doc) as never)
    assert.deepStrictEqual(result.errors ?? [], [], JSON.stringify(result.errors ?? []).slice(0, 2000))
    assert.isTrue(result.valid)
  })

  it("has no error under @redocly/openapi-core lint with the recommended rules", async () => {
    const config = await createConfig({ extends: ["recommended"] })
    const problems = await lintFromString({ source: JSON.stringify(doc), absoluteRef: "openapi.json", config })
    assert.deepStrictEqual(
      problems
        .filter((p) => p.severity === "error")
        .map((p) => `${p.ruleId}: ${p.message} at ${p.location[0]?.pointer}`),
      []
    )
  })

  it("declares the thirteen operator endpoints, each behind the operator bearer token", () => {
    const operations = Object.entries(doc["paths"] as Record<string, Record<string, any>>).flatMap(([path, item]) =>
      Object.entries(item).map(([method, op]) => ({ route: `${method.toUpperCase()} ${path}`, op }))
    )
    assert.sameMembers(
      operations.map((o) => o.route),
      [
        "POST /admin/accounts",
        "GET /admin/accounts",
        "GET /admin/accounts/{accountId}",
        "POST /admin/accounts/{accountId}/credits",
        "POST /admin/accounts/{accountId}/keys",
        "GET /admin/accounts/{accountId}/keys",
        "POST /admin/keys/{keyId}/revoke",
        "POST /admin/holds/sweep",
        "POST /admin/tracked",
        "POST /admin/tracked/remove",
        "GET /admin/tracked",
        "POST /admin/accounts/{accountId}/members/invitations",
        "POST /admin/members/resets"
      ]
    )
    for (const { op } of operations) {
      assert.deepStrictEqual(op.security, [{ operator: [] }])
      assert.property(op.responses, "401")
    }
    assert.deepStrictEqual(doc["components"].securitySchemes.operator, { type: "http", scheme: "bearer" })
  })
})
