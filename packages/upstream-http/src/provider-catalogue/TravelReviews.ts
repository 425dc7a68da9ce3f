/**
 * The shipped provider catalogue's mappings for travel_reviews (issue 20): each one cites the actor's page where its
 * input fields, output fields and price were read; every op of these platforms that fetches is in `shipped` or in
 * `unmapped` with the reason.
 */

// The place cards and searches (hotels, restaurants, attractions and their searches) are served by
// khadinakbar~tripadvisor-scraper, read on three of its pages:
// - https://apify.com/khadinakbar/tripadvisor-scraper/examples/build-restaurant-outreach-shortlists-by-area.md: the
//   input { searchQueries: ["restaurants in Barcelona Gothic Quarter"], startUrls: [], scrapeMode: "listings_only",
//   maxResults: 6, maxReviewsPerListing: 0, proxyConfiguration: { useApifyProxy: true, apifyProxyGroups:
//   ["RESIDENTIAL"] } } and the output view: record_type (string), name (string), category (string), city (string),
//   country (string), rating (number, "TripAdvisor Rating"), review_count (integer), price_range (string), ranking
//   (string, "TripAdvisor Ranking"), phone, website, tripadvisor_url (string), then the review fields (text,
//   travel_type, ...) of its review records;
// - https://apify.com/khadinakbar/tripadvisor-scraper ("TripAdvisor Scraper - Hotels, Restaurants & Reviews"): "Type a
//   search like \"hotels in Paris\" or paste listing URLs", "you pay only for the listings you receive"; its table:
//   "Listing name, category (hotel, restaurant, attraction)", "Direct TripAdvisor link and listing ID", "Rating, review
//   count and price range when the search index shows them", and under what it does not give "Guaranteed ratings on
//   every listing row"; "from $2.40 / 1,000 listing scrapeds" (the lowest volume tier);
// - the earlier reading of the example page (docs/provider-catalogue.md's fifth round): $0.003 a listing, the price
//   charged here (above the main page's "from" price, so a run's charge limit pays for the listings it asks at either).
// A listing is a place, so a place page URL (the unit's subject) is a listing URL in startUrls, given in the Store's
// request-list form [{ url }] (the example's startUrls is empty, so the element form is the Store convention, not
// shown filled); maxReviewsPerListing 0 and scrapeMode listings_only keep review records out of the dataset.
//
// D60t: rank and rankOf are measured values read from `ranking`, Tripadvisor's ranking sentence ("#20 of 583 hotels
// in New York City", "#3 of 1,204 Restaurants in Paris"), whose wording the actor's pages do not show: a tolerant match
// of Tripadvisor's own public wording (a "#", the rank, "of", the count with its thousands commas, then the kind) reads
// them; a sentence that does not match leaves both null (D38: not measured), never guessed. rating and reviews absent
// on a listing row ("when the search index shows them") are null. name, the URL, the kind (category, one of hotel,
// restaurant, attraction) and the city come from their documented keys: a row without them fails its unit naming the
// field. The actor takes no language, currency or stay dates: the row's currency and language are the ones asked
// (echoed), and priceFrom is never given.

/** Tripadvisor's ranking sentence: "#<rank> of <count> <kind> ..." (rank and count with thousands commas). */
const rankNumber = "(?:\\d{1,3}(?:,\\d{3})+|\\d+)"
const rankSentence = (group: "rank" | "rankOf") =>
  group === "rank"
    ? `#\\s?(${rankNumber})\\s+of\\s+${rankNumber}\\s+\\S`
    : `#\\s?${rankNumber}\\s+of\\s+(${rankNumber})\\s+\\S`

/** The actor's documented category values, as the row's kinds. */
const kinds = { hotel: "hotel", restaurant: "restaurant", attraction: "attraction" }

/** The row of a listing record (the same for cards and searches). */
const placeRow = {
  kind: { path: "category", map: kinds },
  name: "name",
  url: "tripadvisor_url",
  rating: { path: "rating", as: "number" },
  reviews: { path: "review_count", as: "integer" },
  rank: { path: "ranking", match: rankSentence("rank"), as: "integer" },
  rankOf: { path: "ranking", match: rankSentence("rankOf"), as: "integer" },
  city: "city",
  priceLevel: { path: "price_range", as: "string" },
  currency: { request: "currency" },
  language: { request: "language" }
} as const

const listingsOnly = {
  scrapeMode: "listings_only",
  maxResults: "$rows",
  maxReviewsPerListing: 0,
  proxyConfiguration: { useApifyProxy: true, apifyProxyGroups: ["RESIDENTIAL"] }
} as const

const unechoed =
  "language and currency: the actor documents no language or currency input, so the row's language and currency are the ones asked (echoed) and the place is read as the actor reads it; rank and rankOf are read from its ranking sentence with Tripadvisor's wording (D60t: null when the sentence does not match), rating and reviews are null when its listing row has none (D38)"

const unlisted =
  "the actor's newer main page lists neither city nor ranking among what it gives (its example's output view names both): a listing row without a city fails its unit (nothing billed to the caller), and one without a ranking has a null rank"

/** A place card op (a place page URL): one listing record of the subject. */
const placeCards = (kind: keyof typeof kinds) => ({
  actor: "khadinakbar~tripadvisor-scraper",
  docs: "https://apify.com/khadinakbar/tripadvisor-scraper",
  usdPerItem: 0.003,
  input: { startUrls: [{ url: "$subject" }], ...listingsOnly },
  rows: placeRow,
  notMapped: `${kind === "hotel" ? "stay (checkIn, checkOut): the actor documents no stay-date input, so priceFrom is never given; " : ""}${unechoed}; the row's kind is the actor's category of the page, whatever op it was asked through; the page goes to startUrls in the Store's request-list form [{ url }] (the example leaves startUrls empty, so the element form is not shown filled); ${unlisted}`
})

/**
 * A search op: the listing records of the query, asked as the actor's pages show searches ("hotels in Paris",
 * "restaurants in Barcelona Gothic Quarter"): the op's kind in words, then the caller's query as plain text.
 */
const placeSearch = (kind: keyof typeof kinds) => ({
  actor: "khadinakbar~tripadvisor-scraper",
  docs: "https://apify.com/khadinakbar/tripadvisor-scraper",
  usdPerItem: 0.003,
  input: { searchQueries: [{ $text: `${kind}s in {query}` }], ...listingsOnly },
  // a listing of another kind the search returns is not a row of this op (nor billed); it still counts against the
  // run's item limit, so a run that returned its limit is never taken as all there is
  keep: { path: "category", in: [kind] },
  rows: placeRow,
  notMapped: `${kind === "hotel" ? "stay (checkIn, checkOut): the actor documents no stay-date input, so priceFrom is never given; " : ""}${unlisted}; the kind: the actor documents no kind filter, only searches in words, so the query is sent as "${kind}s in <query>" and only listings whose category is the op's kind are rows (a listing of another kind the search returns is left out, not billed, and counts against the run's item limit, so such a unit is never taken as all there is); ${unechoed}`
})

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
  },
  "travel_reviews.hotels": placeCards("hotel"),
  "travel_reviews.restaurants": placeCards("restaurant"),
  "travel_reviews.attractions": placeCards("attraction"),
  "travel_reviews.searchHotels": placeSearch("hotel"),
  "travel_reviews.searchRestaurants": placeSearch("restaurant"),
  "travel_reviews.searchAttractions": placeSearch("attraction")
} as const

/** Why an op of these platforms that fetches has no shipped mapping: every one is mapped. */
export const unmapped: Readonly<Record<string, string>> = {}
