/**
 * The shipped provider catalogue's mappings for social_network (issue 20): each one cites the actor's page where its
 * input fields, output fields and price were read; every op of these platforms that fetches is in `shipped` or in
 * `unmapped` with the reason.
 */

/** What a page subject given as a full URL (a group, an event, ...) does with the mappings that build a page URL. */
const urlSubjects =
  "a page subject given as a full URL (a group or other URL-only page) cannot be served: the input is built as https://www.facebook.com/<handle or id>/ and the mapping language has no way to pass a URL subject as it is"

export const shipped = {
  // https://apify.com/apify/facebook-pages-scraper (Facebook Pages Scraper, maintained by Apify: "Extract Facebook
  // page details, website, email, address, messenger, likes, followers, rating, ad running status"; "from $6.60 /
  // 1,000 pages", read in the header of its store pages, e.g.
  // https://apify.com/apify/facebook-pages-scraper/issues/doesnt-seem-to-be-co-en7VQqii6Eek54Yc8). Input and output
  // as Apify's own Claude Code plugin documents the actor (the "Official Apify plugin marketplace", file
  // plugins/lead-generation/skills/generating-leads/reference/actors/apify-facebook-pages-scraper.md, read in its copy
  // https://github.com/mattburnham/apify-agent-skills): input `startUrls` ([{ "url":
  // "https://www.facebook.com/copperkettleyqr/" }], "Facebook page URLs (required)"); output facebookUrl, title ("Page
  // name"), pageId, pageName, pageUrl, categories ("Page categories array"), info, email, phone, address, websites,
  // website ("Primary website URL"), messenger, likes ("Page likes count"), followers ("Page followers count"),
  // followings ("if available"), rating ("Page rating with review count string (e.g., \"94% recommend (839
  // Reviews)\")"), ratingOverall ("Numeric rating percentage"), ratingCount ("Number of ratings"), profilePictureUrl,
  // coverPhotoUrl, intro, about_me, CONFIRMED_OWNER_LABEL, confirmed_owner, creation_date, ad_status, pageAdLibrary.
  // The actor's issue pages confirm followers and followings ("the follower count will be under followers and the
  // following count will be under followings", .../issues/can-the-results-retr-ghgEpfvdCNCyJ9SQ9) and that it gives
  // no verified flag, only the confirmed owner ("CONFIRMED_OWNER_LABEL ... for verified pages",
  // .../issues/get-pages-verified-s-rqy4rseUQ0i6P88MR).
  "social_network.pages": {
    actor: "apify~facebook-pages-scraper",
    docs: "https://apify.com/apify/facebook-pages-scraper",
    usdPerItem: 0.0066,
    input: { startUrls: [{ url: "https://www.facebook.com/{subject}/" }] },
    rows: {
      name: "title",
      category: { path: "categories", join: ", ", default: "" },
      followers: { path: "followers", as: "integer" },
      likes: { path: "likes", as: "integer" },
      reviewCount: {
        first: [
          { path: "ratingCount", as: "integer" },
          { path: "rating", match: "\\(([\\d,]+) Reviews?\\)", as: "integer" }
        ]
      },
      recommendPercent: { path: "rating", match: "^(\\d+(?:\\.\\d+)?)% recommend", as: "number" },
      website: { path: "website", match: "^(https?://\\S+)$" }
    },
    notMapped: `talkingAbout: the actor documents no talking-about count; null. verified: it documents no verified badge (its confirmed owner label is not the badge); null. reviewCount is ratingCount, else the count in the rating text ("94% recommend (839 Reviews)"), else null; recommendPercent is read from the rating text only (ratingOverall's scale is not shown for pages rated in stars), else null; category is the categories joined with ", "; website is null unless the actor gives an absolute URL; followers and likes are required counts: a page the actor gives without either fails the unit (never 0); the actor documents no error item, so the default error paths are kept; ${urlSubjects}`
  },
  // https://apify.com/alfalfa/facebook-posts-scraper ("Facebook Posts Scraper · No Login · $1.4/1k"; example
  // https://apify.com/alfalfa/facebook-posts-scraper/examples/facebook-post-scraper-for-n8n-make-zapier.md): input
  // `startUrls` ([{ url: "https://www.facebook.com/TED/" }]), `resultsLimit`, `captionText`, `maxConcurrency`,
  // `proxyConfiguration`; output pageName, time ("Published (UTC)"), text, likes ("Reactions"), comments, shares,
  // viewsCount ("Video plays"), link, url ("Post URL"); "$2 per 1,000 posts, no start fee".
  "social_network.posts": {
    actor: "alfalfa~facebook-posts-scraper",
    docs: "https://apify.com/alfalfa/facebook-posts-scraper",
    usdPerItem: 0.002,
    input: { startUrls: [{ url: "https://www.facebook.com/{subject}/" }], resultsLimit: "$rows" },
    rows: {
      permalink: "url",
      text: { path: "text", as: "string", default: "" },
      postedAt: { path: "time", as: "datetime" },
      reactions: { path: "likes", as: "integer", default: 0 },
      comments: { path: "comments", as: "integer", default: 0 },
      shares: { path: "shares", as: "integer", default: 0 }
    },
    notMapped: `since and until: the actor documents no date input (the newest posts are served); reactions, comments and shares are required counts of the row (not nullable), so a count the actor leaves out is 0, not null; ${urlSubjects}`
  },
  // https://apify.com/fetch_cat/facebook-reels-scraper (output schema
  // https://apify.com/fetch_cat/facebook-reels-scraper/output-schema: inputUrl, normalizedUrl, sourceType, status,
  // reelId, reelUrl, postUrl, text, timestamp, ownerName, ownerUrl, ownerId, playCount, likeCount, reactionCount
  // ("total reactions"), commentCount, durationSeconds, thumbnailUrl, videoUrl, pageName, pageUrl, pageId,
  // followerCount, likesCount, category, missingFields); input `startUrls` and `usernames` (its API example
  // https://apify.com/fetch_cat/facebook-reels-scraper/api/javascript: { "startUrls": [{ "url":
  // "https://www.facebook.com/9GAGCute/reels/" }, ...], "usernames": ["9GAGCute"] }); "from $2.20 / 1,000 reel results".
  "social_network.reels": {
    actor: "fetch_cat~facebook-reels-scraper",
    docs: "https://apify.com/fetch_cat/facebook-reels-scraper",
    usdPerItem: 0.0022,
    input: { usernames: ["$subject"] },
    rows: {
      permalink: { first: ["reelUrl", "postUrl"] },
      caption: { path: "text", as: "string", default: "" },
      plays: { path: "playCount", as: "integer", default: 0 },
      reactions: { path: "reactionCount", as: "integer", default: 0 },
      comments: { path: "commentCount", as: "integer", default: 0 },
      postedAt: { path: "timestamp", as: "datetime" }
    },
    notMapped:
      "the number of reels is bounded by the run's item limit (the page shows no count input); plays, reactions and comments are required counts of the row (not nullable), so a count the actor leaves out (missingFields) is 0, not null; a page subject given as a full URL is sent as a username, a form the page does not document"
  },
  // https://apify.com/mina_safwat/facebook-comments-scraper ("An Apify Actor that scrapes comments from Facebook posts";
  // its Input and Output tables): input `start_urls` (a list of { url } of post URLs) and `comments_limit` ("maximum
  // comments to scrape per post", default 10, settable per URL); output one item per comment: comment_id, user_id,
  // user_name, user_url, avatar, gender, content ("Comment text"), text ("Comment text (alias)"), likes_count ("Number
  // of reactions"), create_time ("Comment timestamp (milliseconds)"). Price read on two snapshots of the page: "from
  // $5.71 / 1,000 results" (https://apify.com/mina_safwat/facebook-comments-scraper) and "from $1.79 / 1,000 results"
  // (its .md form); the higher is used.
  "social_network.comments": {
    actor: "mina_safwat~facebook-comments-scraper",
    docs: "https://apify.com/mina_safwat/facebook-comments-scraper",
    usdPerItem: 0.00571,
    input: { start_urls: [{ url: "$subject" }], comments_limit: "$rows" },
    rows: {
      commentId: { path: "comment_id", as: "string" },
      author: { path: "user_name", as: "string", default: "" },
      text: { first: ["text", { path: "content", as: "string", default: "" }] },
      reactions: { path: "likes_count", as: "integer", default: 0 },
      postedAt: { path: "create_time", as: "datetime" }
    },
    notMapped:
      "includeReplies and sort: the actor documents no input for replies or for the order (its own are served); replies: it gives no reply count, so the optional field is left out; reactions is a required count of the row (not nullable), so a count the actor leaves out is 0"
  },
  // https://apify.com/scrapingmonkey/facebook-page-reviews-scraper ("Facebook Page Reviews Scraper – Recommendations";
  // its .md form https://apify.com/scrapingmonkey/facebook-page-reviews-scraper.md: "from $1.00 / 1,000 results", paid
  // per event, no platform usage): input from its example tasks, e.g.
  // https://apify.com/scrapingmonkey/facebook-page-reviews-scraper/examples/facebook-page-reviews-reviewer-context.md
  // ({ "inputList": ["Meta"], "pagesPerProfile": 1 }; the form labels inputList "Facebook Page usernames or URLs",
  // pagesPerProfile "Pages per profile", 1 in every example); output keys from the same .md: input, status, id,
  // recommendation_id, url, text, timestamp ("integer"), published_at ("string"), recommendation_text, recommendation,
  // is_recommended ("boolean"), rating, reactions_count, comments_count; the rest of the output by label on the task's
  // page https://apify.com/scrapingmonkey/facebook-page-reviews-scraper/examples/facebook-page-reviews-reviewer-context:
  // "Shares Count", "Reviewer / ID", "Reviewer / Page ID", "Reviewer / Username", "Reviewer / Name", "Reviewer / URL",
  // "Reviewer / Profile Picture URL", "Reviewer / Is Verified", "Media / ...", "Source Profile / ID", ... The key of a
  // nested label follows the developer's own form, read on its followers actor's example .md
  // (https://apify.com/scrapingmonkey/facebook-page-followers-scraper/examples/facebook-follower-snapshot-study-records.md:
  // "source_profile.id" labelled "Source Profile / ID", "source_profile.page_id" "Source Profile / Page ID"), so
  // "Reviewer / Name" is reviewer.name.
  "social_network.reviews": {
    actor: "scrapingmonkey~facebook-page-reviews-scraper",
    docs: "https://apify.com/scrapingmonkey/facebook-page-reviews-scraper",
    usdPerItem: 0.001,
    input: { inputList: ["$subject"] },
    rows: {
      reviewer: { path: "reviewer.name", as: "string", default: "" },
      recommends: { path: "is_recommended", as: "boolean" },
      text: { path: "text", as: "string", default: "" },
      postedAt: {
        first: [
          { path: "timestamp", as: "datetime" },
          { path: "published_at", as: "datetime" }
        ]
      }
    },
    notMapped:
      "limit: the actor takes pages of reviews (pagesPerProfile, left to its default 1; how many reviews a page holds is not documented), not a count, so a unit gets the reviews of its first page, bounded by the run's item limit; reviewer is a required string of the row, so a review the actor gives without a reviewer name (its examples say identity fields may be missing) has an empty reviewer; a review without is_recommended, or without both timestamp and published_at, fails the unit; the actor's status rows (its status and notice fields) are not documented by value, so they are not told apart from reviews"
  },
  // https://apify.com/easyapi/facebook-ads-scraper ("Facebook Ads Library Scraper", "from $7.99 / 1,000 results"):
  // input from its API example https://apify.com/easyapi/facebook-ads-scraper/api/python: `sourceUrls`
  // (["https://www.facebook.com/SHEINOFFICIAL"]; its input schema page: "Facebook Page URLs and/or Meta Ad Library
  // URLs"), `maxAdsPerUrl` ("Maximum number of ads to collect for each source URL"), `countOnly`, `includeAboutInfo`,
  // `includeAdDetails`, `adStatus` ("all" in the example; "Filter by active/inactive", its other values not shown),
  // `sortBy`; output schema https://apify.com/easyapi/facebook-ads-scraper/output-schema: pageName, archiveId ("Meta Ad
  // Library archive ID"), isActive, title, body, ctaLabel, landingUrl ("Destination link from the ad"), platforms
  // ("Publisher platforms such as FACEBOOK or INSTAGRAM"), mediaFormat, startedAt ("Ad start date (ISO)"), endedAt,
  // pageUrl, sourceUrl, adsCount, scrapedAt.
  "social_network.ads": {
    actor: "easyapi~facebook-ads-scraper",
    docs: "https://apify.com/easyapi/facebook-ads-scraper",
    usdPerItem: 0.00799,
    input: { sourceUrls: ["https://www.facebook.com/{subject}"], maxAdsPerUrl: "$rows", adStatus: "all" },
    rows: {
      adId: { path: "archiveId", as: "string" },
      status: { path: "isActive", map: { true: "active", false: "inactive" } },
      startedAt: { path: "startedAt", as: "datetime" },
      platforms: { path: "platforms", default: [] },
      body: { path: "body", as: "string", default: "" },
      landingUrl: "landingUrl"
    },
    notMapped: `status: the actor's adStatus is documented only with the value all, so active and inactive ads are both fetched and each row carries its own status (isActive); a request for one status may get rows of the other; an ad the actor gives without landingUrl, startedAt or isActive fails the unit (the row requires them); ${urlSubjects}`
  },
  // https://apify.com/automation-lab/facebook-followers-following-scraper ("Export public Facebook follower and
  // following identities with names, profile URLs, IDs, images, and relationship metadata from sections visible without
  // login"). Input and output from its two example tasks, one per direction:
  // https://apify.com/automation-lab/facebook-followers-following-scraper/examples/export-facebook-followers-list.md
  // ({ "startUrls": [{ "url": "https://www.facebook.com/LeonardoDiCaprio/followers" }], "relationshipType":
  // "followers", "maxItems": 5, "maxSessionRetries": 3 }) and
  // https://apify.com/automation-lab/facebook-followers-following-scraper/examples/extract-leonardo-dicaprio-facebook-following.md
  // (the same with .../following and "relationshipType": "following"); output, one item per profile, in both:
  // sourceName, relationshipType, profileName ("Profile name"), profileUrl ("Profile URL"), profileId, username,
  // profileImageUrl, scrapedAt. Price: "from $2.21 / 1,000 public relationship records"
  // (https://apify.com/automation-lab/facebook-followers-following-scraper/pricing).
  "social_network.followers": {
    actor: "automation-lab~facebook-followers-following-scraper",
    docs: "https://apify.com/automation-lab/facebook-followers-following-scraper",
    usdPerItem: 0.00221,
    input: {
      startUrls: [{ url: "https://www.facebook.com/{subject}/{request.direction}" }],
      relationshipType: "$request.direction",
      maxItems: "$rows"
    },
    rows: {
      name: { path: "profileName", as: "string", default: "" },
      profileUrl: "profileUrl"
    },
    notMapped: `the direction is sent twice, as the list's URL (https://www.facebook.com/<page>/followers or /following, the form of the actor's examples) and as relationshipType; the actor reads only sections visible without login, so a page whose list Facebook hides gives fewer profiles than asked (the unit is then delivered short); name is a required string of the row, so a profile the actor gives without profileName has an empty name, and one without profileUrl fails the unit; the price is the pricing page's "from" amount (its lowest tier), so on a dearer plan the charge limit may stop the run before the rows asked; the actor documents no error item, so the default error paths are kept; ${urlSubjects}`
  }
} as const

