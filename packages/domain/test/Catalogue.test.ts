// D1, D3, D13, D14: the catalogue matches the specification's tables, and every op's Schema enforces every
// required field, bound, enum, maximum length and batch size it publishes, naming the offending path.
import { assert, describe, it } from "@effect/vitest"
import { Effect, Either } from "effect"
import { Catalogue, Requests, Examples as Samples } from "../src/index.js"

type Json = Record<string, unknown>

// The specification's tables (price "from N [for M]", freshness), restated here independently of the catalogue.
const H = 3600
const D = 86400
const spec: Record<string, [number, number | null, number | null]> = {
  "quick_commerce_a/products": [1, null, 6 * H],
  "quick_commerce_a/search": [20, 20, null],
  "quick_commerce_a/category": [20, 20, null],
  "quick_commerce_a/history": [0, null, null],
  "quick_commerce_b/products": [1, null, 6 * H],
  "quick_commerce_b/search": [20, 20, null],
  "quick_commerce_b/category": [20, 20, null],
  "quick_commerce_b/history": [0, null, null],
  "short_video/profiles": [2, null, 7 * D],
  "short_video/posts": [29, 15, 1 * D],
  "short_video/videos": [2, null, 1 * D],
  "short_video/searchPosts": [39, 20, null],
  "short_video/search": [25, 10, null],
  "short_video/comments": [25, 50, 1 * D],
  "short_video/followers": [25, 25, 7 * D],
  "short_video/shop": [145, 10, null],
  "short_video/history": [0, null, null],
  "forum/posts": [25, 10, 1 * D],
  "forum/subreddit": [25, 10, null],
  "forum/comments": [3, 25, 1 * D],
  "forum/search": [25, 10, null],
  "forum/history": [0, null, null],
  "maps/places": [4, null, 3 * D],
  "maps/search": [39, 10, null],
  "maps/reviews": [7, 25, 3 * D],
  "maps/history": [0, null, null],
  "jobs_in/search": [97, 50, null],
  "jobs_in/history": [0, null, null],
  "jobs_global/search": [1, 20, null],
  "jobs_global/jobs": [1, null, 3 * D],
  "social_network/pages": [10, null, 7 * D],
  "social_network/posts": [121, 25, 1 * D],
  "social_network/reels": [97, 20, 1 * D],
  "social_network/reviews": [121, 50, 3 * D],
  "social_network/followers": [182, 25, 7 * D],
  "social_network/ads": [121, 25, 1 * D],
  "social_network/events": [194, 20, null],
  "social_network/marketplace": [194, 20, null],
  "social_network/history": [0, null, null],
  "social_network/comments": [121, 50, 1 * D],
  "web_search/search": [1, null, null],
  "web_search/news": [39, 20, null],
  "web_search/images": [20, 20, null],
  "web_search/shopping": [58, 20, null],
  "web_search/playReviews": [5, 50, 1 * D],
  "lodging_booking/properties": [2, null, 12 * H],
  "lodging_booking/search": [24, 12, null],
  "lodging_booking/reviews": [49, 25, 3 * D],
  "lodging_booking/history": [0, null, null],
  "travel_reviews/hotels": [2, null, 3 * D],
  "travel_reviews/restaurants": [2, null, 3 * D],
  "travel_reviews/attractions": [2, null, 3 * D],
  "travel_reviews/searchHotels": [20, 10, null],
  "travel_reviews/searchRestaurants": [20, 10, null],
  "travel_reviews/searchAttractions": [20, 10, null],
  "travel_reviews/reviews": [49, 25, 3 * D],
  "travel_reviews/history": [0, null, null],
  "home_rentals/listings": [2, null, 12 * H],
  "home_rentals/reviews": [49, 25, 3 * D],
  "home_rentals/history": [0, null, null],
  "fashion_marketplace/products": [1, null, 1 * D],
  "fashion_marketplace/listing": [20, 20, null],
  "fashion_marketplace/search": [20, 20, null],
  "fashion_marketplace/history": [0, null, null],
  "storefronts/products": [25, 25, 1 * D],
  "storefronts/history": [0, null, null],
  "explore/sources": [0, null, null],
  "explore/schema": [0, null, null],
  "explore/run": [1, 10, null],
  "contacts/reveal": [105, null, null]
}

const published = Catalogue.publish()
const allOps = Catalogue.platforms.flatMap((p) => p.ops)

const validSubject = Samples.subject
const minimalFor = (op: Catalogue.OpDef): Json => {
  const request = Samples.minimal(op)
  // explore: any source name decodes; whether it exists is the upstream's business
  return request
}

