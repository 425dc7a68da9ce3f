/**
 * The shipped provider catalogue's mappings for lodging_booking, home_rentals (issue 20): each one cites the actor's page where its
 * input fields, output fields and price were read; every op of these platforms that fetches is in `shipped` or in
 * `unmapped` with the reason.
 */

/**
 * The site language codes voyager~booking-scraper's `language` input takes (its INPUT_SCHEMA.json enum), keyed by the
 * BCP-47 tag a stay names; a tag not listed is left out of the input, so the actor's own default (en-us) applies.
 */
const bookingLanguage: Readonly<Record<string, string>> = {
  "en-GB": "en-gb",
  "en-US": "en-us",
  "es-AR": "es-ar",
  "pt-PT": "pt-pt",
  "pt-BR": "pt-br",
  "zh-CN": "zh-cn",
  "zh-TW": "zh-tw",
  ...Object.fromEntries(
    ["de", "nl", "fr", "es", "ca", "it", "no", "fi", "sv", "da", "cs", "hu", "ro", "ja", "pl", "el", "ru", "tr", "bg"]
      .concat(["ar", "ko", "he", "lv", "uk", "id", "ms", "th", "et", "hr", "lt", "sk", "sr", "sl", "vi", "tl", "is"])
      .map((code) => [code, code])
  )
}

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
  },
  // https://apify.com/thescrappa/airbnb-reviews-scraper ("from $0.67 / 1,000 results", pay per event; the pricing
  // tab's table was not readable, so the advertised per-result price is the one used): public guest reviews of
  // listings, newest first. Its README table of output fields: review_id (String, Airbnb ID of the review), rating
  // (Integer or null, 1 to 5), comment (String or null, full text in its original language), language (String or
  // null, two-letter code of the review), created_at (String, ISO 8601 date and time posted, in UTC),
  // reviewer_first_name (String or null), stay_length (String or null, e.g. "Stayed a few nights"), listing_id
  // (String). Input from its "Airbnb Guest Reviews" example: { "listings": [{ "listing_id": "29754402" }],
  // "maxResults": 50, "maxPages": 100 }. One run per listing, so maxResults caps that listing's reviews.
  "home_rentals.reviews": {
    actor: "thescrappa~airbnb-reviews-scraper",
    docs: "https://apify.com/thescrappa/airbnb-reviews-scraper",
    usdPerItem: 0.00067,
    input: { listings: [{ listing_id: "$subject" }], maxResults: "$rows" },
    keep: { path: "rating", in: [1, 2, 3, 4, 5] },
    rows: {
      reviewId: "review_id",
      author: { path: "reviewer_first_name", as: "string", default: "" },
      rating: { path: "rating", as: "integer" },
      title: { const: "" },
      text: { path: "comment", as: "string", default: "" },
      postedAt: { path: "created_at", as: "datetime" },
      locale: { path: "language", as: "string", default: "" }
    },
    notMapped:
      "the request's locale: the page documents no locale or translation input, so each review comes in its original language and `locale` is that review's two-letter language code (empty when Airbnb gives none); title is empty (Airbnb reviews have none); author is the reviewer's first name (empty when hidden); reviews without a star rating (null) are skipped; a listing URL without a room id is passed as listing_id unchanged (the example shows only ids); the page documents no error rows, so the default error paths are kept"
  },
  // https://apify.com/admo-solutions/booking-scraper ("Scrape Booking.com hotel listings with prices, ratings, and
  // reviews"; "from $4.00 / 1,000 results"): input `locations` (API example { "locations": ["Paris, France"] }); its
  // output schema https://apify.com/admo-solutions/booking-scraper/output-schema: title (the property name on the
  // search results card, empty on error rows), url (canonical, null on error rows), address ("address / district as
  // shown on the card"), distance, reviewScore (1-10 as text, "8.7", empty when the card shows none), reviewCount
  // (digits as text, empty when unknown), reviewBadge, price (nightly, digits, empty without dates), currency (USD when
  // no price is shown), stars (1-5, empty when the result-page variant does not show them).
  "lodging_booking.search": {
    actor: "admo-solutions~booking-scraper",
    docs: "https://apify.com/admo-solutions/booking-scraper",
    usdPerItem: 0.004,
    input: { locations: ["$request.location"] },
    rows: {
      name: "title",
      url: "url",
      stars: { path: "stars", as: "integer" },
      guestScore: { path: "reviewScore", as: "number" },
      reviewCount: { path: "reviewCount", as: "integer", default: 0 },
      address: { path: "address", as: "string", default: "" }
    },
    notMapped:
      "stay, propertyType, minStars, minRating, priceMin, priceMax and sort: the page documents only `locations` as input, so the location's cards come unfiltered in Booking's order and unpriced (priceFrom, currency, nights and available stay null; the card's price is nightly, not the stay's total); stars and guestScore are null when the card shows none (documented as empty: an unrated property), reviewCount 0; address is the card's address or district; the page documents error rows (empty title, null url) but not the field that marks them, so the default error paths are kept"
  },
  // https://apify.com/voyager/booking-scraper (Apify's Booking Scraper, "Pay $5.00 for 1,000 results" on its Store
  // pages; "You can crawl by keywords or URLs for hotel prices, ratings, addresses, number of reviews, stars"). Its
  // Store page does not show its input and output on the readable part, so both were read in its open-source
  // repository, github.com/dtrungtin/actor-booking-scraper (README.md at commit 76ffeea of 2022-06-14, INPUT_SCHEMA.json,
  // src/extraction/detail-page-extraction.js; the Store actor is its successor, and its maintainers' answers on the Store
  // issues match it: hotel page start URLs are scraped, the description carries Booking's "You're eligible for a
  // Genius discount" text): input `startUrls` ("If the startURL is a hotel detail page, it will be scraped"; the README
  // example lists them as strings), `language` (one of en-gb, en-us, de, nl, fr, es, es-ar, ..., zh-cn, zh-tw),
  // `currency`, `checkIn`, `checkOut` (yyyy-mm-dd), `adults`, `rooms`; output of a detail page: url (with Booking's query
  // parameters), name, type, description, stars (null when the page shows no star icons, per the extraction source),
  // price (the first room's price, taxes added), rating (0-10), reviews, address { full, postalCode, street, country,
  // region }, rooms [{ available, roomType, price, currency (a symbol, "€ ") }] (rooms and prices only with checkIn and
  // checkOut), categoryReviews, userReviews. The Voyager changelog (https://apify.com/voyager/fast-booking-scraper/
  // changelog) records address, rating and reviews extraction fixed for hotels (2025-06-19). One run per hotel page.
  "lodging_booking.properties": {
    actor: "voyager~booking-scraper",
    docs: "https://apify.com/voyager/booking-scraper",
    usdPerItem: 0.005,
    input: {
      startUrls: ["$subject"],
      language: { $value: "request.stay.language", map: bookingLanguage }
    },
    rows: {
      name: "name",
      url: { path: "url", match: "^([^?#]+)" },
      stars: { path: "stars", as: "integer" },
      guestScore: { path: "rating", as: "number" },
      reviewCount: { path: "reviews", as: "integer", default: 0 },
      address: { first: ["address.full", { const: "" }] }
    },
    notMapped:
      "priceFrom, currency, nights and available stay null, so the stay's dates and currency are not sent: the actor's price is the first room listed on the page (its source takes rooms[0].price), documented neither as the lowest offer nor as the total for the stay, and its currency is a symbol; stars and guestScore are null when the page shows none (null in the actor's item: an unrated property), reviewCount 0; url is the page URL without Booking's query parameters; the stay's language goes to the actor's language input when it is one the actor lists (en-GB, en-US, de, fr, ...), else the actor's default (en-us) applies; the actor's documentation shows no error items, so the default error paths are kept"
  },
  // https://apify.com/thescrappa/booking-reviews-scraper (Scrappa's Booking.com Reviews Scraper; "$0.30 per 1,000
  // results. Apify saves one dataset item per result and applies the Actor's per-result price to saved items"). Its
  // README and input schema are published by the author in github.com/userlip/scrappa-apify-actors
  // (actors/booking-reviews-scraper/.actor/README.md at commit 274d398, input_schema.json at commit 572892b; the
  // README's API example names the actor thescrappa~booking-reviews-scraper). Input: `hotels` [{ url }] (required),
  // `sort` (recent_desc, recent_asc, score_desc, score_asc), `limit` (reviews a page, 1 to 25), `maxPages` (pages per
  // hotel, 1 to 100, default 1), `maxResults` (dataset items across the run, 1 to 1,000), `lang`, `currency`. Output
  // (the README's table and example): review_id, rating (a string, "9.2"), title, text, positive_text,
  // negative_text, author, traveler_type ("Couple"), stay_date ("September 2026"), created_at ("2026-09-18"),
  // language, input_url, scraped_at. One run per hotel page: four pages of 25 cover the op's largest limit (100),
  // and maxResults stops the run at the rows asked.
  "lodging_booking.reviews": {
    actor: "thescrappa~booking-reviews-scraper",
    docs: "https://apify.com/thescrappa/booking-reviews-scraper",
    usdPerItem: 0.0003,
    input: {
      hotels: [{ url: "$subject" }],
      sort: {
        $value: "request.sort",
        map: { newest: "recent_desc", oldest: "recent_asc", rating_high: "score_desc", rating_low: "score_asc" }
      },
      limit: 25,
      maxPages: 4,
      maxResults: "$rows"
    },
    rows: {
      reviewId: "review_id",
      author: { path: "author", as: "string", default: "" },
      rating: { path: "rating", as: "integer" },
      title: { path: "title", as: "string", default: "" },
      text: { path: "text", as: "string", default: "" },
      postedAt: { path: "created_at", as: "datetime" },
      band: {
        path: "rating",
        as: "integer",
        bands: [
          { min: 9, value: "superb" },
          { min: 7, value: "good" },
          { min: 5, value: "average" },
          { min: 0, value: "poor" }
        ]
      },
      travellerType: { path: "traveler_type", as: "string", default: "" }
    },
    notMapped:
      "since and scoreBands: the actor documents no date or score filter, so a hotel's reviews come unfiltered in the order asked (relevance leaves the actor's own order); rating is the review's score rounded to a whole point (the actor gives it as text, \"9.2\" is 9) and band our classification of that rating (superb 9 and up, good 7, average 5, poor below); text is the review's text (its liked and disliked parts, positive_text and negative_text, are not joined in); postedAt is created_at, a date (midnight UTC); author and travellerType are empty when the review gives none; the README documents no error items (a failed hotel is logged, not saved), so the default error paths are kept"
  }
} as const

/** Why an op of these platforms that fetches has no shipped mapping. */
export const unmapped: Readonly<Record<string, string>> = {}
