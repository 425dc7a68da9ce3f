// D5: a validation message names the field and says what it must be, never the library's type text.
import { assert, describe, it } from "@effect/vitest"
import { Effect, Either } from "effect"
import { Requests } from "../src/index.js"

const problems = (platform: string, request: unknown) => {
  const r = Effect.runSync(Effect.either(Requests.decode(platform, { request })))
  return Either.isLeft(r) && r.left._tag === "InvalidRequest" ? r.left.details.map((d) => [d.path, d.message]) : []
}

describe("Requests", () => {
  it("type mismatches read as what the field must be", () => {
    assert.deepStrictEqual(problems("maps", { op: "places", subjects: "x" }), [
      ["request.subjects", "must be a list of 1 to 10 subjects"]
    ])
    assert.deepStrictEqual(problems("maps", { op: "places", subjects: [1] }), [
      ["request.subjects[0]", "must be a string"]
    ])
    assert.deepStrictEqual(problems("maps", { op: "search", query: 5, location: true, limit: "3" }), [
      ["request.query", "must be a string"],
      ["request.location", "must be a string"],
      ["request.limit", "must be a number"]
    ])
    for (const [, message] of problems("lodging_booking", { op: "properties", subjects: {}, stay: [] }))
      assert.notMatch(message!, /Expected|ReadonlyArray|<->|readonly/)
  })
})