/** Why an op of these platforms that fetches has no shipped mapping. */
export const unmapped: Readonly<Record<string, string>> = {
  "social_network.events":
    "needs a keyword search of events with going and interested counts: coregent/facebook-events-scraper has a keyword input (searchTerms, maxEvents in its API example) but no output field names or price were read; unseenuser/fb-events' changelog names start_timestamp, start_utc and responded_count and keyword discovery, but not the keyword input's name, going or interested field names, or its price; unfenced-group/facebook-events-scraper (keyword mode in its description), data_minds/facebook-event-scraper and scrapegeist pages read show no input or output names; themineworks and the other actors checked in the first round document no keyword mode; in the third round no page read gave coregent's output keys or price either, and unfenced-group/facebook-events-scraper's API description (keyword mode, \"exact going and interested counts\", paid per result) names no keys and no amount; in the fourth round icoe-man/facebook-events-scraper's API example (https://apify.com/icoe-man/facebook-events-scraper/api/python: mode events-search, keywords, maxItems) comes with no output keys or price; unseenuser/fb-events' changelog (https://apify.com/unseenuser/fb-events/changelog: keywords among its auto-detected inputs; start_timestamp, start_utc, responded_count = interested + going) names no going or interested key, no keyword input key and no price; data_minds, hyperbach, confidential_gnat and parseforge name a keyword search and going/interested counts only in their descriptions; in the fifth round unseenuser/fb-events' changelog (https://apify.com/unseenuser/fb-events/changelog: start_utc, responded_count = interested + going, attendance_facepile_count, interest_to_going_ratio, keywords among the auto-detected inputs) still names no going or interested key and not the keyword input's key, and no price was read; data_minds/facebook-event-scraper's changelog (https://apify.com/data_minds/facebook-event-scraper/changelog.md: search queries with date and category filters, a README with field tables) is all the stored copies give of it, the field tables are past the part stored; the Bright Data events API documents event_id, name, start_date, location, attendees_count and interested_count, but it is not the hosted provider; in the sixth round crawlerbros/facebook-events-scraper (its README copied in github.com/SharryCodes019/crawlerbros-apify-tutorials, facebook-events-scraper-tutorial/README.md: eventUrls only; users_responded, no going or interested split) says it \"does not search for events by keyword\", and no other events actor's example task or output schema read names a keyword input together with going and interested keys; in the seventh round: apify/facebook-events-scraper (searchQueries and maxEvents, usersGoing and usersInterested in third-party code that calls it) has no Store, API or example page in the stored copies, so neither its output nor its price was read from its documentation; reapx/facebook-event-scraper's example (https://apify.com/reapx/facebook-event-scraper/examples/qa-facebook-event-scraper-refresh-calendar.md) takes event URLs and shows no going or interested key; in the eighth round: automly/facebook-events-scraper (https://apify.com/automly/facebook-events-scraper/api/javascript: searchQueries, startUrls, maxEvents) and calm_builder/facebook-events-scraper (https://apify.com/calm_builder/facebook-events-scraper/api/javascript: startUrls, searchQueries, locations, maxEvents) take keywords, but no page read gives their output keys or a per-event price; themineworks/facebook-events-scraper (its API description: keyword, city, Page, group or link; going and interested counts) and scrapegeist/facebook-organizer-events-scraper (its API description: page, group, city or keyword search; $4 per 1,000 events) name neither input nor output keys on the readable part; scrapercompany/facebook-events-scraper (going and interested counts) takes city and Page listing links only, no keyword; patient_discovery/facebook-search-events (keyword) gives event ids, titles and URLs only, no counts; the hosted agent at https://mindcase.co/agents/facebook/events.md (searchQueries, maxResults; eventName, startDate, going, ...) is not the hosted provider; no public repository of a Facebook events actor with a keyword input was found in the code index (searches on its search URL, usersGoing and interestedCount find only callers and unrelated code)",
  "social_network.marketplace":
    "no actor page read documents a listing's posted date (a required row field) by its field name together with input names: socialscrapers/facebook-marketplace-scraper's output schema (id, url, title, price, currency, location; from $0.36 / 1,000) names the date listed only in its description, the part of the schema read has no date field; automation_craft/facebook-marketplace-scraper's schema (listingId, url, title, price, priceFormatted, city, state; $0.38 / 1,000) has no currency code and its listed-date field was cut off; maximedupre/facebook-marketplace-listings (collectedAt only, $0.90 / 1,000), mrdoe (listing dates in prose only) and fetch_cat have none; in the third round both output schemas were read again (https://apify.com/socialscrapers/facebook-marketplace-scraper/output-schema, https://apify.com/automation_craft/facebook-marketplace-scraper/output-schema): the part readable ends before the listed-date field in both (automation_craft's rows also carry a type: listing, watch, coverage, status or summary); in the fourth round (a posting date is not a measured value, so postedAt is not made nullable): bovi/facebook-marketplace-scraper (a field table with id, title, price, price_amount, currency, location and a \"posted time\" cut off before its key; location and keyword input, no category or search URL), themineworks (https://apify.com/themineworks/facebook-marketplace-scraper/output-schema: listing_id, listing_url, title, price, currency, ..., listed time further than the part stored), cliqtomedia/facebook-marketplace (output schema listingId, url, title, price, currency, location, ...; post date further than the part stored), deepmine and apimy name a listing date only in prose; fetch_cat/facebook-marketplace-scraper (https://apify.com/fetch_cat/facebook-marketplace-scraper/output-schema: id, listingUrl, title, priceAmount, currency, locationText, ...) and maximedupre/facebook-marketplace-listings (collectedAt) give no listing date; in the fifth round (D38 lets postedAt be null, so the listing date no longer blocks; postedAt stays required until a mapping needs it): fetch_cat/facebook-marketplace-scraper's output schema is readable whole (https://apify.com/fetch_cat/facebook-marketplace-scraper/output-schema: id, listingUrl, sourceUrl, title, priceText, priceAmount, currency \"Parsed ISO-like currency code when available\", locationText, city, state, ...) but no page read names its input keys (its page says only \"Paste one or more public Marketplace search, city, category, or listing URLs and set a listing limit\") and two snapshots of it give different prices ($6.00 and $0.24 / 1,000 item processeds); maximedupre/facebook-marketplace-listings' output schema (https://apify.com/maximedupre/facebook-marketplace-listings/output-schema: listingId, listingUrl, title, price, currency, location, availabilityStatus, primaryImageUrl, collectedAt; from $0.90 / 1,000 listings) comes without its input keys; apify/facebook-marketplace-scraper (startUrls [{ url }] and resultsLimit in its API example https://apify.com/apify/facebook-marketplace-scraper/api/endpoints; $5.00 / 1,000 results) shows no output field on any page read; leadsbrary/lite-facebook-marketplace-scraper (https://apify.com/leadsbrary/lite-facebook-marketplace-scraper/examples/lite-facebook-marketplace-scraper-quick-start.md: startUrls, maxItems; id, title, price as text, city, listingUrl) gives no currency code and no price was read; scrapers-hub/facebook-marketplace-scraper's output schema (listing_price, location, ...; from $1.99 / 1,000 results) does not show listing_price's shape or a currency; in the sixth round the output schemas of socialscrapers/facebook-marketplace-scraper (https://apify.com/socialscrapers/facebook-marketplace-scraper/output-schema: id, url, title, price, currency, ..., description; \"date listed\" in its summary) and cliqtomedia/facebook-marketplace (https://apify.com/cliqtomedia/facebook-marketplace/output-schema: listingId, url, title, price, currency, ..., distanceKm; \"post date\" in its summary) were read again and still end before a listing-date key, and maximedupre's schema (https://apify.com/maximedupre/facebook-marketplace-listings/output-schema) has collectedAt only; in the seventh round: crawlerbros/facebook-marketplace-scraper (its README copied in github.com/SharryCodes019/crawlerbros-apify-tutorials, facebook-marketplace-scraper-tutorial/README.md: startUrls, resultsLimit; id, listingUrl, marketplace_listing_title, listing_price, location; creation_time only with includeListingDetails) is paid by compute units, with no price per result; leadproof/facebook-marketplace (https://apify.com/leadproof/facebook-marketplace: a keyword or a Marketplace URL, a listing date, from $0.70 / 1,000 listings) and khadinakbar/facebook-marketplace-scraper (created time, from $4.00 / 1,000) name their fields in prose only on the part read; bovi/facebook-marketplace-scraper takes a location and keyword, not a URL; leonardparisi/facebook-marketplace-scraper and receptional_blender/fb-marketplace-listings are under maintenance; in the eighth round (D60o: postedAt is now nullable, a listing date being read off the listing like its price, so the listing date no longer blocks; the gap is per actor its input keys, its currency or its price): maximedupre/facebook-marketplace-listings' output schema (https://apify.com/maximedupre/facebook-marketplace-listings/output-schema: listingId, listingUrl, title, price \"The asking price shown on the listing\", currency, location, all required; from $0.90 / 1,000 listings) covers the row, but no API, example or input-schema page of it is stored, so its input keys are unread (and whether price is a number or the shown text is not said); fetch_cat/facebook-marketplace-scraper's output schema (https://apify.com/fetch_cat/facebook-marketplace-scraper/output-schema: id, listingUrl, priceAmount, currency, locationText) likewise comes without input keys; leadsbrary/lite-facebook-marketplace-scraper's example (startUrls, maxItems) gives price as text and no currency; rexreus/facebook-marketplace-scraper (from $0.25 / 1,000 results, location x query), datascrapers/facebook-marketplace (from $1.70 / 1,000 product scrapeds; URLs, locations, categories), bkktor/scraper-for-facebook-marketplace (https://apify.com/bkktor/scraper-for-facebook-marketplace/api/cli: searchUrls; from $4.00 / 1,000 results), scrapapi and scrapebase/facebook-marketplace-scraper (urls), blackfalcondata/facebook-marketplace-scraper (from $0.90 / 1,000), happitap/facebook-marketplace-listings-scraper (from $1.00 / 1,000), scraperpro/FacebookMarketplaceScraper (from $3.00 / 1,000) and nimbryxo-studio/facebook-marketplace-listing-and-price-extractor (from $0.49 / 1,000) name no output keys on the readable part of their pages; receptional_blender/fb-marketplace-listings is under maintenance and its example's currency holds a number"
}
