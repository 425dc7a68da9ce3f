// Issue 20: the shipped provider catalogue for lodging_booking, home_rentals, travel_reviews and fashion_marketplace.
// Each mapping maps its actor's recorded-shape items (test/fixtures/provider/<actor>.json, built from the actor's
// documented output) to rows the op's row Schema accepts, with the values expected; the actor input built from a
// request is shown where the request has interesting fields.
import { assert, describe, it } from "@effect/vitest"
import * as Mapping from "../src/Mapping.js"
import * as ProviderCatalogue from "../src/ProviderCatalogue.js"
import { unit } from "./support/Adapters.js"
import { mapped } from "./support/Catalogue.js"

const placeUrl =
  "https://www.tripadvisor.com/Restaurant_Review-g60763-d25324283-Reviews-Allora_Fifth_Ave-New_York_City_New_York.html"

describe("ProviderCatalogue: stays, travel reviews, fashion", () => {
  it("travel_reviews.reviews (epctex~tripadvisor-reviews-scraper): one row per review, rating and date converted", () => {
    const { rows, errors } = mapped("travel_reviews.reviews")
    assert.deepStrictEqual(errors, [])
    assert.deepStrictEqual(rows, [
      {
        reviewId: "930324997",
        author: "C L",
        rating: 5,
        title: "Excellent Service For A Tired Group",
        text: "We made a last-minute reservation after finishing our Empire State Building tour. The staff made some excellent wine and food recommendations.",
        postedAt: "2023-12-19T20:16:48.000Z",
        language: "en",
        position: 1
      },
      {
        reviewId: "928811402",
        author: "martar_mi",
        rating: 3,
        title: "Buono ma lento",
        text: "Cibo buono, servizio lento.",
        postedAt: "2023-12-02T14:05:11.000Z",
        language: "it",
        position: 2
      }
    ])
    const m = ProviderCatalogue.mappings["travel_reviews.reviews"]!
    const u = unit("travel_reviews", "reviews", { subjects: [placeUrl], limit: 40 }, placeUrl)
    assert.deepStrictEqual(Mapping.input(m.input, u), {
      startUrls: [placeUrl],
      maxItems: 40,
      proxy: { useApifyProxy: true }
    })
  })

  it("home_rentals.listings (plumblinedata~airbnb-listing-scraper): the listing card, unpriced; error rows skipped", () => {
    const { rows, errors } = mapped("home_rentals.listings")
    assert.deepStrictEqual(errors, [])
    assert.deepStrictEqual(rows, [
      {
        roomId: "11984394",
        title: "Salty Soul Beach House – Spacious Beach Retreat",
        url: "https://www.airbnb.com/rooms/11984394",
        ratingOverall: 4.96,
        reviewsCount: 212,
        bedrooms: 2,
        guests: 5,
        pricePerNight: null,
        totalPrice: null,
        currency: null,
        priced: false
      }
    ])
    const m = ProviderCatalogue.mappings["home_rentals.listings"]!
    const room = "https://www.airbnb.com/rooms/11984394"
    const u = unit(
      "home_rentals",
      "listings",
      { subjects: [room], stay: { checkIn: "2026-07-01", checkOut: "2026-07-04", adults: 3 } },
      room
    )
    assert.deepStrictEqual(Mapping.input(m.input, u), { listingIds: [room] })
  })

  it("lodging_booking.search (admo-solutions~booking-scraper): the location's cards, text numbers converted, empty scores and stars null", () => {
    const { rows, errors } = mapped("lodging_booking.search")
    assert.deepStrictEqual(errors, [])
    assert.deepStrictEqual(rows, [
      {
        name: "Hôtel Le Marais Bastille",
        url: "https://www.booking.com/hotel/fr/le-marais-bastille.html",
        stars: 4,
        guestScore: 8.7,
        reviewCount: 1234,
        address: "11th arr., Paris",
        priceFrom: null,
        currency: null,
        nights: null,
        available: null
      },
      {
        name: "Appartement Canal Saint-Martin",
        url: "https://www.booking.com/hotel/fr/appartement-canal-saint-martin.html",
        stars: null,
        guestScore: null,
        reviewCount: 0,
        address: "10th arr., Paris",
        priceFrom: null,
        currency: null,
        nights: null,
        available: null
      }
    ])
    const m = ProviderCatalogue.mappings["lodging_booking.search"]!
    const u = unit("lodging_booking", "search", {
      location: "Paris, France",
      minStars: 4,
      sort: "price_low",
      limit: 30
    })
    assert.deepStrictEqual(Mapping.input(m.input, u), { locations: ["Paris, France"] })
  })

  it("lodging_booking.properties (voyager~booking-scraper): the hotel page's card, unpriced; the stay's language sent", () => {
    const { rows, errors } = mapped("lodging_booking.properties")
    assert.deepStrictEqual(errors, [])
    assert.deepStrictEqual(rows, [
      {
        name: "Alfons Boutique Hotel",
        url: "https://www.booking.com/hotel/cz/alfons.html",
        stars: 4,
        guestScore: 9.1,
        reviewCount: 898,
        address: "Legerova 41, Prague, 120 00, Czech Republic",
        priceFrom: null,
        currency: null,
        nights: null,
        available: null
      },
      {
        name: "Vltava River Apartment",
        url: "https://www.booking.com/hotel/cz/vltava-river-apartment.html",
        stars: null,
        guestScore: null,
        reviewCount: 0,
        address: "Dvořákovo nábřeží 8, Prague, 110 00, Czech Republic",
        priceFrom: null,
        currency: null,
        nights: null,
        available: null
      }
    ])
    const m = ProviderCatalogue.mappings["lodging_booking.properties"]!
    const page = "https://www.booking.com/hotel/cz/alfons.html"
    const stay = { checkIn: "2026-07-01", checkOut: "2026-07-03", currency: "EUR" }
    const u = unit("lodging_booking", "properties", { subjects: [page], stay: { ...stay, language: "de" } }, page)
    assert.deepStrictEqual(Mapping.input(m.input, u), { startUrls: [page], language: "de" })
    // the default en-GB is one the actor lists; a tag it does not list is left out, so its own default applies
    const plain = unit("lodging_booking", "properties", { subjects: [page] }, page)
    assert.deepStrictEqual(Mapping.input(m.input, plain), { startUrls: [page], language: "en-gb" })
    const unlisted = unit("lodging_booking", "properties", { subjects: [page], stay: { language: "de-CH" } }, page)
    assert.deepStrictEqual(Mapping.input(m.input, unlisted), { startUrls: [page] })
  })

  it("lodging_booking.reviews (thescrappa~booking-reviews-scraper): one row per review, the score rounded and banded", () => {
    const { rows, errors } = mapped("lodging_booking.reviews")
    assert.deepStrictEqual(errors, [])
    assert.deepStrictEqual(rows, [
      {
        reviewId: "review-884210",
        author: "Jordan Lee",
        rating: 9,
        title: "A comfortable city stay",
        text: "The room was quiet, the staff were attentive, and the location made museums easy to reach.",
        postedAt: "2026-09-18T00:00:00.000Z",
        band: "superb",
        travellerType: "Couple",
        position: 1
      },
      {
        reviewId: "review-884163",
        author: "Anonymous",
        rating: 7,
        title: "",
        text: "",
        postedAt: "2026-08-30T00:00:00.000Z",
        band: "good",
        travellerType: "Solo traveller",
        position: 2
      }
    ])
    const m = ProviderCatalogue.mappings["lodging_booking.reviews"]!
    const page = "https://www.booking.com/hotel/de/adlon-kempinski-berlin.html"
    const newest = unit("lodging_booking", "reviews", { subjects: [page], sort: "newest", limit: 40 }, page)
    assert.deepStrictEqual(Mapping.input(m.input, newest), {
      hotels: [{ url: page }],
      sort: "recent_desc",
      limit: 25,
      maxPages: 4,
      maxResults: 40
    })
    // relevance (the default) is the actor's own order: no sort is sent
    const plain = unit("lodging_booking", "reviews", { subjects: [page], limit: 25 }, page)
    assert.deepStrictEqual(Mapping.input(m.input, plain), {
      hotels: [{ url: page }],
      limit: 25,
      maxPages: 4,
      maxResults: 25
    })
  })

  it("home_rentals.reviews (thescrappa~airbnb-reviews-scraper): one row per rated review, in its own language", () => {
    const { rows, errors } = mapped("home_rentals.reviews")
    assert.deepStrictEqual(errors, [])
    assert.deepStrictEqual(rows, [
      {
        reviewId: "1385527319845291021",
        author: "Camille",
        rating: 5,
        title: "",
        text: "Spotless flat, quiet street and a very responsive host. We would stay again.",
        postedAt: "2026-03-14T09:31:02.000Z",
        locale: "en",
        position: 1
      },
      {
        reviewId: "1371402283710038744",
        author: "",
        rating: 4,
        title: "",
        text: "",
        postedAt: "2026-02-23T17:05:40.000Z",
        locale: "",
        position: 2
      }
    ])
    const m = ProviderCatalogue.mappings["home_rentals.reviews"]!
    const u = unit("home_rentals", "reviews", { subjects: ["29754402"], locale: "fr-FR", limit: 40 }, "29754402")
    assert.deepStrictEqual(Mapping.input(m.input, u), { listings: [{ listing_id: "29754402" }], maxResults: 40 })
  })
})
