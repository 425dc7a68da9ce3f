// Issue 20 / D3: quick_commerce_a and quick_commerce_b through the provider. No mapping is shipped: a store-scoped
// platform is served whole by one adapter (Upstreams.test.ts: two of three ops mapped stay synthetic), and no app has
// documented actors for all three ops at one store locator (QuickCommerce.ts names the pages read and what each
// lacks; above all, no actor taking category names documents its output). The provider resolves the store locators an
// operator's mappings take, as given and canonicalised, never a form its actors do not take; the actor is given the
// locator as resolved and each row carries the store.
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import type { Upstream } from "@pdr/domain"
import { Effect, Either, Option, Redacted } from "effect"
import * as Mapping from "../src/Mapping.js"
import * as ProviderCatalogue from "../src/ProviderCatalogue.js"
import * as ProviderUpstream from "../src/ProviderUpstream.js"
import { decodeRow, delivered, policy, run, unit } from "./support/Adapters.js"
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

const resolve = (a: Upstream.Adapter, platform: string, locator: Record<string, unknown>) =>
  Effect.runPromise(Effect.either(a.resolveStore!(platform, locator)))

describe("quick-commerce through the provider", () => {
  it("no shipped mapping: each op names the actors checked and what keeps its app from being served whole", () => {
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
      search: {
        actors: [
          "automation-lab~blinkit-category-products-scraper",
          "ikmal_suzali_atr~rank-zepto",
          "upscrape~blinkit-product-search-scraper",
          "krazee_kaushik~zepto-scraper",
          "solidcode~zepto-scraper"
        ],
        missing: /a search mapping alone would never be served/
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
    for (const app of ["quick_commerce_a", "quick_commerce_b"])
      for (const [op, { actors, missing }] of Object.entries(checked)) {
        const key = `${app}.${op}`
        assert.notProperty(ProviderCatalogue.mappings, key)
        const why = ProviderCatalogue.unmapped[key] ?? ""
        for (const actor of actors) assert.include(why, actor, key)
        assert.match(why, missing, key)
        assert.match(why, /served whole by one adapter/, key)
        // why a split app would answer wrongly (D3), and where the documented actors are reachable
        assert.match(why, /another store's prices/, key)
        assert.match(why, /explore run/, key)
        assert.notMatch(why, /resolves no .*stores/, key)
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

  it("only a form every mapped op of the platform takes; a platform without mappings fails, never guessed", async () => {
    const mixed = ProviderUpstream.make(
      await policy(),
      settings(host.url, {
        ...Fixtures.quickCommerceJson("quick_commerce_a", byPincode, "pincode"),
        "quick_commerce_a.search": Fixtures.quickCommerceJson("quick_commerce_a", byGeo, "geo")[
          "quick_commerce_a.search"
        ]
      })
    )
    assert.deepStrictEqual(
      await resolve(mixed, "quick_commerce_a", { pincode: "560001", city: "Bengaluru" }),
      Either.right(Option.none())
    )
    assert.deepStrictEqual(await resolve(mixed, "quick_commerce_a", { lat: 1, lon: 2 }), Either.right(Option.none()))
    const none = await resolve(mixed, "quick_commerce_b", { pincode: "560001", city: "Bengaluru" })
    assert.isTrue(Either.isLeft(none))
    if (Either.isLeft(none)) assert.match(none.left.detail, /no mapping for quick_commerce_b/)
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
