/**
 * The shipped provider catalogue's mappings for travel_reviews (issue 20): each one cites the actor's page where its
 * input fields, output fields and price were read; every op of these platforms that fetches is in `shipped` or in
 * `unmapped` with the reason.
 */
import { noDocs } from "./Reasons.js"

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

/** Why an op of these platforms that fetches has no shipped mapping. */
export const unmapped: Readonly<Record<string, string>> = {
  "travel_reviews.hotels": noDocs,
  "travel_reviews.restaurants": noDocs,
  "travel_reviews.attractions": noDocs,
  "travel_reviews.searchHotels": noDocs,
  "travel_reviews.searchRestaurants": noDocs,
  "travel_reviews.searchAttractions": noDocs
}
