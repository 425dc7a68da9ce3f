/**
 * The provider catalogue shipped with the service (issue 20): for an op no native adapter serves, the public actor of
 * the hosted provider that serves it, read from the actor's page in the provider's store (cited per mapping): its
 * input template, its row mapping and its price per item. Operators override or add mappings with PROVIDER_MAPPINGS
 * (a file) or PROVIDER_OPS (JSON). Ops not listed stay on their default route; `unmapped` says why.
 *
 * Every input field, output field and price below was read on the cited page; nothing is guessed. Each mapping has a
 * recorded-shape item in test/fixtures/provider/<actor>.json built from that page's output and a mapping test.
 */
import { Either } from "effect"
import * as Mapping from "./Mapping.js"

const shipped = {
  // https://apify.com/datacortex/google-search-scraper (input `queries`, API example: { "queries": ["adidas"] });
  // its output schema https://apify.com/datacortex/google-search-scraper/output-schema and "Sample output (live)":
  // query, type (organic | paid | error), position, page, title, url, urlShown, description, rankOrganic,
  // rankOverall, sitelinks, errorCode / errorMessage on error rows; "from $1.00 / 1,000 search results".
  "web_search.search": {
    actor: "datacortex~google-search-scraper",
    docs: "https://apify.com/datacortex/google-search-scraper",
    usdPerItem: 0.001,
    input: { queries: ["$query"] },
    keep: { path: "type", in: ["organic"] },
    errors: { when: ["errorMessage", "errorCode"], notFound: "empty_result" },
    rows: {
      page: { path: "page", as: "integer" },
      position: { path: "position", as: "integer" },
      title: "title",
      url: "url",
      snippet: { path: "description", as: "string", default: "" }
    },
    notMapped:
      "pages beyond the first, country, language, site, relatedToSite, since, until and fileTypes: the actor documents no input for them (a request for more pages is delivered page 1, stored as incomplete)"
  },
  // https://apify.com/ultrix_excelence/google-news-scraper-real-urls (input: `queries`, `country` and `language` of
  // the edition, `timeRange` 1h | 1d | 7d | 30d | 1y, `maxArticlesPerQuery` up to about 100, `decodeUrls` on by
  // default; output: query, title, source, sourceUrl, url, googleNewsUrl, publishedAt); "$2.50 / 1,000 articles".
  "web_search.news": {
    actor: "ultrix_excelence~google-news-scraper-real-urls",
    docs: "https://apify.com/ultrix_excelence/google-news-scraper-real-urls",
    usdPerItem: 0.0025,
    input: {
      queries: ["$query"],
      country: "$request.country",
      language: "$request.language",
      timeRange: {
        $value: "request.postedWithin",
        map: { "1h": "1h", "1d": "1d", "7d": "7d", "1y": "1y", any: "1y" },
        default: "1y"
      },
      maxArticlesPerQuery: "$rows"
    },
    rows: {
      title: "title",
      url: { first: ["url", "googleNewsUrl"] },
      publisher: { path: "source", as: "string", default: "" },
      publishedAt: { path: "publishedAt", as: "datetime" },
      snippet: { const: "" }
    },
    notMapped:
      "snippet: the actor gives none (empty); postedWithin any is served as the past year, the actor's widest range"
  },
  // https://apify.com/coder_zoro/google-play-app-reviews-scraper (input `app_id`, `review_count`; one dataset item
  // per app: `app_id` and `reviews`, each review with reviewId, userName, userImage, content, score, thumbsUpCount,
  // reviewCreatedVersion, at, replyContent, repliedAt, appVersion); "from $2.99 / 1,000 results".
  "web_search.playReviews": {
    actor: "coder_zoro~google-play-app-reviews-scraper",
    docs: "https://apify.com/coder_zoro/google-play-app-reviews-scraper",
    usdPerItem: 0.00299,
    input: { app_id: "$subject", review_count: "$rows" },
    items: "reviews",
    rows: {
      reviewId: "reviewId",
      author: { path: "userName", as: "string", default: "" },
      rating: { path: "score", as: "integer" },
      text: { path: "content", as: "string", default: "" },
      thumbsUp: { path: "thumbsUpCount", as: "integer", default: 0 },
      appVersion: { first: ["appVersion", "reviewCreatedVersion"] },
      postedAt: { path: "at", as: "datetime" }
    },
    notMapped: "country, language and sort: the actor documents no input for them (its own order is served)"
  }
} as const

/** `platform.op` -> mapping (decoded here: a shipped mapping that does not decode is a bug caught by its test). */
export const mappings: Readonly<Record<string, Mapping.OpMapping>> = Either.getOrThrow(
  Mapping.decodeMappings(shipped, "the shipped provider catalogue")
)

/** Why an op that fetches has no shipped mapping (it stays on its default route unless an operator maps it). */
const noDocs =
  "no public actor whose page documents both its input fields and output fields covering this op's required row fields was verified in this release"
const storeScoped =
  "store-scoped: the provider adapter resolves no quick-commerce stores (D3), so its ops stay with an adapter that does"
export const unmapped: Readonly<Record<string, string>> = {
  "quick_commerce_a.products": storeScoped,
  "quick_commerce_a.search": storeScoped,
  "quick_commerce_a.category": storeScoped,
  "quick_commerce_b.products": storeScoped,
  "quick_commerce_b.search": storeScoped,
  "quick_commerce_b.category": storeScoped,
  "short_video.profiles": noDocs,
  "short_video.posts": noDocs,
  "short_video.videos": noDocs,
  "short_video.searchPosts": noDocs,
  "short_video.search": noDocs,
  "short_video.comments": noDocs,
  "short_video.followers": noDocs,
  "short_video.shop": noDocs,
  "maps.places": noDocs,
  "maps.search": noDocs,
  "maps.reviews": noDocs,
  "jobs_in.search": noDocs,
  "jobs_global.search": noDocs,
  "jobs_global.jobs": noDocs,
  "social_network.pages": noDocs,
  "social_network.posts": noDocs,
  "social_network.reels": noDocs,
  "social_network.reviews": noDocs,
  "social_network.followers": noDocs,
  "social_network.ads": noDocs,
  "social_network.events": noDocs,
  "social_network.marketplace": noDocs,
  "social_network.comments": noDocs,
  "web_search.images": noDocs,
  "web_search.shopping": noDocs,
  "lodging_booking.properties": noDocs,
  "lodging_booking.search": noDocs,
  "lodging_booking.reviews": noDocs,
  "travel_reviews.hotels": noDocs,
  "travel_reviews.restaurants": noDocs,
  "travel_reviews.attractions": noDocs,
  "travel_reviews.searchHotels": noDocs,
  "travel_reviews.searchRestaurants": noDocs,
  "travel_reviews.searchAttractions": noDocs,
  "travel_reviews.reviews": noDocs,
  "home_rentals.listings": noDocs,
  "home_rentals.reviews": noDocs,
  "fashion_marketplace.products": noDocs,
  "fashion_marketplace.listing": noDocs,
  "fashion_marketplace.search": noDocs,
  "contacts.reveal":
    "priced per contact part (D10): one row per person with parts bought separately; no actor sells parts",
  "explore.run": "served through PROVIDER_EXPLORE (its sources are actors named by the caller), not a mapping"
}
