// Issue 20: the shipped provider catalogue for travel_reviews' place cards and searches
// (khadinakbar~tripadvisor-scraper). Its recorded-shape listing records (test/fixtures/provider/<actor>.json, built
// from the actor's documented output) map to rows the op's row Schema accepts, with the values expected; the rank and
// its count are read from Tripadvisor's ranking sentence (D60t) and are null when the sentence does not match, as the
// rating and review count are when the listing row has none (D38); the actor input built from a request is shown.
import { assert, describe, it } from "@effect/vitest"
import { Catalogue } from "@pdr/domain"
import * as Mapping from "../src/Mapping.js"
import * as ProviderCatalogue from "../src/ProviderCatalogue.js"
import { decodeRow, unit } from "./support/Adapters.js"
import { mapped } from "./support/Catalogue.js"

const hotelUrl =
  "https://www.tripadvisor.com/Hotel_Review-g60763-d1776857-Reviews-The_Langham_New_York_Fifth_Avenue-New_York_City_New_York.html"

const langham = {
  kind: "hotel",
  name: "The Langham, New York, Fifth Avenue",
  url: hotelUrl,
  rating: 4.5,
  reviews: 3127,
  rank: 20,
  rankOf: 583,
  city: "New York City",
  priceLevel: "$$$$"
}
const comptoir = {
  kind: "restaurant",
  name: "Le Comptoir du Relais",
  url: "https://www.tripadvisor.com/Restaurant_Review-g187147-d718996-Reviews-Le_Comptoir_du_Relais-Paris_Ile_de_France.html",
  rating: 4,
  reviews: 4512,
  rank: 1021,
  rankOf: 12046,
  city: "Paris",
  priceLevel: "$$ - $$$"
}
// a ranking sentence not in Tripadvisor's wording, no rating, no review count: all null (not measured)
const sagrada = {
  kind: "attraction",
  name: "Basilica of the Sagrada Familia",
  url: "https://www.tripadvisor.com/Attraction_Review-g187497-d190166-Reviews-Basilica_of_the_Sagrada_Familia-Barcelona_Catalonia.html",
  rating: null,
  reviews: null,
  rank: null,
  rankOf: null,
  city: "Barcelona",
  priceLevel: null
}
// no ranking at all
const barDelPla = {
  kind: "restaurant",
  name: "Bar del Pla",
  url: "https://www.tripadvisor.com/Restaurant_Review-g187497-d1314578-Reviews-Bar_del_Pla-Barcelona_Catalonia.html",
  rating: 4.5,
  reviews: 2210,
  rank: null,
  rankOf: null,
  city: "Barcelona",
  priceLevel: "$$ - $$$"
}

const asked = { currency: "EUR", language: "fr" }
const echoed = (row: Record<string, unknown>) => ({ ...row, currency: "EUR", language: "fr" })

