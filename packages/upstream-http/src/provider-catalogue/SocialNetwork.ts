/**
 * The shipped provider catalogue's mappings for social_network (issue 20): each one cites the actor's page where its
 * input fields, output fields and price were read; every op of these platforms that fetches is in `shipped` or in
 * `unmapped` with the reason.
 */

/** What a page subject given as a full URL (a group, an event, ...) does with the mappings that build a page URL. */
const urlSubjects =
  "a page subject given as a full URL (a group or other URL-only page) cannot be served: the input is built as https://www.facebook.com/<handle or id>/ and the mapping language has no way to pass a URL subject as it is"

export const shipped = {
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
  }
} as const

/** Why an op of these platforms that fetches has no shipped mapping. */
export const unmapped: Readonly<Record<string, string>> = {
  "social_network.pages":
    "no actor page read documents field names for all of the card's required fields together (talkingAbout, reviewCount and verified with followers and likes): checked apify/facebook-pages-scraper, data_minds/facebook-pages-scraper, locaihost/facebook-pages, dami_studio, scrapingmonkey/facebook-page-details-scraper, luzivanlt, silentflow and vortex_data/facebook-pages (its output schema read only in part)",
  "social_network.reviews":
    "no actor page read gives both its input names and a posted instant with the reviewer and the recommendation: automation-lab/facebook-page-recommendations-scraper documents reviewerName, recommends and text but only timestampText (the displayed text, not an instant); maximedupre/facebook-reviews-scraper (input `targets`) and fetch_cat/facebook-reviews-scraper (input `startUrls`) show no output field names; memo23, quanmatrix, piotrv1001 and premiumscraper pages show neither",
  "social_network.followers":
    "automation-lab/facebook-followers-following-scraper's example documents only relationshipType following and no price was read; harpoon/fb-followers-scraper (input targets, max_items, language; $0.50 / 1,000) shows no output field names",
  "social_network.ads":
    "easyapi/facebook-ads-scraper's output schema (archiveId, isActive, body, landingUrl, platforms, startedAt; $7.99 / 1,000) comes with no input names on its page; techbellys' page (input startUrls, resultsLimit, activeStatus; $5 / 1,000) shows no output names; firsthand, sol-arkis, microworlds and pulsedata pages are partial",
  "social_network.events":
    "needs a keyword search of events: unfenced-group/facebook-events-scraper, themineworks and unseenuser document no keyword mode (or its input and output names are not on the page read)",
  "social_network.marketplace":
    "no actor page read documents a listing's posted date (a required row field): socialscrapers/facebook-marketplace-scraper (id, url, title, price, currency, location; $0.36 / 1,000) and maximedupre/facebook-marketplace-listings (listingId, listingUrl, title, price, currency, location, availabilityStatus, collectedAt; $0.90 / 1,000) have none, nor has fetch_cat's",
  "social_network.comments":
    "makework36's page (postUrl, commentUrl, text, date, authorName, likesCount, repliesCount; $0.65 / 1,000) gives no comment id and no input names; fetch_cat's gives only a relative date; harpoon's pushes one item per batch of comments; api-ninja/facebook-comments-scraper's page shows no output field names"
}
