/**
 * The shipped provider catalogue's mappings for travel_reviews (issue 20): each one cites the actor's page where its
 * input fields, output fields and price were read; every op of these platforms that fetches is in `shipped` or in
 * `unmapped` with the reason.
 */
export const shipped = {
  // https://apify.com/epctex/tripadvisor-reviews-scraper: "$0.005 per place plus $0.0005 per review" ("from $0.50 /
  // 1,000 dataset items"); reviews of hotel, restaurant and attraction listings by start URL. Its README (published by
  // the author at github.com/epctex/tripadvisor-reviews-scraper, linked from the page) documents the input `startUrls`
  // (TripAdvisor detail URLs), `endPage`, `maxItems`, `proxy` (required) and the output item: id, lang, location_id,
  // published_date (e.g. "2023-12-19T15:16:48-05:00"), published_platform, rating (a string, "5"), type,
  // helpful_votes, url, travel_date, text, user { user_id, name, username, user_location, contributions, locale, ... },
  // title, owner_response, subratings, machine_translated, machine_translatable. One actor run per place (the unit's
  // subject), so the place charge is the run's fee.
  "travel_reviews.reviews": {
    actor: "epctex~tripadvisor-reviews-scraper",
    docs: "https://apify.com/epctex/tripadvisor-reviews-scraper",
    usdPerItem: 0.0005,
    usdPerRun: 0.005,
    input: { startUrls: ["$subject"], maxItems: "$rows", proxy: { useApifyProxy: true } },
    rows: {
      reviewId: "id",
      author: { path: "user.username", as: "string", default: "" },
      rating: { path: "rating", as: "integer" },
      title: { path: "title", as: "string", default: "" },
      text: { path: "text", as: "string", default: "" },
      postedAt: { path: "published_date", as: "datetime" },
      language: { path: "lang", as: "string", default: "" }
    },
    notMapped:
      "since, ratings and languages: the README documents no input for them (the store page's API example shows languages, ratings, months and types lists set to \"all\" without documenting their other values), so the place's reviews are served in the actor's order, unfiltered"
  }
} as const

/** Why the place-card ops (cards by page URL and searches) have no shipped mapping. */
const placeCards =
  "a row's asked-for currency and language can now be echoed from the request, and a rank, its denominator or a city read out of a ranking sentence, but no Tripadvisor place actor was found whose readable documentation gives its input, the place's kind, rank, rankOf and city and a per-result price together: epctex/tripadvisor-scraper (its README at github.com/epctex/tripadvisor-scraper documents all of it — startUrls, search, includeHotels, includeRestaurants, includeAttractions, checkInDate, checkOutDate, language, currency, maxItems; type, name, webUrl, rating, numberOfReviews, rankingPosition, rankingDenominator, rankingString, addressObj.city, priceLevel — but its Store pages read offer it rented at $20.00/month, with no per-result price), maxcopell/tripadvisor ($3.00 / 1,000 results; input query, maxItemsPerQuery, locationFullName, language and currency from its API example; its current output is not on the readable part of its pages, and its open-source repository maxCopell/tripadvisor-scraper, of 2022 and with another input, gives the address as one string and no example of its rankingString), rjmacarthy/tripadvisor-scraper (places at $0.001; a rankingText whose wording is not shown, no city field seen), charitable_trousseau/tripadvisor-listings-scraper and reapx/tripadvisor-data-export-scraper (a ranking sentence whose wording is not shown, an address, no city field), cirkit/tripadvisor-hotels-scraper (hotels only, input field names not shown), kaix/tripadvisor-places-scraper (ranking an object of undocumented shape), fabrikit/tripadvisor-scraper (ranking only as a sentence, with details), pro100chok/tripadvisor-all-in-one ($3.50 / 1,000 places; output fields not on the readable part of its page)"

/** Why an op of these platforms that fetches has no shipped mapping. */
export const unmapped: Readonly<Record<string, string>> = {
  "travel_reviews.hotels": placeCards,
  "travel_reviews.restaurants": placeCards,
  "travel_reviews.attractions": placeCards,
  "travel_reviews.searchHotels": placeCards,
  "travel_reviews.searchRestaurants": placeCards,
  "travel_reviews.searchAttractions": placeCards
}
