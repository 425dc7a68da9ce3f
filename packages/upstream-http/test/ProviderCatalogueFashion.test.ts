// Issue 20: the shipped provider catalogue for fashion_marketplace. The mapped op maps its actor's recorded-shape items
// (test/fixtures/provider/<actor>.json, built from the actor's documented output) to rows the op's row Schema accepts,
// with the values expected, and builds the actor input from a request; the ops left unmapped are listed with their
// reason.
import { assert, describe, it } from "@effect/vitest"
import { Either } from "effect"
import * as Mapping from "../src/Mapping.js"
import * as ProviderCatalogue from "../src/ProviderCatalogue.js"
import { decodeRow, unit } from "./support/Adapters.js"
import { mapped } from "./support/Catalogue.js"

describe("ProviderCatalogue: fashion_marketplace", () => {
  it("search and listing are mapped and cite their page; products is listed with a reason", () => {
    for (const key of ["fashion_marketplace.search", "fashion_marketplace.listing"]) {
      const m = ProviderCatalogue.mappings[key]
      assert.isDefined(m, key)
      assert.isTrue(Either.isRight(Mapping.check(key, m!)), key)
      assert.strictEqual(m!.docs, "https://apify.com/abotapi/ssense-product-scraper", key)
      assert.isFalse(key in ProviderCatalogue.unmapped, key)
    }
    const key = "fashion_marketplace.products"
    assert.isFalse(key in ProviderCatalogue.mappings, key)
    assert.match(ProviderCatalogue.unmapped[key] ?? "", /abotapi\/ssense-product-scraper/, key)
  })

  it("fashion_marketplace.listing (abotapi~ssense-product-scraper): the page walked as a store URL, no search term", () => {
    const { rows, errors } = mapped("fashion_marketplace.listing")
    assert.deepStrictEqual(errors, [])
    // the same product records as a search: the same rows
    assert.deepStrictEqual(rows, mapped("fashion_marketplace.search").rows)
    assert.strictEqual(rows.length, 2)
    const m = ProviderCatalogue.mappings["fashion_marketplace.listing"]!
    assert.strictEqual(m.usdPerItem, 0.0017)
    const page = "https://www.ssense.com/en-us/men/designers/balenciaga"
    const u = unit("fashion_marketplace", "listing", { subject: page, limit: 60 }, page)
    assert.deepStrictEqual(Mapping.input(m.input, u), {
      mode: "search",
      searchTerms: [],
      urls: [page],
      fetchDetails: false,
      maxItems: 60
    })
  })

  it("fashion_marketplace.search (abotapi~ssense-product-scraper): product cards of a keyword, stock and sizes null", () => {
    const { rows, errors } = mapped("fashion_marketplace.search")
    assert.deepStrictEqual(errors, [])
    assert.deepStrictEqual(rows, [
      {
        itemId: "19403311",
        name: "White Gancini Sneakers",
        designer: "Salvatore Ferragamo",
        price: 472,
        fullPrice: 675,
        discountPercent: 30,
        currency: "USD",
        stockQuantity: null,
        sizes: null
      },
      {
        itemId: "23112871",
        name: "Black Runner Sneakers",
        designer: "Acne Studios",
        price: 390,
        fullPrice: 390,
        discountPercent: 0,
        currency: "USD",
        stockQuantity: null,
        sizes: null
      }
    ])
    const m = ProviderCatalogue.mappings["fashion_marketplace.search"]!
    assert.strictEqual(m.usdPerItem, 0.0017)
    assert.strictEqual(m.usdPerRun, 0)
    const u = unit("fashion_marketplace", "search", { query: "sneakers", limit: 40 })
    assert.deepStrictEqual(Mapping.input(m.input, u), {
      mode: "search",
      searchTerms: ["sneakers"],
      fetchDetails: false,
      maxItems: 40
    })
    const byDefault = unit("fashion_marketplace", "search", { query: "gucci bag" })
    assert.deepStrictEqual(Mapping.input(m.input, byDefault), {
      mode: "search",
      searchTerms: ["gucci bag"],
      fetchDetails: false,
      maxItems: 20
    })
  })

  it("an item without a price makes no row the op's Schema accepts (the unit fails, nothing is billed)", () => {
    const m = ProviderCatalogue.mappings["fashion_marketplace.search"]!
    const item = { productId: "1", title: "Tote", brand: "Prada", regularPrice: 900, currency: "USD" }
    const [row] = Mapping.rowsOf(m, item, ["discountPercent", "stockQuantity", "sizes"])
    assert.strictEqual(row!["price"], null)
    assert.throws(() => decodeRow("fashion_marketplace", "search", row), /price/)
    assert.doesNotThrow(() => decodeRow("fashion_marketplace", "search", { ...row, price: 900 }))
  })
})
