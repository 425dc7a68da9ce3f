// Issue 20 / D3 per op: quick_commerce_a (Blinkit) and quick_commerce_b (Zepto) search through the provider. Each
// shipped search mapping maps its actor's recorded-shape items (test/fixtures/provider/<actor>.json, built from the
// actor's documented output) to rows the op's row Schema accepts, with what the actor does not measure null (D38).
// Stores are resolved per op: the provider resolves the locator forms an op's mapping takes, as given and
// canonicalised, never a form its actor does not take; the actor is given the locator as resolved and each row
// carries that store. Products and category stay unmapped, each with why.
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import type { Upstream } from "@pdr/domain"
import { Effect, Either, Option, Redacted } from "effect"
import * as Mapping from "../src/Mapping.js"
import * as ProviderCatalogue from "../src/ProviderCatalogue.js"
import * as ProviderUpstream from "../src/ProviderUpstream.js"
import { decodeRow, delivered, policy, run, unit } from "./support/Adapters.js"
import { mapped, recorded } from "./support/Catalogue.js"
import * as Fixtures from "./support/Fixtures.js"

const byPincode = "fixture~qc-pincode"
const byGeo = "fixture~qc-geo"

const settings = (url: string, ops: Record<string, unknown>): ProviderUpstream.Settings => ({
  url,
  token: Redacted.make(Fixtures.credentials.providerToken),
  ops: Either.getOrThrow(Mapping.decodeMappings(ops, "test")),
  explore: [],
  usdPerCredit: 0.001,
  waitSeconds: 1
})

let host: Awaited<ReturnType<typeof Fixtures.provider>>
let adapter: Upstream.Adapter

beforeAll(async () => {
  host = await Fixtures.provider({
    items: 1,
    datasets: { [byPincode]: [Fixtures.quickCommerceItem], [byGeo]: [Fixtures.quickCommerceItem] }
  })
  adapter = ProviderUpstream.make(
    await policy(),
    settings(host.url, {
      ...Fixtures.quickCommerceJson("quick_commerce_a", byPincode, "pincode"),
      ...Fixtures.quickCommerceJson("quick_commerce_b", byGeo, "geo")
    })
  )
})
afterAll(() => host.close())

const resolve = (a: Upstream.Adapter, platform: string, locator: Record<string, unknown>, op = "search") =>
  Effect.runPromise(Effect.either(a.resolveStore!(platform, op, locator)))