describe("ProviderCatalogue: travel_reviews place cards and searches (khadinakbar~tripadvisor-scraper)", () => {
  it("hotels, restaurants, attractions: every listing record maps to a row the op accepts; currency and language echoed", () => {
    for (const op of ["hotels", "restaurants", "attractions"]) {
      const { rows, errors } = mapped(`travel_reviews.${op}`, asked)
      assert.deepStrictEqual(errors, [])
      assert.deepStrictEqual(rows, [langham, comptoir, sagrada, barDelPla].map(echoed), op)
    }
  })

  it("a place card's subject goes to startUrls as a listing URL, one listing asked, review records off", () => {
    const m = ProviderCatalogue.mappings["travel_reviews.hotels"]!
    const u = unit(
      "travel_reviews",
      "hotels",
      { subjects: [hotelUrl], stay: { checkIn: "2026-07-01", checkOut: "2026-07-03" } },
      hotelUrl
    )
    assert.strictEqual(u.rows, 1)
    assert.deepStrictEqual(Mapping.input(m.input, u), {
      startUrls: [{ url: hotelUrl }],
      scrapeMode: "listings_only",
      maxResults: 1,
      maxReviewsPerListing: 0,
      proxyConfiguration: { useApifyProxy: true, apifyProxyGroups: ["RESIDENTIAL"] }
    })
  })

  it("searches: the op's kind and the query as one search phrase, the rows asked as maxResults; only the op's kind", () => {
    for (const [op, kind, expected] of [
      ["searchHotels", "hotels", [langham]],
      ["searchRestaurants", "restaurants", [comptoir, barDelPla]],
      ["searchAttractions", "attractions", [sagrada]]
    ] as const) {
      // the actor takes no kind filter: a listing of another kind that its search returns is not a row of the op
      const { rows } = mapped(`travel_reviews.${op}`, asked)
      assert.deepStrictEqual(rows, expected.map(echoed), op)
      const m = ProviderCatalogue.mappings[`travel_reviews.${op}`]!
      const u = unit("travel_reviews", op, { query: "Barcelona Gothic Quarter", limit: 25 })
      assert.deepStrictEqual(Mapping.input(m.input, u), {
        searchQueries: [`${kind} in Barcelona Gothic Quarter`],
        scrapeMode: "listings_only",
        maxResults: 25,
        maxReviewsPerListing: 0,
        proxyConfiguration: { useApifyProxy: true, apifyProxyGroups: ["RESIDENTIAL"] }
      })
    }
  })

  it("D60t: rank and its count read from Tripadvisor's ranking sentence, null when it does not match", () => {
    const m = ProviderCatalogue.mappings["travel_reviews.restaurants"]!
    const read = (ranking: unknown) => ({
      rank: Mapping.value({ ranking }, m.rows["rank"]!),
      rankOf: Mapping.value({ ranking }, m.rows["rankOf"]!)
    })
    assert.deepStrictEqual(read("#20 of 583 hotels in New York City"), { rank: 20, rankOf: 583 })
    assert.deepStrictEqual(read("#3 of 1,204 Restaurants in Paris"), { rank: 3, rankOf: 1204 })
    assert.deepStrictEqual(read("#1,021 of 12,046 Restaurants in Paris"), { rank: 1021, rankOf: 12046 })
    assert.deepStrictEqual(read("#1 of 212 things to do in Lyon"), { rank: 1, rankOf: 212 })
    assert.deepStrictEqual(read("Ranked #2 of 45 B&Bs / Inns in Bath"), { rank: 2, rankOf: 45 })
    // not Tripadvisor's wording, or no ranking: not measured, never guessed
    for (const other of [
      "Top attraction in Barcelona",
      "20 of 583 hotels in New York City",
      "Nr. 3 von 1.204 Restaurants in Paris",
      "#3 of 1.204 Restaurants in Paris",
      "#3",
      "#3 of 1204",
      "",
      null,
      7,
      { position: 3, of: 1204 }
    ])
      assert.deepStrictEqual(read(other), { rank: null, rankOf: null }, JSON.stringify(other))
  })

  it("a listing row without its city or kind fails the row Schema (not measured values are never null)", () => {
    const m = ProviderCatalogue.mappings["travel_reviews.hotels"]!
    const item = {
      name: "Nameless",
      category: "vacation rental",
      city: null,
      tripadvisor_url: hotelUrl
    }
    const nullable = Mapping.rowFields(Catalogue.findOp("travel_reviews", "hotels")!).nullable
    const [row] = Mapping.rowsOf(m, item, nullable, asked)
    assert.deepStrictEqual(row, {
      kind: null,
      name: "Nameless",
      url: hotelUrl,
      rating: null,
      reviews: null,
      rank: null,
      rankOf: null,
      city: null,
      priceLevel: null,
      currency: "EUR",
      language: "fr"
    })
    assert.throws(() => decodeRow("travel_reviews", "hotels", row))
    assert.throws(() => decodeRow("travel_reviews", "hotels", { ...row, kind: "hotel" }))
    assert.throws(() => decodeRow("travel_reviews", "hotels", { ...row, city: "Paris" }))
    decodeRow("travel_reviews", "hotels", { ...row, kind: "hotel", city: "Paris" })
  })
})
