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
  "no Tripadvisor place actor was found whose readable documentation gives rank, rankOf and city together with its input fields and a per-result price: epctex/tripadvisor-scraper (its README at github.com/epctex/tripadvisor-scraper documents startUrls, search, includeHotels, includeRestaurants, includeAttractions, checkInDate, checkOutDate, language, currency and rankingPosition, rankingDenominator, addressObj.city, but no per-result price was found for it), maxcopell/tripadvisor ($3.00 / 1,000 results; its current output is not readable, and the repository maxCopell/tripadvisor-scraper of 2022 gives the address as one string with no city), charitable_trousseau/tripadvisor-listings-scraper (rank and rankTotal for hotels only, a rankingText sentence otherwise, no city field shown), cirkit/tripadvisor-hotels-scraper ($2.00 / 1,000 hotels; rankingPosition, rankingOutOf and city documented, hotels only, its input field names not shown), kaix/tripadvisor-places-scraper (ranking is an object of undocumented shape), fabrikit/tripadvisor-scraper (ranking only as a sentence, with details). Besides, a row's currency and language must be the ones asked for, and a row spec cannot read request fields, only the actor's item"

/** Why an op of these platforms that fetches has no shipped mapping. */
export const unmapped: Readonly<Record<string, string>> = {
  "travel_reviews.hotels": placeCards,
  "travel_reviews.restaurants": placeCards,
  "travel_reviews.attractions": placeCards,
  "travel_reviews.searchHotels": placeCards,
  "travel_reviews.searchRestaurants": placeCards,
  "travel_reviews.searchAttractions": placeCards
}