describe("quick-commerce through the provider", () => {
  it("quick_commerce_a.search (automation-lab~blinkit-category-products-scraper): rank, pack size, stock; unmeasured values null; the store asked", () => {
    const { rows, errors } = mapped("quick_commerce_a.search")
    assert.deepStrictEqual(errors, [])
    const at = { discountPct: null, rating: null, ratingCount: null, store: "geo:12.9716,77.5946" }
    assert.deepStrictEqual(rows, [
      {
        rank: 1,
        name: "Amul Taaza Toned Fresh Milk",
        brand: "Amul",
        packSize: "500 ml",
        price: 28,
        mrp: 29,
        inStock: true,
        stockCount: 18,
        ...at
      },
      {
        rank: 2,
        name: "Mother Dairy Toned Milk",
        brand: "Mother Dairy",
        packSize: "1 ltr",
        price: 56,
        mrp: 56,
        inStock: false,
        stockCount: 0,
        ...at
      }
    ])
    const m = ProviderCatalogue.mappings["quick_commerce_a.search"]!
    const u = unit("quick_commerce_a", "search", { query: "milk", store: { lat: 28.5654, lon: 77.3827 }, limit: 30 })
    assert.deepStrictEqual(Mapping.input(m.input, u), {
      searchQueries: ["milk"],
      locations: [{ latitude: 28.5654, longitude: 77.3827 }],
      maxItems: 30
    })
    assert.deepStrictEqual(ProviderUpstream.formsOf(m), ["latLon"])
  })

  it("quick_commerce_b.search (ikmal_suzali_atr~rank-zepto): position as rank, sponsored slots kept; pack size and ratings null; a pincode or a location", () => {
    const { rows, errors } = mapped("quick_commerce_b.search", {}, "pincode:122002")
    assert.deepStrictEqual(errors, [])
    const at = { packSize: null, discountPct: null, rating: null, ratingCount: null, store: "pincode:122002" }
    assert.deepStrictEqual(rows, [
      {
        rank: 1,
        name: "Aashirvaad Shudh Chakki Atta",
        brand: "Aashirvaad",
        price: 245,
        mrp: 290,
        inStock: true,
        stockCount: 12,
        ...at
      },
      {
        rank: 2,
        name: "Fortune Chakki Fresh Atta",
        brand: "Fortune",
        price: 219,
        mrp: 265,
        inStock: false,
        stockCount: 0,
        ...at
      }
    ])
    const m = ProviderCatalogue.mappings["quick_commerce_b.search"]!
    const input = (store: Record<string, unknown>) =>
      Mapping.input(m.input, unit("quick_commerce_b", "search", { query: "atta", store }))
    // the form given, and only it: the other's list is left out, never sent empty or with a null location
    assert.deepStrictEqual(input({ pincode: "122002", city: "Gurugram" }), { keywords: ["atta"], pincodes: ["122002"] })
    assert.deepStrictEqual(input({ lat: 28.4595, lon: 77.0266 }), {
      keywords: ["atta"],
      locations: [{ lat: 28.4595, lon: 77.0266 }]
    })
    assert.deepStrictEqual(ProviderUpstream.formsOf(m), ["pincode", "latLon"])
  })

  it("products and category stay unmapped, each naming the actors checked and what is missing; search is no longer", () => {
    /** Per op: the actors its reason must name, and what it must say is missing. */
    const checked: Record<string, { actors: ReadonlyArray<string>; missing: RegExp }> = {
      products: {
        actors: [
          "upscrape~blinkit-product-details-scraper",
          "ikmal_suzali_atr~blinkit-details",
          "ikmal_suzali_atr~zepto-details",
          "zapticx~blinkit-products-prices-scraper",
          "parsebird~zepto-product-scraper",
          "sharath1036~blinkit-product-scraper",
          "123webdata~blinkit-scraper"
        ],
        missing: /no actor documents a product card by product URL at one store with its output fields and price/
      },
      category: {
        actors: [
          "mindcase-co~blinkit-products-scraper",
          "~zepto-products-scraper",
          "upscrape~blinkit-category-scraper",
          "ikmal_suzali_atr~blinkit-catalog",
          "clearpath~flipkart-minutes-scraper"
        ],
        missing: /no actor documents a listing of a category and sub-category named as in the app's menu/
      }
    }
    for (const app of ["quick_commerce_a", "quick_commerce_b"]) {
      assert.property(ProviderCatalogue.mappings, `${app}.search`)
      assert.notProperty(ProviderCatalogue.unmapped, `${app}.search`)
      for (const [op, { actors, missing }] of Object.entries(checked)) {
        const key = `${app}.${op}`
        assert.notProperty(ProviderCatalogue.mappings, key)
        const why = ProviderCatalogue.unmapped[key] ?? ""
        for (const actor of actors) assert.include(why, actor, key)
        assert.match(why, missing, key)
        assert.match(why, /stays on its default route/, key)
        assert.match(why, /explore run/, key)
        assert.notMatch(why, /served whole by one adapter/, key)
      }
    }
  })

  it("the shipped search mappings, per op: the forms each actor takes resolve as given, any other form to no store", async () => {
    const a = ProviderUpstream.make(await policy(), { ...settings(host.url, {}), ops: ProviderCatalogue.mappings })
    assert.deepStrictEqual(
      await resolve(a, "quick_commerce_a", { lat: 28.5653836, lon: 77.3826511 }),
      Either.right(Option.some("geo:28.5654,77.3827"))
    )
    assert.deepStrictEqual(
      await resolve(a, "quick_commerce_a", { pincode: "560001", city: "Bengaluru" }),
      Either.right(Option.none())
    )
    assert.deepStrictEqual(await resolve(a, "quick_commerce_a", { storeId: "blr-001" }), Either.right(Option.none()))
    assert.deepStrictEqual(await resolve(a, "quick_commerce_b", { storeId: "blr-001" }), Either.right(Option.none()))
    assert.deepStrictEqual(
      await resolve(a, "quick_commerce_b", { pincode: "122002", city: "Gurugram" }),
      Either.right(Option.some("pincode:122002"))
    )
    assert.deepStrictEqual(a.storeForms?.("quick_commerce_a", "search"), ["latLon"])
    assert.deepStrictEqual(a.storeForms?.("quick_commerce_b", "search"), ["pincode", "latLon"])
    // an op without a mapping is never resolved by the provider (the router keeps it on its own route)
    assert.deepStrictEqual(a.storeForms?.("quick_commerce_a", "products"), [])
    const products = await resolve(a, "quick_commerce_a", { lat: 1, lon: 2 }, "products")
    assert.isTrue(Either.isLeft(products))
    if (Either.isLeft(products)) assert.match(products.left.detail, /no mapping for quick_commerce_a\.products/)
  })

  it("a search at lat/lon through the shipped Blinkit mapping: the actor is given the rounded coordinates, the rows that store", async () => {
    const blinkit = "automation-lab~blinkit-category-products-scraper"
    const local = await Fixtures.provider({ items: 2, datasets: { [blinkit]: recorded(blinkit) } })
    try {
      const a = ProviderUpstream.make(await policy(), { ...settings(local.url, {}), ops: ProviderCatalogue.mappings })
      const u = unit("quick_commerce_a", "search", {
        query: "milk",
        store: { lat: 28.5653836, lon: 77.3826511 },
        limit: 2
      })
      const store = Option.getOrThrow(
        Either.getOrThrow(await resolve(a, "quick_commerce_a", u.request["store"] as Record<string, unknown>))
      )
      const d = delivered((await run(a.fetch({ ...u, store }))).result)
      assert.deepStrictEqual(local.started.at(-1)!.input, {
        searchQueries: ["milk"],
        locations: [{ latitude: 28.5654, longitude: 77.3827 }],
        maxItems: 2
      })
      assert.deepStrictEqual(
        d.rows.map((r) => [r["rank"], r["store"], r["rating"]]),
        [
          [1, "geo:28.5654,77.3827", null],
          [2, "geo:28.5654,77.3827", null]
        ]
      )
      for (const row of d.rows) decodeRow("quick_commerce_a", "search", row)
    } finally {
      await local.close()
    }
  })

  it("a pincode its actors take is the store as given; a form they do not take resolves to no store", async () => {
    assert.deepStrictEqual(
      await resolve(adapter, "quick_commerce_a", { pincode: "560001", city: "Bengaluru" }),
      Either.right(Option.some("pincode:560001"))
    )
    assert.deepStrictEqual(
      await resolve(adapter, "quick_commerce_a", { lat: 12.9716, lon: 77.5946 }),
      Either.right(Option.none())
    )
    assert.deepStrictEqual(
      await resolve(adapter, "quick_commerce_a", { storeId: "blr-001" }),
      Either.right(Option.none())
    )
  })

  it("lat/lon its actors take is the store at 4 decimals (about 11 m); a pincode there resolves to no store", async () => {
    assert.deepStrictEqual(
      await resolve(adapter, "quick_commerce_b", { lat: 12.971649, lon: 77.594563 }),
      Either.right(Option.some("geo:12.9716,77.5946"))
    )
    assert.deepStrictEqual(
      await resolve(adapter, "quick_commerce_b", { lat: 12.97155, lon: -0.00001 }),
      Either.right(Option.some("geo:12.9716,0.0000"))
    )
    assert.deepStrictEqual(
      await resolve(adapter, "quick_commerce_b", { pincode: "560001", city: "Bengaluru" }),
      Either.right(Option.none())
    )
  })

  it("per op: each op the forms of its own mapping, history those of the ops writing its points; no mapping fails, never guessed", async () => {
    const mixed = ProviderUpstream.make(
      await policy(),
      settings(host.url, {
        ...Fixtures.quickCommerceJson("quick_commerce_a", byPincode, "pincode"),
        "quick_commerce_a.search": Fixtures.quickCommerceJson("quick_commerce_a", byGeo, "geo")[
          "quick_commerce_a.search"
        ]
      })
    )
    const pincode = { pincode: "560001", city: "Bengaluru" }
    const geo = { lat: 1, lon: 2 }
    assert.deepStrictEqual(await resolve(mixed, "quick_commerce_a", pincode), Either.right(Option.none()))
    assert.deepStrictEqual(
      await resolve(mixed, "quick_commerce_a", geo),
      Either.right(Option.some("geo:1.0000,2.0000"))
    )
    for (const op of ["products", "category", "history"]) {
      assert.deepStrictEqual(
        await resolve(mixed, "quick_commerce_a", pincode, op),
        Either.right(Option.some("pincode:560001")),
        op
      )
      assert.deepStrictEqual(await resolve(mixed, "quick_commerce_a", geo, op), Either.right(Option.none()), op)
    }
    const none = await resolve(mixed, "quick_commerce_b", pincode)
    assert.isTrue(Either.isLeft(none))
    if (Either.isLeft(none)) assert.match(none.left.detail, /no mapping for quick_commerce_b\.search/)
  })

  it("search at a pincode: the actor is given the pincode, each row carries the resolved store", async () => {
    const u = unit("quick_commerce_a", "search", {
      query: "atta",
      store: { pincode: "560001", city: "Bengaluru" },
      limit: 20
    })
    const d = delivered((await run(adapter.fetch({ ...u, store: "pincode:560001" }))).result)
    assert.deepStrictEqual(host.started.at(-1)!.input, { keyword: "atta", maxItems: 20, pincode: "560001" })
    assert.deepStrictEqual(d.rows, [
      {
        rank: 1,
        name: "Aashirvaad Whole Wheat Atta",
        brand: "Aashirvaad",
        packSize: "5 kg",
        price: 245,
        mrp: 290,
        discountPct: 15.5,
        inStock: true,
        stockCount: 12,
        rating: 4.4,
        ratingCount: 1532,
        store: "pincode:560001"
      }
    ])
    for (const row of d.rows) decodeRow("quick_commerce_a", "search", row)
  })

  it("a product at lat/lon: the actor is given the coordinates the store identity has, the row that store", async () => {
    const url = "https://app-b.example/pn/aashirvaad-atta/pvid/8c1e"
    const u = unit("quick_commerce_b", "products", { subjects: [url], store: { lat: 12.971649, lon: 77.594563 } }, url)
    const store = Option.getOrThrow(
      Either.getOrThrow(await resolve(adapter, "quick_commerce_b", u.request["store"] as Record<string, unknown>))
    )
    const d = delivered((await run(adapter.fetch({ ...u, store }))).result)
    assert.deepStrictEqual(host.started.at(-1)!.input, {
      productUrls: [url],
      latitude: 12.9716,
      longitude: 77.5946
    })
    assert.strictEqual(d.rows.length, 1)
    assert.strictEqual(d.rows[0]!["store"], "geo:12.9716,77.5946")
    decodeRow("quick_commerce_b", "products", d.rows[0])
  })
})
