// D5: a validation message names the field and says what it must be, never the library's type text.
import { assert, describe, it } from "@effect/vitest"
import { Arbitrary, Effect, Either, Schema } from "effect"
import * as fc from "fast-check"
import { Catalogue, Examples, Requests } from "../src/index.js"

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

// issue 22: `decode` accepts a well-formed body with one pass over its request; whatever it answers, for any body, is
// what the two-step decode (the payload Schema, then the op's) answers
describe("Requests.decode and the two-step decode", () => {
  const answer = (
    e: Either.Either<Requests.Call, Requests.InvalidRequest | Requests.UnknownOp | Requests.UnknownPlatform>
  ) =>
    Either.isRight(e)
      ? { ok: { ...e.right, op: e.right.op.name } }
      : { error: { tag: e.left._tag, message: e.left.message, details: JSON.stringify(e.left) } }
  const same = (platform: Catalogue.PlatformDef, body: unknown) => {
    const once = Effect.runSync(Effect.either(Requests.decode(platform.id, body)))
    const twice = Effect.runSync(Effect.either(Requests.inTwoSteps(platform, body)))
    assert.deepStrictEqual(answer(once), answer(twice), JSON.stringify(body))
    return Either.isRight(once)
  }
  const envelopes = fc.record(
    {
      estimateOnly: fc.oneof(fc.boolean(), fc.constant("yes")),
      maxCredits: fc.oneof(fc.nat(1000), fc.constant(-1), fc.constant(1.5), fc.constant("3")),
      maxAgeSeconds: fc.oneof(fc.nat(100_000), fc.constant(-5)),
      forceFresh: fc.oneof(fc.boolean(), fc.constant(null)),
      extra: fc.constant(1)
    },
    { requiredKeys: [] }
  )

  it("every op's smallest valid request, with and without envelope members, decodes alike both ways", () => {
    let accepted = 0
    for (const platform of Catalogue.platforms) {
      for (const op of platform.ops) {
        const request = Examples.minimal(op)
        if (same(platform, { request })) accepted++
        fc.assert(
          fc.property(envelopes, (extra) => void same(platform, { request, ...extra })),
          { numRuns: 20 }
        )
        same(platform, { request: { ...request, unexpected: 1 } })
        same(platform, { request: { ...request, op: "nope" } })
        same(platform, { request })
      }
    }
    assert.isAbove(accepted, 50, "most smallest requests are accepted (the path under test is taken)")
  })

  it("any encoded request of any op (refinements aside), in any envelope, decodes alike both ways", () => {
    for (const platform of Catalogue.platforms) {
      for (const op of platform.ops) {
        const requests = Arbitrary.make(Schema.encodedSchema(op.request))
        fc.assert(
          fc.property(requests, envelopes, (request, extra) => void same(platform, { request, ...extra })),
          { numRuns: 15 }
        )
      }
    }
  })

  it("bodies that are not an envelope decode alike both ways", () => {
    const maps = Catalogue.findPlatform("maps")!
    for (const body of [
      null,
      1,
      "x",
      [],
      {},
      { request: null },
      { request: [] },
      { request: {} },
      { request: { op: 1 } }
    ])
      same(maps, body)
  })
})

