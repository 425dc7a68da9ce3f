/**
 * The shipped provider catalogue's mappings for maps (issue 20): each one cites the actor's page where its
 * input fields, output fields and price were read; every op of these platforms that fetches is in `shipped` or in
 * `unmapped` with the reason.
 */

/**
 * A place card of compass~crawler-google-places, shared by places and search. Output as its open source documents it
 * (drobnikj/crawler-google-places, README "Output example"): title, subTitle, categoryName, address, neighborhood,
 * street, city, postalCode, countryCode, plusCode, website, phone, location { lat, lng }, totalScore, placeId
 * (ChIJ...), categories, cid, url, searchString, scrapedAt, reviewsCount, reviewsDistribution, imageUrls, ...; and
 * popularTimesLivePercent (src/place-extractors/general.js, "live data are not present if it is outside opening
 * hours", read from the place's detail page). The actor's issue pages confirm `location: { lat, lng }` and `title`.
 */
const placeRows = {
  placeId: "placeId",
  name: "title",
  address: { path: "address", as: "string", default: "" },
  lat: { path: "location.lat", as: "number" },
  lon: { path: "location.lng", as: "number" },
  rating: { path: "totalScore", as: "number" },
  reviewCount: { path: "reviewsCount", as: "integer", default: 0 },
  categories: { path: "categories", default: [] },
  phone: { path: "phone", as: "string" },
  website: { path: "website", as: "string" },
  liveOccupancyPercent: { path: "popularTimesLivePercent", as: "integer" }
} as const

/** What the place mappings do not give. */
const placeGaps =
  "reviewCount is a required count of the row (not nullable): a place the actor gives without reviewsCount is 0; hours: the actor gives openingHours as a list of { day, hours } texts and only from the place detail page (a paid add-on not requested); the mapping language builds no object from a list, so hours stay null; liveOccupancyPercent likewise comes only with the detail page and outside opening hours never, so it is usually null; a place the actor gives without totalScore (no reviews yet) has a null rating"

export const shipped = {
  // https://apify.com/compass/crawler-google-places (Google Maps Scraper, maintained by Apify). Input as Apify
  // publishes it (its API example and its n8n node apify/n8n-nodes-crawler-google-places, which mirrors the actor's
  // input schema): `placeIds` ("List of place IDs ... format `ChIJreV9aqYWdkgROM_boL6YbwA`"), `language`,
  // `searchStringsArray`, `locationQuery`, `maxCrawledPlacesPerSearch`. Output: see placeRows above. Pricing: pay per
  // event, "Actor start" $0.007 per run and "Place scraped" $0.004 per place.
  "maps.places": {
    actor: "compass~crawler-google-places",
    docs: "https://apify.com/compass/crawler-google-places",
    usdPerItem: 0.004,
    usdPerRun: 0.007,
    input: { placeIds: ["$subject"], language: "en" },
    rows: placeRows,
    notMapped: `${placeGaps}; a subject given as a cid or ftid is sent as a place id, which the actor documents only in the ChIJ... form`
  },
  // https://apify.com/compass/crawler-google-places, as above: `searchStringsArray`, `locationQuery` (the location
  // the search is run in), `maxCrawledPlacesPerSearch`, `language`; the search filter add-ons `placeMinimumStars`
  // ("" all | two | twoAndHalf | three | threeAndHalf | four | fourAndHalf) and `website` (allPlaces | withWebsite |
  // withoutWebsite), "charged $0.001 per result per filter field used"; a request without minRating leaves
  // placeMinimumStars out of the input (the actor's own default applies, no filter charged). Price: $0.007 per run,
  // $0.004 per place, and $0.001 per place for each of the two filters a request can turn on: $0.006 at most.
  "maps.search": {
    actor: "compass~crawler-google-places",
    docs: "https://apify.com/compass/crawler-google-places",
    usdPerItem: 0.006,
    usdPerRun: 0.007,
    input: {
      searchStringsArray: ["$query"],
      locationQuery: "$request.location",
      maxCrawledPlacesPerSearch: "$rows",
      language: "en",
      placeMinimumStars: {
        $value: "request.minRating",
        map: {
          "2": "two",
          "2.5": "twoAndHalf",
          "3": "three",
          "3.5": "threeAndHalf",
          "4": "four",
          "4.5": "fourAndHalf"
        }
      },
      website: {
        $value: "request.website",
        map: { any: "allPlaces", with: "withWebsite", without: "withoutWebsite" },
        default: "allPlaces"
      }
    },
    rows: placeRows,
    notMapped: `${placeGaps}; the price per place is the actor's $0.004 plus $0.001 for each filter used (minRating, website)`
  },
  // https://apify.com/reapx/google-maps-review-scraper (example
  // https://apify.com/reapx/google-maps-review-scraper/examples/qa-google-maps-review-scraper-trio-proved-set.md):
  // input `startUrls` (Maps place URLs, "https://www.google.com/maps/place/?q=place_id:ChIJ..."), `maxItems`,
  // `maxReviewsPerPlace`, `maxSeconds`; output one item per review: text, category, rating, reviewId, reviewDataUrl,
  // placeRating, authorName, placeName, placeId, relativeDate, publishedAtMs, scrapedAt; pay per event,
  // "from $1.14 / 1,000 businesses".
  "maps.reviews": {
    actor: "reapx~google-maps-review-scraper",
    docs: "https://apify.com/reapx/google-maps-review-scraper",
    usdPerItem: 0.00114,
    input: {
      startUrls: ["https://www.google.com/maps/place/?q=place_id:{subject}"],
      maxItems: "$rows",
      maxReviewsPerPlace: "$rows"
    },
    rows: {
      reviewId: "reviewId",
      author: { path: "authorName", as: "string", default: "" },
      rating: { path: "rating", as: "integer" },
      title: { const: "" },
      text: { path: "text", as: "string", default: "" },
      postedAt: { path: "publishedAtMs", as: "datetime" }
    },
    notMapped:
      "sort: the actor documents no order input (its own order is served); title: Google reviews have none (empty); a subject given as a cid or ftid is put in the place_id URL, which the actor documents only with ChIJ... ids"
  }
} as const

/** Why an op of these platforms that fetches has no shipped mapping. */
export const unmapped: Readonly<Record<string, string>> = {}
