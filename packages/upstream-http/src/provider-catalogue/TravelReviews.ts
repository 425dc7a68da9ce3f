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
  'a row\'s asked-for currency and language can be echoed from the request, a rank, its denominator and a city read out of a ranking sentence, and (D38) a measured value the actor lacks could be null, but the city (not a measured value) must be read, and no Tripadvisor place actor was found whose readable documentation gives its input, the place\'s name, URL and city (or a ranking sentence of known wording) and a per-result price together. Checked: epctex/tripadvisor-scraper (its README at github.com/epctex/tripadvisor-scraper documents all of it, startUrls, search, includeHotels/Restaurants/Attractions, checkInDate, checkOutDate, language, currency, maxItems; type, name, webUrl, rating, numberOfReviews, rankingPosition, rankingString, addressObj.city, priceLevel; but its Store pages offer it rented at $20.00/month, no per-result price); maxcopell/tripadvisor ($3.00 / 1,000 results; its current input and output are not on the readable part of its Store pages; its repository maxCopell/tripadvisor-scraper is an older source actor, INPUT_SCHEMA locationFullName/hotelId/restaurantId with no startUrls, and a Store issue says its rankingDenominator can disagree with its rankingString); rjmacarthy/tripadvisor-scraper (places $0.001; its example\'s view lists rankingText, address, no city field, wording of rankingText not shown); charitable_trousseau/tripadvisor-listings-scraper (list URLs or a place name; rankingText and rank/rankTotal for hotels only; no city field); outstanding_vegetable/tripadvisor-listings-scraper, juanoox/tripadvisor, thenetaji/tripadvisor-listings-scraper, scrapersdelight/tripadvisor-scraper, shahidirfan100\'s TripAdvisor Hotels Scraper (list pages only, no place page URL or free-text query input; the last documents no rank or city); boncross/tripadvisor-location-details (place URLs, "rankings as numbers and as Tripadvisor\'s sentence", from $0.70 / 1,000; its field names are not on the readable part of its pages), nimbryxo-studio/tripadvisor-hotel-restaurant-and-attraction-finder ($0.49 / 1,000; phrase or place URL and placeType, field names not readable), automatyk/tripadvisor-scraper ($3.00 / 1,000; city and ranking listed, field names not readable; its search twin is priced per usage), fabrikit/tripadvisor-scraper (city and a ranking sentence only for some kinds and with details; list URLs or location names), scrapers_lat/tripadvisor-scraper ($18.91 / 1,000; its example item is cut before its ranking and city fields), kaix/tripadvisor-places-scraper (ranking an object of undocumented shape), thescrappa/tripadvisor-place-scraper (rating and review_count, no rank or city), crawlerbros/tripadvisor-scraper (a copy of its README in the third-party repository SharryCodes019/crawlerbros-apify-tutorials documents all of it, searchQueries, startUrls, maxItems, placeType; name, type, city, rating, numberOfReviews, rankingPosition, rankingString, priceLevel, webUrl; but no price per result was found, neither there nor on a readable Store page), pro100chok/tripadvisor-all-in-one ($0.0035 a place; input by URL, keyword or city; see the fifth round), cirkit/tripadvisor-hotels-scraper (hotels only; see the fifth round). Fifth round (the city can be read: from a city field, addressObj.city, or a documented ranking sentence such as "#20 of 583 hotels in New York City", whose rank, denominator and trailing city a match reads; the gap is now per actor one missing fact): crawlerbros/tripadvisor-scraper still has no readable price (no Store, pricing or API page of it is indexed; queries on its name, its id crawlerbros~tripadvisor-scraper, "pricing" and "$ per 1,000" in the docs, pages and issues corpora find only its other actors; the tutorial repository\'s README, index and runner files name no price); cirkit/tripadvisor-hotels-scraper is now readable at https://apify.com/cirkit/tripadvisor-hotels-scraper ($2.00 / 1,000 hotels; one record per hotel with name, url, locationId, rating, reviewCount, rankingPosition, rankingOutOf, rankingString "#80 of 534 hotels in Barcelona", city, priceRange; a destination name or a Hotels list URL in), but its input field names are past the readable part of its pages (main, .md, api and input-schema copies), and it serves hotels only; pro100chok/tripadvisor-all-in-one\'s example (https://apify.com/pro100chok/tripadvisor-all-in-one/examples/tripadvisor-scrape-specific-urls.md) shows the input (search, startUrls of {url}, category, maxItems, locale) and the output names (__type, name, rating, reviewCount, ranking, priceLevel, city, url; $0.0035 a place), but every field of its view has format "array" and no value is shown, so the shape of ranking (a number, a sentence or an object) is not documented and rank and rankOf cannot be read; khadinakbar/tripadvisor-scraper\'s example (examples/build-restaurant-outreach-shortlists-by-area.md: searchQueries, startUrls, scrapeMode listings_only, maxResults; record_type, name, category, city, rating, review_count, ranking as a string, tripadvisor_url; $0.003 a listing) shows no ranking value, so its wording is unknown, and its newer page says ratings are not on every listing row; factden/tripadvisor-hotel-reviews-api\'s example view gives rank and rankOutOf as integers with name, rating and numReviews, but its URL and city fields and its per-place price are not readable; maxCopell/tripadvisor-scraper\'s example.json is an old test batch (id, type, name, rankingPosition, rating as strings, address; no URL, city or denominator), not the Store actor\'s current output; kaix/tripadvisor-places-scraper\'s output-schema page names ranking "TripAdvisor category ranking" without its shape; kestrel/hotel-reputation-checker (ranking sentence and city for named hotels) bills no rows for a Tripadvisor-only lookup, so there is no per-result price to charge by; rbbscrap/tripadvisor-scraper ($0.80 / 1,000), boncross/tripadvisor-hotels-scraper ($1.00 / 1,000), epicscrapers/tripadvisor-scraper ($1.40 / 1,000), data_wiki/tripadvisor-scraper ($1.20 / 1,000), tortuga/tripadvisor-scraper (reviews priced, places not) and good-apis/tripadvisor-detail-scraper ($0.50 / 1,000) name no output fields on the readable part of their pages'

/** Why an op of these platforms that fetches has no shipped mapping. */
export const unmapped: Readonly<Record<string, string>> = {
  "travel_reviews.hotels": placeCards,
  "travel_reviews.restaurants": placeCards,
  "travel_reviews.attractions": placeCards,
  "travel_reviews.searchHotels": placeCards,
  "travel_reviews.searchRestaurants": placeCards,
  "travel_reviews.searchAttractions": placeCards
}