// issue 22: a body both Schemas accept is remembered by its JSON text (the call frozen and shared); only a body made of
// what JSON.parse makes is, so a body that writes the same text but is another value decodes as it would alone
describe("Requests.decode remembers accepted bodies by their JSON text", () => {
  const maps = Catalogue.findPlatform("maps")!
  const decoded = (body: unknown) => Effect.runSync(Effect.either(Requests.decode("maps", body)))
  const alone = (body: unknown) => Effect.runSync(Effect.either(Requests.inTwoSteps(maps, body)))
  const shown = (e: ReturnType<typeof decoded>) =>
    Either.isRight(e)
      ? { ok: { ...e.right, op: e.right.op.name } }
      : { error: { tag: e.left._tag, details: JSON.stringify(e.left) } }

  it("plainJsonKey: the text of a plain JSON value, else undefined", () => {
    assert.strictEqual(
      Requests.plainJsonKey({ a: [1, "x", true, null, { b: 2.5 }] }),
      '{"a":[1,"x",true,null,{"b":2.5}]}'
    )
    assert.strictEqual(Requests.plainJsonKey(JSON.parse('{"__proto__":{"x":1}}')), '{"__proto__":{"x":1}}')
    for (const body of [
      { a: Number.POSITIVE_INFINITY },
      { a: Number.NaN },
      { a: -0 },
      { a: undefined },
      { a: [undefined] },
      // biome-ignore lint/suspicious/noSparseArray: a hole is what is refused here
      { a: [1, , 2] },
      { a: new Date(0) },
      { a: { toJSON: () => "x" } },
      { a: new (class {})() },
      { a: 1n },
      { [Symbol("s")]: 1, a: 1 },
      { a: Object.create({ inherited: 1 }) }
    ])
      assert.isUndefined(Requests.plainJsonKey(body), String(Object.keys(body)))
  })

  it("a remembered body decodes to what a new decode makes, frozen; equal texts of other values are decoded alone", () => {
    const request = { op: "places", subjects: ["ChIJremembered0", "ChIJremembered1"] }
    const first = decoded({ request, maxCredits: 0 })
    const again = decoded(JSON.parse(JSON.stringify({ request, maxCredits: 0 })))
    assert.isTrue(Either.isRight(first))
    assert.deepStrictEqual(shown(again), shown(alone({ request, maxCredits: 0 })))
    if (Either.isRight(first) && Either.isRight(again)) {
      assert.strictEqual(again.right, first.right, "the second decode is the remembered call")
      assert.isTrue(Object.isFrozen(again.right.request))
    }
    // the same JSON text, other values: each decoded as it would be alone (not from what was remembered)
    const subjectLike = new (class {
      toJSON() {
        return "ChIJremembered0"
      }
    })()
    for (const body of [
      { request: { op: "places", subjects: [subjectLike, "ChIJremembered1"] }, maxCredits: 0 },
      { request, maxCredits: 0, forceFresh: undefined },
      { request, maxCredits: -0 },
      { request: { ...request, extra: undefined }, maxCredits: 0 }
    ])
      assert.deepStrictEqual(shown(decoded(body)), shown(alone(body)))
  })

  it("any encoded request of any op, decoded again from what was remembered, is what a new decode makes", () => {
    for (const platform of Catalogue.platforms) {
      for (const op of platform.ops) {
        const requests = Arbitrary.make(Schema.encodedSchema(op.request))
        fc.assert(
          fc.property(requests, (request) => {
            const body = JSON.parse(JSON.stringify({ request }))
            const fresh = Requests.acceptedAtOnce(platform, body)
            const once = Effect.runSync(Effect.either(Requests.decode(platform.id, body)))
            const twice = Effect.runSync(Effect.either(Requests.decode(platform.id, JSON.parse(JSON.stringify(body)))))
            const plain = (e: typeof once) => (Either.isRight(e) ? { ...e.right, op: e.right.op.name } : e.left._tag)
            assert.deepStrictEqual(plain(twice), plain(once))
            if (fresh !== undefined) assert.deepStrictEqual(plain(twice), { ...fresh, op: fresh.op.name })
          }),
          { numRuns: 10 }
        )
      }
    }
  })
})

describe("an op that cannot be made a string (stop 33: a 500 found by the fuzz test)", () => {
  it("`{op: {toString: ...}}` is the 400 of any other object, naming request.op", () => {
    for (const op of [{ toString: "x" }, { toString: "x", valueOf: 1 }, { a: "x" }]) {
      const r = Effect.runSync(Effect.either(Requests.decode("travel_reviews", { request: { op, subjects: ["x"] } })))
      assert.isTrue(Either.isLeft(r))
      if (Either.isLeft(r)) {
        assert.strictEqual(r.left._tag, "InvalidRequest")
        assert.include(JSON.stringify(r.left), "request.op")
      }
    }
  })
})
