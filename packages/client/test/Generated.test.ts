// The committed types are what openapi-typescript makes of the document the server serves: regenerate on drift.
import { readFileSync } from "node:fs"
import { assert, describe, it } from "@effect/vitest"
import { generate, generateSchemas, schemasTarget, target } from "../scripts/openapi.js"

describe("generated types", () => {
  it("match the served OpenAPI document (run `pnpm --filter @pdr/client generate` when this fails)", async () => {
    assert.strictEqual(readFileSync(target, "utf8"), await generate())
  }, 30_000)
  it("the JSON Schemas of the contract's parts match it (run `pnpm --filter @pdr/client generate` when this fails)", () => {
    assert.strictEqual(readFileSync(schemasTarget, "utf8"), generateSchemas())
  })
})
