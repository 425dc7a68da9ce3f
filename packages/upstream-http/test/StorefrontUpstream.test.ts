// D15 / issue 10: the native storefront adapter through the real HttpClient against a loopback products.json host.
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import * as StorefrontUpstream from "../src/StorefrontUpstream.js"
import { decodeRow, delivered, failed, policy, run, tight, unit } from "./support/Adapters.js"
import * as Fixtures from "./support/Fixtures.js"

let host: Fixtures.Fixture
let adapter: ReturnType<typeof StorefrontUpstream.make>

const stores = [
  "shop",
  "shop-7",
  "empty",
  "missing",
  "private",
  "html",
  "malformed",
  "wrongshape",
  "ratelimited",
  "flaky",
  "hang",
  "down",
  "loop-40",
  "again-40"
]
const fetchStore = (store: string, limit = 25, through = adapter) =>
  run(
    through.fetch(
      unit(
        "storefronts",
        "products",
        { subjects: [`https://${store}.shop.example`], limit },
        `https://${store}.shop.example`
      )
    )
  )

beforeAll(async () => {
  host = await Fixtures.storefront()
  const origins = Object.fromEntries(stores.map((s) => [`https://${s}.shop.example`, `${host.url}/${s}`]))
  adapter = StorefrontUpstream.make(await policy(), { origins, pageSize: 10 })
})
afterAll(() => host.close())

describe("StorefrontUpstream", () => {
  it("pages with limit and page until the rows asked, mapped to the rows.md row and the store's point", async () => {
    const { result } = await fetchStore("shop", 25)
    const d = delivered(result)
    assert.strictEqual(d.rows.length, 25)
    assert.strictEqual(d.source, "storefront")
    assert.isFalse(d.exhaustive)
    assert.strictEqual(host.hits.get("/shop/products.json"), 3, "three pages of 10")
    for (const row of d.rows) decodeRow("storefronts", "products", row)
    const first = d.rows[0]!
    const recorded = Fixtures.products("shop", 1)[0]!
    assert.strictEqual(first["productId"], String(recorded.id))
    assert.strictEqual(first["url"], `https://shop.shop.example/products/${recorded.handle}`)
    assert.strictEqual(first["priceFrom"], Number(recorded.variants[0]!["price"]))
    assert.strictEqual(first["priceTo"], Number(recorded.variants[1]!["price"]))
    assert.deepStrictEqual(
      d.rows.map((r) => r["position"]),
      Array.from({ length: 25 }, (_, i) => i + 1)
    )
    const point = d.points[0]!
    assert.strictEqual(point.subject, "https://shop.shop.example")
    assert.strictEqual(point.metrics["price_from"], Math.min(...d.rows.map((r) => Number(r["priceFrom"]))))
    assert.strictEqual(point.metrics["price_to"], Math.max(...d.rows.map((r) => Number(r["priceTo"]))))
    assert.strictEqual(point.metrics["in_stock"], d.rows.filter((r) => r["inStock"]).length)
    assert.strictEqual(
      point.metrics["variant_count"],
      d.rows.reduce((n, r) => n + Number(r["variantCount"]), 0)
    )
  })

  it("an origin pattern maps any store of a domain to the fixture host", async () => {
    const a = StorefrontUpstream.make(await policy(), {
      origins: { "https://*.any.example": `${host.url}/*` },
      pageSize: 250
    })
    const d = delivered(
      (
        await run(
          a.fetch(
            unit("storefronts", "products", { subjects: ["https://shop-3.any.example"] }, "https://shop-3.any.example")
          )
        )
      ).result
    )
    assert.strictEqual(d.rows.length, 3)
    assert.strictEqual(d.rows[0]!["url"], `https://shop-3.any.example/products/${Fixtures.products("x", 1)[0]!.handle}`)
  })

  it("a store with fewer products than asked is exhaustive", async () => {
    const d = delivered((await fetchStore("shop-7", 25)).result)
    assert.strictEqual(d.rows.length, 7)
    assert.isTrue(d.exhaustive)
  })

  it("an empty store delivers no rows and no point", async () => {
    const d = delivered((await fetchStore("empty")).result)
    assert.deepStrictEqual([d.rows.length, d.points.length, d.exhaustive], [0, 0, true])
  })

  it("404 is not_found, 403 is not_found, a web page is invalid_subject (nothing billed for either)", async () => {
    const missing = (await fetchStore("missing")).result
    assert.isTrue(missing._tag === "Right" && missing.right._tag === "NotFound")
    const locked = (await fetchStore("private")).result
    assert.isTrue(locked._tag === "Right" && locked.right._tag === "NotFound")
    const html = (await fetchStore("html")).result
    assert.isTrue(html._tag === "Right" && html.right._tag === "InvalidSubject")
    if (html._tag === "Right" && html.right._tag === "InvalidSubject") assert.match(html.right.detail, /text\/html/)
  })

  it("malformed JSON and a wrong shape fail the unit with a clear detail, never half-parsed", async () => {
    const bad = failed((await fetchStore("malformed")).result)
    assert.match(bad.detail, /malformed JSON/)
    assert.strictEqual(bad.source, "storefront")
    const shape = failed((await fetchStore("wrongshape")).result)
    assert.match(shape.detail, /unexpected shape/)
  })

  it("429 with Retry-After: 1 is retried after at least a second and then delivers", async () => {
    const { result, ms } = await fetchStore("ratelimited", 5)
    assert.strictEqual(delivered(result).rows.length, 5)
    assert.isAtLeast(ms, 950)
    assert.strictEqual(host.hits.get("/ratelimited/products.json"), 2)
  })

  it("500 then success is retried", async () => {
    const d = delivered((await fetchStore("flaky", 5)).result)
    assert.strictEqual(d.rows.length, 5)
    assert.strictEqual(host.hits.get("/flaky/products.json"), 2)
  })

  it("a hang runs into the unit's time budget and fails as a timeout", async () => {
    const origins = Object.fromEntries(stores.map((s) => [`https://${s}.shop.example`, `${host.url}/${s}`]))
    const short = StorefrontUpstream.make(await policy(tight), { origins, pageSize: 10 })
    const { result, ms } = await fetchStore("hang", 25, short)
    assert.match(failed(result).detail, /^timeout/)
    assert.isAtLeast(ms, 1400)
    assert.isBelow(ms, 3000)
  })

  it("issue 20: a page whose ids repeat an earlier page ends the paging; no duplicate is delivered; not exhaustive", async () => {
    const before = host.hits.get("/loop-40/products.json") ?? 0
    const loop = delivered((await fetchStore("loop-40", 100)).result)
    assert.strictEqual(loop.rows.length, 10, "the first page once")
    assert.strictEqual((host.hits.get("/loop-40/products.json") ?? 0) - before, 2, "the repeated page ends the paging")
    assert.isFalse(loop.exhaustive, "a store that repeats itself never says it has no more")
    const again = delivered((await fetchStore("again-40", 100)).result)
    const ids = again.rows.map((r) => r["productId"])
    assert.strictEqual(new Set(ids).size, ids.length, "no duplicate delivered (nor billed)")
    assert.strictEqual(again.rows.length, 40)
    assert.deepStrictEqual(
      again.rows.map((r) => r["position"]),
      Array.from({ length: 40 }, (_, i) => i + 1)
    )
    assert.isFalse(again.exhaustive)
    assert.strictEqual(host.hits.get("/again-40/products.json"), 5)
  })
})
