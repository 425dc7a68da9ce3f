/**
 * The shipped provider catalogue's mappings for web_search (issue 20): each one cites the actor's page where its
 * input fields, output fields and price were read; every op of these platforms that fetches is in `shipped` or in
 * `unmapped` with the reason.
 */
export const shipped = {
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
  },
  // https://apify.com/johnvc/google-images-api ("Google Images API - $0.10 per 1,000"; examples
  // https://apify.com/johnvc/google-images-api/examples/get-google-images-results-in-python.md: input `queries`,
  // `maxResultsPerQuery`, `gl`, `hl`; output query, position, title, imageUrl, imageWidth, imageHeight, source, link
  // ("Page Link")); "Pay per image from $0.10 per 1,000 results, with no setup or per-run fee".
  "web_search.images": {
    actor: "johnvc~google-images-api",
    docs: "https://apify.com/johnvc/google-images-api",
    usdPerItem: 0.0001,
    input: { queries: ["$query"], maxResultsPerQuery: "$rows", gl: "us", hl: "en" },
    rows: {
      title: { path: "title", as: "string", default: "" },
      imageUrl: "imageUrl",
      pageUrl: "link",
      width: { path: "imageWidth", as: "integer" },
      height: { path: "imageHeight", as: "integer" }
    },
    notMapped:
      "the search is run in Google's US edition in English (gl us, hl en); source (the site's name) is not a row field"
  },
  // https://apify.com/plumblinedata/google-shopping-scraper ("Google Shopping results by keyword: product title, image,
  // price, previous price, store, rating, and reviews"; "from $2.00 / 1,000 shopping results"): input `queries` (its
  // API example https://apify.com/plumblinedata/google-shopping-scraper/api/python: { "queries": ["google pixel"] });
  // output schema https://apify.com/plumblinedata/google-shopping-scraper/output-schema: query, type (product, grid or
  // error), position, page, title, url ("Shopping listing URL"), imageUrl, price ("Listed price as a number when
  // present"), listPrice, currency ("ISO currency code when present"), merchant ("Store selling the item"), rating,
  // reviews, productId, productToken, rankOrganic, rankOverall.
  "web_search.shopping": {
    actor: "plumblinedata~google-shopping-scraper",
    docs: "https://apify.com/plumblinedata/google-shopping-scraper",
    usdPerItem: 0.002,
    input: { queries: ["$query"] },
    keep: { path: "type", in: ["product", "grid"] },
    rows: {
      title: { path: "title", as: "string", default: "" },
      price: { path: "price", as: "number" },
      currency: "currency",
      merchant: { path: "merchant", as: "string", default: "" },
      rating: { path: "rating", as: "number" },
      url: "url"
    },
    notMapped:
      "country, language, postedWithin and limit: the pages read document no input but queries (the actor's own edition and number of results are served); merchant is empty when the actor gives none; a listing without a price or currency fails the unit (the row requires both); url is the Google Shopping listing page, not always the merchant's; items of type error are never rows"
  }
} as const

/** Why an op of these platforms that fetches has no shipped mapping. */
export const unmapped: Readonly<Record<string, string>> = {}
