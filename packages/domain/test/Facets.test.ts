// The typed facets of an op: what the core reads from a decoded request, by the op's own declared fields.
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { Catalogue, Requests } from "../src/index.js"

const decoded = (platform: string, request: Record<string, unknown>) =>
  Effect.runSync(Requests.decode(platform, { request }))

describe("Facets", () => {
  it("the coverage label of a query unit is the op's own query field", () => {
    const label = (platform: string, request: Record<string, unknown>) => {
      const call = decoded(platform, request)
      return call.op.facets.label(call.request)
    }
    assert.strictEqual(label("maps", { op: "search", query: "cafes", location: "Pune" }), "cafes")
    assert.strictEqual(label("short_video", { op: "searchPosts", hashtag: "food" }), "food")
    assert.strictEqual(
      label("quick_commerce_a", { op: "category", category: "Dairy", subCategory: "Milk", store: { storeId: "s1" } }),
      "Dairy / Milk"
    )
    assert.strictEqual(label("lodging_booking", { op: "search", location: "Goa" }), "Goa")
    assert.strictEqual(label("explore", { op: "run", source: "synthetic/app-charts" }), "synthetic/app-charts")
  })

  it("subjects, rows asked, store, priced stay, explore source and contact parts", () => {
    const places = decoded("maps", { op: "places", subjects: ["ChIJabcdefghijkl", "ChIJabcdefghijkl"] })
    assert.deepStrictEqual(places.op.facets.subjects(places.request), ["ChIJabcdefghijkl"])
    assert.strictEqual(places.op.facets.asked(places.request), 1)
    const web = decoded("web_search", { op: "search", query: "x", pages: 3 })
    assert.strictEqual(web.op.facets.asked(web.request), 3)
    const qc = decoded("quick_commerce_a", { op: "search", query: "milk", store: { pincode: "110001", city: "Delhi" } })
    assert.deepStrictEqual(qc.op.facets.store(qc.request), { pincode: "110001", city: "Delhi" })
    assert.strictEqual(qc.op.scope, "store")
    const unpriced = decoded("home_rentals", { op: "listings", subjects: ["12345"] })
    assert.isNull(unpriced.op.facets.pricedStay(unpriced.request))
    const priced = decoded("home_rentals", {
      op: "listings",
      subjects: ["12345"],
      stay: { checkIn: "2027-01-01", checkOut: "2027-01-03" }
    })
    assert.strictEqual(priced.op.facets.pricedStay(priced.request)?.["checkIn"], "2027-01-01")
    const run = decoded("explore", { op: "run", source: "a/b" })
    assert.strictEqual(run.op.facets.source(run.request), "a/b")
    assert.isUndefined(places.op.facets.source(places.request))
    assert.deepStrictEqual(run.op.facets.sourceInput(run.request), {}, "the default input")
    const withInput = decoded("explore", { op: "run", source: "a/b", input: { q: 1 } })
    assert.deepStrictEqual(withInput.op.facets.sourceInput(withInput.request), { q: 1 })
    assert.deepStrictEqual(places.op.facets.sourceInput(places.request), {})
    const reveal = decoded("contacts", { op: "reveal", subjects: ["jane"], reveal: ["email", "email"] })
    assert.deepStrictEqual(reveal.op.facets.parts(reveal.request), ["email"])
    assert.deepStrictEqual(places.op.facets.parts(places.request), [])
    for (const op of Catalogue.platforms.flatMap((p) => p.ops)) assert.isFunction(op.facets.label)
  })
})
