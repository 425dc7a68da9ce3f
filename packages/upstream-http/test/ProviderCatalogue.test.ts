// Issue 20: the shipped provider catalogue. Every mapping decodes and covers its op's row; each maps its actor's
// recorded-shape item (test/fixtures/provider/<actor>.json, built from the actor's documented output) to rows the
// op's row Schema accepts, with the values expected; its error items are recognised. Every op that fetches is
// either mapped or listed with the reason.
import { readFileSync } from "node:fs"
import { assert, describe, it } from "@effect/vitest"
import { Catalogue } from "@pdr/domain"
import { Either } from "effect"
import * as Mapping from "../src/Mapping.js"
import * as ProviderCatalogue from "../src/ProviderCatalogue.js"
import { unit } from "./support/Adapters.js"
import { mapped } from "./support/Catalogue.js"

describe("ProviderCatalogue", () => {
  it("every shipped mapping decodes, cites its page, covers its row and names only its request fields", () => {
    for (const [key, m] of Object.entries(ProviderCatalogue.mappings)) {
      assert.isTrue(Either.isRight(Mapping.check(key, m)), key)
      assert.match(m.docs ?? "", /^https:\/\/apify\.com\//, key)
      assert.isAbove(m.usdPerItem, 0, key)
    }
  })

  it("docs/provider-catalogue.md is the catalogue as it is (regenerate: pnpm --filter @pdr/upstream-http catalogue)", () => {
    const doc = readFileSync(new URL("../../../docs/provider-catalogue.md", import.meta.url), "utf8")
    assert.strictEqual(doc, ProviderCatalogue.markdown())
  })

  it("every op that fetches is mapped or listed with the reason, never both", () => {
    for (const p of Catalogue.platforms)
      for (const o of p.ops) {
        if (o.price._tag === "Free" || p.id === "storefronts" || p.id === "forum") continue
        const key = `${p.id}.${o.name}`
        // a mapping, or for explore run the shipped explore sources (its rows are raw, D11)
        const mappedHere = ProviderCatalogue.shipped(o)
        assert.notStrictEqual(mappedHere, key in ProviderCatalogue.unmapped, key)
      }
  })

  it("web_search.search (datacortex~google-search-scraper): organic rows, ads skipped, the error row recognised", () => {
    const { rows, errors } = mapped("web_search.search")
    assert.deepStrictEqual(rows, [
      {
        page: 1,
        position: 1,
        title: "Sneakers and Activewear | adidas US",
        url: "https://www.adidas.com/us",
        snippet:
          "Explore adidas sneakers for sports and daily wear. From versatile activewear to sporting goods and accessories for all ages and all levels."
      }
    ])
    assert.deepStrictEqual(errors, [{ text: "Google returned no results for this query.", notFound: false }])
  })

  it("web_search.playReviews (coder_zoro~google-play-app-reviews-scraper): one row per review of the app item", () => {
    const { rows } = mapped("web_search.playReviews")
    assert.deepStrictEqual(rows, [
      {
        reviewId: "gp:AOqpTOE1xYz",
        author: "Ana Lima",
        rating: 5,
        text: "Works well, calls are clear.",
        thumbsUp: 12,
        appVersion: "2.24.10.74",
        postedAt: "2024-05-18T14:02:11.000Z",
        position: 1
      },
      {
        reviewId: "gp:AOqpTOE2aBc",
        author: "K. Osei",
        rating: 2,
        text: "Backups fail since the last update.",
        thumbsUp: 0,
        appVersion: null,
        postedAt: "2024-05-17T09:30:00.000Z",
        position: 2
      }
    ])
  })

  it("web_search.news (ultrix_excelence~google-news-scraper-real-urls): the article, its publisher and date", () => {
    const { rows } = mapped("web_search.news")
    assert.deepStrictEqual(rows, [
      {
        title: "Carmakers cut prices as EV sales slow",
        url: "https://www.reuters.com/business/autos/carmakers-cut-prices-ev-sales-slow",
        publisher: "Reuters",
        publishedAt: "2026-11-20T08:15:00.000Z",
        snippet: "",
        position: 1
      }
    ])
    const m = ProviderCatalogue.mappings["web_search.news"]!
    const u = unit("web_search", "news", { query: "electric vehicles", postedWithin: "any", limit: 30 })
    assert.deepStrictEqual(Mapping.input(m.input, u), {
      queries: ["electric vehicles"],
      country: "US",
      language: "en",
      timeRange: "1y",
      maxArticlesPerQuery: 30
    })
  })
})
