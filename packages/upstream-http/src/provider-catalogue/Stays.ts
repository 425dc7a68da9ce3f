/**
 * The shipped provider catalogue's mappings for lodging_booking, home_rentals (issue 20): each one cites the actor's page where its
 * input fields, output fields and price were read; every op of these platforms that fetches is in `shipped` or in
 * `unmapped` with the reason.
 */
import { noDocs } from "./Reasons.js"

export const shipped = {
  // https://apify.com/plumblinedata/airbnb-listing-scraper ("Airbnb listing details by ID or room URL"): input
  // `listingIds` (API example { "listingIds": ["11984394"] }; each the ID or URL submitted); output (its output schema
  // and README table): input, type ("listing or error"), listingId, url, title (the headline with type, rating and room
  // counts), description, name (the name the host gave the listing), propertyType, bedrooms, beds, baths, maxGuests,
  // rating (out of 5), reviewsCount, latitude, longitude, price ("when the page shows one. Airbnb usually shows prices
  // only for chosen dates, so this is often empty"); pricing page: Listing $5.00 / 1,000 and Actor start $0.001 on
  // every plan.
  "home_rentals.listings": {
    actor: "plumblinedata~airbnb-listing-scraper",
    docs: "https://apify.com/plumblinedata/airbnb-listing-scraper",
    usdPerItem: 0.005,
    usdPerRun: 0.001,
    input: { listingIds: ["$subject"] },
    keep: { path: "type", in: ["listing"] },
    rows: {
      roomId: "listingId",
      title: { first: ["name", "title"] },
      url: "url",
      ratingOverall: { path: "rating", as: "number" },
      reviewsCount: { path: "reviewsCount", as: "integer" },
      bedrooms: { path: "bedrooms", as: "integer" },
      guests: { path: "maxGuests", as: "integer" },
      priced: { const: false }
    },
    notMapped:
      "pricePerNight, totalPrice and currency stay null and priced false: the actor documents no stay-date, guest or currency input (its price is often empty without dates), and a request's stay (checkIn, checkOut, adults, currency) cannot reach an input template, which names only top-level request fields; its error rows (type error) are skipped, so an unknown listing is not found"
  }
} as const

/** Why an op of these platforms that fetches has no shipped mapping. */
export const unmapped: Readonly<Record<string, string>> = {
  "lodging_booking.properties": noDocs,
  "lodging_booking.search": noDocs,
  "lodging_booking.reviews": noDocs,
  "home_rentals.reviews": noDocs
}