const decode = (platform: string, request: Json) =>
  Effect.runSync(Effect.either(Requests.decode(platform, { request })))

const rejects = (platform: string, request: Json, path: string) => {
  const r = decode(platform, request)
  assert.isTrue(Either.isLeft(r), `expected ${path} to be rejected in ${JSON.stringify(request).slice(0, 200)}`)
  const e = (r as Either.Left<Requests.InvalidRequest, unknown>).left
  assert.strictEqual(e._tag, "InvalidRequest")
  const paths = e.details.map((d) => d.path)
  assert.isTrue(
    paths.some((p) => p === path || p.startsWith(`${path}[`) || p.startsWith(`${path}.`)),
    `expected a problem at ${path}, got ${JSON.stringify(e.details)}`
  )
}

describe("Catalogue", () => {
  it("D13: 16 platforms and 70 ops, each with the specification's starting price, rows and window", () => {
    assert.strictEqual(Catalogue.platforms.length, 16)
    assert.strictEqual(allOps.length, 70)
    const seen = new Set<string>()
    for (const p of published) {
      for (const o of p.ops) {
        const key = `${p.platform}/${o.op}`
        seen.add(key)
        const expected = spec[key]
        assert.isDefined(expected, `${key} is not in the specification`)
        assert.deepStrictEqual([o.price.startingPrice, o.price.rows, o.freshnessSeconds], expected, key)
      }
    }
    assert.deepStrictEqual([...seen].sort(), Object.keys(spec).sort())
  })

  it("D1, D11: price rules, availability and history metrics", () => {
    const rule = (k: string) => {
      const [platform, op] = k.split("/") as [string, string]
      return Catalogue.findOp(platform, op)!
    }
    assert.strictEqual(rule("web_search/search").price._tag, "PerPage")
    assert.deepStrictEqual(rule("jobs_in/search").price, {
      _tag: "MinimumRows",
      credits: 97,
      rows: 50,
      minimum: 50
    } as never)
    assert.deepStrictEqual((rule("contacts/reveal").price as { parts: unknown }).parts, { email: 18, phone: 87 })
    assert.isFalse(rule("explore/sources").available)
    assert.isFalse(rule("explore/schema").available)
    assert.isTrue(rule("explore/run").available)
    assert.deepStrictEqual(rule("maps/history").metrics, ["rating", "reviews", "live_occupancy_percent"])
    for (const o of allOps) if (o.name === "history") assert.strictEqual(o.price._tag, "Free")
  })

  describe("each op's minimal request decodes with the specified defaults", () => {
    for (const op of allOps) {
      it(`${op.platform} ${op.name}`, () => {
        const schema = Catalogue.requestJsonSchema(op) as unknown as Json
        const properties = schema["properties"] as Record<string, Json>
        const r = decode(op.platform, minimalFor(op))
        assert.isTrue(Either.isRight(r), JSON.stringify(Either.isLeft(r) ? r.left : null))
        const request = (r as Either.Right<never, Requests.Call>).right.request
        for (const [field, prop] of Object.entries(properties)) {
          if ("default" in prop) assert.deepStrictEqual(request[field], prop["default"], `${field} default`)
        }
      })
    }
  })

  describe("each op refuses every field outside its bounds, naming the path", () => {
    for (const op of allOps) {
      it(`${op.platform} ${op.name}`, () => {
        const minimal = minimalFor(op)
        const schema = Catalogue.requestJsonSchema(op) as unknown as Json
        const required = (schema["required"] as Array<string>) ?? []
        const check = (prefix: string, props: Record<string, Json>, place: (v: unknown, f: string) => Json) => {
          for (const [field, prop] of Object.entries(props)) {
            if (field === "op") continue
            const path = `${prefix}.${field}`
            const type = prop["type"]
            if (type === "integer" || type === "number") {
              const min = prop["minimum"] as number | undefined
              const max = prop["maximum"] as number | undefined
              if (min !== undefined) rejects(op.platform, place(min - 1, field), path)
              if (max !== undefined && max < Number.MAX_SAFE_INTEGER) rejects(op.platform, place(max + 1, field), path)
              if (type === "integer") rejects(op.platform, place((min ?? 0) + 0.5, field), path)
              rejects(op.platform, place("7", field), path)
            }
            if (Array.isArray(prop["enum"])) rejects(op.platform, place("__not_an_option__", field), path)
            if (type === "string" && typeof prop["maxLength"] === "number") {
              rejects(op.platform, place("a".repeat((prop["maxLength"] as number) + 1), field), path)
            }
            if (type === "array" && field !== "subjects") {
              const items = prop["items"] as Json | undefined
              if (items && Array.isArray(items["enum"])) rejects(op.platform, place(["__not_an_option__"], field), path)
              if (items && items["type"] === "string" && typeof items["maxLength"] === "number") {
                rejects(op.platform, place(["a".repeat((items["maxLength"] as number) + 1)], field), path)
              }
              if (items && items["type"] === "integer") rejects(op.platform, place([99], field), path)
            }
          }
        }
        const properties = schema["properties"] as Record<string, Json>
        check("request", properties, (v, f) => ({ ...minimal, [f]: v }))
        for (const nested of ["stay"]) {
          const props = properties[nested]?.["properties"] as Record<string, Json> | undefined
          if (props) check(`request.${nested}`, props, (v, f) => ({ ...minimal, [nested]: { [f]: v } }))
        }
        for (const field of required) {
          if (field === "op") continue
          const { [field]: _, ...without } = minimal
          rejects(op.platform, without, `request.${field}`)
        }
        rejects(op.platform, { ...minimal, unexpectedField: 1 }, "request.unexpectedField")
        if (op.units === "subjects") {
          const max = (properties["subjects"]!["maxItems"] as number) ?? 10
          rejects(op.platform, { ...minimal, subjects: [] }, "request.subjects")
          rejects(
            op.platform,
            { ...minimal, subjects: Array.from({ length: max + 1 }, (_, i) => validSubject(op, i)) },
            "request.subjects"
          )
          const ok = decode(op.platform, {
            ...minimal,
            subjects: Array.from({ length: max }, (_, i) => validSubject(op, i))
          })
          assert.isTrue(Either.isRight(ok), `${max} subjects must be accepted`)
          rejects(op.platform, { ...minimal, subjects: ["bad subject with spaces"] }, "request.subjects[0]")
          rejects(
            op.platform,
            { ...minimal, subjects: [`https://x.example/${"a".repeat(400)}`] },
            "request.subjects[0]"
          )
        }
        if (op.units === "subject")
          rejects(op.platform, { ...minimal, subject: "bad subject with spaces" }, "request.subject")
      })
    }
  })

  it("D14: short_video searchPosts takes exactly one of query, hashtag, soundUrl", () => {
    rejects("short_video", { op: "searchPosts" }, "request")
    rejects("short_video", { op: "searchPosts", query: "a", hashtag: "b" }, "request.hashtag")
    assert.isTrue(Either.isRight(decode("short_video", { op: "searchPosts", hashtag: "fyp" })))
  })

  it("the minimal example of an exactly-one-of op gives the first alternative not refused by the upstream serving it", () => {
    const op = Catalogue.findOp("short_video", "searchPosts")!
    const pick = (refuses: ReadonlyArray<string>) =>
      Object.keys(Samples.minimal(op, "known", undefined, [], refuses)).filter((k) => k !== "op" && k !== "limit")
    assert.deepStrictEqual(pick([]), ["query"])
    assert.deepStrictEqual(pick(["soundUrl"]), ["query"])
    assert.deepStrictEqual(pick(["query"]), ["hashtag"])
    assert.deepStrictEqual(pick(["query", "hashtag"]), ["soundUrl"])
    for (const refuses of [[], ["query"], ["query", "hashtag"]])
      assert.isTrue(Either.isRight(decode("short_video", Samples.minimal(op, "known", undefined, [], refuses))))
  })

  it("D3: the store locator is storeId, pincode with city, or lat with lon", () => {
    const base = { op: "products", subjects: ["https://qc-a.example/p/milk-1"] }
    for (const store of [{ storeId: "s1" }, { pincode: "560001", city: "Bengaluru" }, { lat: 12.9, lon: 77.6 }]) {
      assert.isTrue(Either.isRight(decode("quick_commerce_a", { ...base, store })), JSON.stringify(store))
    }
    rejects("quick_commerce_a", { ...base, store: { pincode: "560001" } }, "request.store.city")
    rejects("quick_commerce_a", { ...base, store: { lat: 12.9 } }, "request.store.lon")
    rejects("quick_commerce_a", { ...base, store: {} }, "request.store")
    rejects("quick_commerce_a", { ...base, store: { storeId: "s1", lat: 1, lon: 2 } }, "request.store")
    rejects("quick_commerce_a", { ...base, store: { lat: 91, lon: 0 } }, "request.store.lat")
  })

  it("D14: the three stay variants have their own members, defaults and bounds", () => {
    const rentals = decode("home_rentals", { op: "listings", subjects: ["12345"] })
    assert.deepStrictEqual((rentals as Either.Right<never, Requests.Call>).right.request["stay"], {
      currency: "USD",
      adults: 2,
      children: 0,
      infants: 0,
      pets: 0,
      locale: "en-US"
    })
    const lodging = decode("lodging_booking", { op: "properties", subjects: ["https://l.example/hotel/a"] })
    assert.deepStrictEqual((lodging as Either.Right<never, Requests.Call>).right.request["stay"], {
      currency: "USD",
      language: "en-GB"
    })
    const travel = decode("travel_reviews", { op: "hotels", subjects: ["https://t.example/h"] })
    const tr = (travel as Either.Right<never, Requests.Call>).right.request
    assert.deepStrictEqual([tr["stay"], tr["language"], tr["currency"]], [{}, "en", "USD"])
    rejects(
      "travel_reviews",
      { op: "hotels", subjects: ["https://t.example/h"], stay: { adults: 2 } },
      "request.stay.adults"
    )
    rejects(
      "lodging_booking",
      { op: "properties", subjects: ["https://l.example/h"], stay: { pets: 1 } },
      "request.stay.pets"
    )
    rejects(
      "home_rentals",
      { op: "listings", subjects: ["1234"], stay: { checkIn: "2026-12-10", checkOut: "2026-12-09" } },
      "request.stay.checkOut"
    )
    rejects(
      "home_rentals",
      { op: "listings", subjects: ["1234"], stay: { checkIn: "2026-02-30", checkOut: "2026-03-02" } },
      "request.stay.checkIn"
    )
    rejects("home_rentals", { op: "listings", subjects: ["1234"], stay: { currency: "usd" } }, "request.stay.currency")
    rejects(
      "lodging_booking",
      { op: "properties", subjects: ["https://l.example/h"], stay: { language: "english!" } },
      "request.stay.language"
    )
  })

  it("formats: jobs_in experience and numeric ids, alpha-2 countries, dates", () => {
    for (const experience of ["all", 0, 23, "7"]) {
      assert.isTrue(Either.isRight(decode("jobs_in", { op: "search", query: "dev", experience })), String(experience))
    }
    for (const experience of [24, -1, "24", "some", 1.5])
      rejects("jobs_in", { op: "search", query: "dev", experience }, "request.experience")
    rejects("jobs_in", { op: "search", query: "dev", department: ["12a"] }, "request.department[0]")
    rejects("jobs_in", { op: "search", query: "dev", department: ["1".repeat(21)] }, "request.department[0]")
    rejects("jobs_in", { op: "search", query: "dev", salaryMin: 10, salaryMax: 5 }, "request.salaryMax")
    rejects("web_search", { op: "search", query: "q", country: "USA" }, "request.country")
    rejects("web_search", { op: "search", query: "q", since: "2026-13-01" }, "request.since")
    rejects("web_search", { op: "search", query: "q", since: "2026-05-02", until: "2026-05-01" }, "request.until")
  })

  it("D5: unknown platform, unknown op and a malformed envelope are told apart", () => {
    const unknownPlatform = Effect.runSync(Effect.either(Requests.decode("nope", { request: { op: "x" } })))
    assert.strictEqual(Either.isLeft(unknownPlatform) && unknownPlatform.left._tag, "UnknownPlatform")
    const unknownOp = Effect.runSync(Effect.either(Requests.decode("maps", { request: { op: "teleport" } })))
    assert.strictEqual(Either.isLeft(unknownOp) && unknownOp.left._tag, "UnknownOp")
    for (const body of [
      null,
      [],
      "x",
      {},
      { request: 1 },
      { request: {} },
      { request: { op: 1 } },
      { request: { op: "places", subjects: ["ChIJabcdefghijkl"] }, estimateOnly: "yes" }
    ]) {
      const r = Effect.runSync(Effect.either(Requests.decode("maps", body)))
      assert.strictEqual(Either.isLeft(r) && r.left._tag, "InvalidRequest", JSON.stringify(body))
    }
  })

  it("D13: every op publishes a JSON Schema generated from its validating Schema", () => {
    for (const p of published) {
      for (const o of p.ops) {
        const s = o.requestSchema as unknown as Json
        assert.strictEqual(s["type"], "object")
        assert.deepStrictEqual((s["properties"] as Json)["op"], { type: "string", enum: [o.op] })
        assert.strictEqual(s["additionalProperties"], false)
      }
    }
  })
})
