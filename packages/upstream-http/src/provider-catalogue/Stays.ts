/**
 * The shipped provider catalogue's mappings for lodging_booking, home_rentals (issue 20): each one cites the actor's page where its
 * input fields, output fields and price were read; every op of these platforms that fetches is in `shipped` or in
 * `unmapped` with the reason.
 */
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
      stars: { path: "stars", as: "integer", default: 0 },
      guestScore: { path: "reviewScore", as: "number", default: 0 },
      reviewCount: { path: "reviewCount", as: "integer", default: 0 },
      address: { path: "address", as: "string", default: "" }
    },
    notMapped:
      "stay, propertyType, minStars, minRating, priceMin, priceMax and sort: the page documents only `locations` as input, so the location's cards come unfiltered in Booking's order and unpriced (priceFrom, currency, nights and available stay null; the card's price is nightly, not the stay's total); stars, guestScore and reviewCount are 0 when the card shows none (documented as empty); address is the card's address or district; the page documents error rows (empty title, null url) but not the field that marks them, so the default error paths are kept"
  }
} as const

/** Why an op of these platforms that fetches has no shipped mapping. */
export const unmapped: Readonly<Record<string, string>> = {
  "lodging_booking.properties":
    "no actor taking Booking.com hotel page URLs was found whose readable page gives its input field, its output field names and shapes and a per-result price together: kawsar/booking-scraper (from $6.00 / 1,000; its field table lists name, stars, reviewScore, reviewCount, address, city, price, currency but no page URL field, and its input field is not shown), data_api/booking-scraper-cheap (from $2.99 / 1,000; field names only, no input field or value shapes), reapx/booking-hotel-scraper (startUrls; the examples read show propertyName, reviewScore, reviewsCount, addressFormatted but no star class, and no price was read), voyager/booking-scraper ($5.00 / 1,000; its output is not on the readable part of its page); admo-solutions/booking-scraper (used for search) takes only locations, not hotel URLs. The row's url cannot come from the subject either: a row spec reads only the actor's item",
  "lodging_booking.reviews":
    "the row's `band` must be one of superb, good, average, poor: no Booking review actor read (voyager/booking-reviews-scraper, $2.00 / 1,000 reviews, among them) documents a field holding these bands, and a row spec can neither translate values nor band a number into an enumeration (value maps exist only in input templates), so the band would be guessed; not shipped"
}
