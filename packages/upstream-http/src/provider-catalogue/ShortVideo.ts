/**
 * The shipped provider catalogue's mappings for short_video (issue 20): each one cites the actor's page where its
 * input fields, output fields and price were read; every op of these platforms that fetches is in `shipped` or in
 * `unmapped` with the reason.
 */

export const shipped = {
  // https://apify.com/clockworks/tiktok-profile-scraper (Apify's own actor). Input `profiles`, a list of handles (API
  // example on https://apify.com/clockworks/tiktok-profile-scraper/api/client/nodejs: { "profiles": ["apifyoffice"] }).
  // Output: Apify's documentation of the actor (https://docs.apify.com/platform/integrations/make/tiktok, "Profile
  // data, shortened sample") gives one item per profile video carrying `authorMeta` { id, name, profileUrl, nickName,
  // verified, signature, bioLink, originalAvatarUrl, avatar, commerceUserInfo, privateAccount, region, roomId,
  // ttSeller, following, friends, fans, heart, video, digg } and `input`. Price: "Pay $5.00 for 1,000 videos" on that
  // API page, "from $2.50 / 1,000 results" on its issues page; the higher is kept so a run's charge limit always
  // covers its item.
  "short_video.profiles": {
    actor: "clockworks~tiktok-profile-scraper",
    docs: "https://apify.com/clockworks/tiktok-profile-scraper",
    usdPerItem: 0.005,
    input: { profiles: ["$subject"] },
    rows: {
      handle: "authorMeta.name",
      name: { path: "authorMeta.nickName", as: "string", default: "" },
      followers: { path: "authorMeta.fans", as: "integer" },
      following: { path: "authorMeta.following", as: "integer" },
      totalLikes: { path: "authorMeta.heart", as: "integer" },
      videos: { path: "authorMeta.video", as: "integer" },
      verified: { path: "authorMeta.verified", as: "boolean" },
      bio: { path: "authorMeta.signature", as: "string", default: "" }
    },
    notMapped:
      "the card is read from `authorMeta` of the profile's first video item (the run asks one item); a profile with no video item is answered not found"
  },
  // https://apify.com/funny_ground/tiktok-creator-videos. Input table on the page: `creators` (array, required:
  // usernames with or without @, or profile URLs), `maxVideos` (videos per creator; 0 = all), `proxyConfiguration`
  // (example task https://apify.com/funny_ground/tiktok-creator-videos/examples/get-latest-mrbeast-tiktok-video.md:
  // { "creators": ["mrbeast"], "maxVideos": 1, ... }). Output, one item per video (the page's output table and
  // https://apify.com/funny_ground/tiktok-creator-videos/output-schema): id, url (canonical video URL), text (caption),
  // createTime (ISO 8601, UTC), createTimeUnix (epoch seconds), durationSeconds, cover, dynamicCover, width, height,
  // playCount, diggCount, commentCount, shareCount, collectCount, hashtags, music { id, title, authorName, isOriginal },
  // isPinned, authorUsername, authorNickname, authorId, authorVerified. Price (its pricing page): "Result $0.50 / 1,000"
  // and "Actor start $0.00005" (one event per GB of memory, minimum one; the minimum is kept as the run fee).
  "short_video.posts": {
    actor: "funny_ground~tiktok-creator-videos",
    docs: "https://apify.com/funny_ground/tiktok-creator-videos",
    usdPerItem: 0.0005,
    usdPerRun: 0.00005,
    input: { creators: ["$subject"], maxVideos: "$rows" },
    rows: {
      url: "url",
      caption: { path: "text", as: "string", default: "" },
      views: { path: "playCount", as: "integer" },
      likes: { path: "diggCount", as: "integer" },
      comments: { path: "commentCount", as: "integer" },
      shares: { path: "shareCount", as: "integer" },
      durationSec: { path: "durationSeconds", as: "integer" },
      postedAt: {
        first: [
          { path: "createTime", as: "datetime" },
          { path: "createTimeUnix", as: "datetime" }
        ]
      }
    },
    notMapped:
      "the actor's own order is served (it reads the profile page, pinned videos included, `isPinned` marks them); postedAt is read from createTime, else createTimeUnix"
  },
  // https://apify.com/powerai/tiktok-video-scraper ("Extract TikTok video and creator metadata from video URLs").
  // Input, its API example (https://apify.com/powerai/tiktok-video-scraper/api): { "videoUrls":
  // ["https://www.tiktok.com/@apifyoffice/video/7200360993149553925"], "includeRelated": false, "maxRelatedPerVideo": 10 }
  // (related videos would be items of their own: includeRelated is sent false). Output, its output schema
  // (https://apify.com/powerai/tiktok-video-scraper/output-schema): videoUrl ("Public TikTok video URL"), caption
  // ("Video caption / description text"), likes ("Like / digg count"), views ("Play / view count"), duration ("Video
  // duration in seconds"), publishedAt ("ISO publish time"), musicName ("Soundtrack / music title"), coverUrl,
  // scrapedAt, comments ("Comment count"). Price (https://apify.com/powerai/tiktok-video-scraper/pricing): "Result
  // $5.99 / 1,000" and "Actor start ... Flat fee for starting an Actor run: $0.01".
  "short_video.videos": {
    actor: "powerai~tiktok-video-scraper",
    docs: "https://apify.com/powerai/tiktok-video-scraper",
    usdPerItem: 0.00599,
    usdPerRun: 0.01,
    input: { videoUrls: ["$subject"], includeRelated: false },
    rows: {
      url: "videoUrl",
      caption: { path: "caption", as: "string", default: "" },
      author: { path: "videoUrl", match: "/@([^/?#]+)/video/", default: "" },
      views: { path: "views", as: "integer" },
      likes: { path: "likes", as: "integer" },
      comments: { path: "comments", as: "integer" },
      durationSec: { path: "duration", as: "integer" },
      sound: { path: "musicName", as: "string", default: "" },
      postedAt: { path: "publishedAt", as: "datetime" }
    },
    notMapped:
      "shares: the actor documents no share count; null. author: it documents no author field; the handle is read from videoUrl (https://www.tiktok.com/@<handle>/video/<id>), empty when the URL carries none"
  },
  // https://apify.com/happy_b/tiktok-comments-scraper. Input `videoUrls`, a list of video URLs (API example:
  // { "videoUrls": ["https://www.tiktok.com/@khaby.lame/video/7617913537561693470"] }); its input schema also has a
  // per-video comment cap and a replies switch whose field names the page does not show (not set: the run's item
  // limit caps the rows). Output, "Data points extracted per comment": commentId, content, publishedAt (ISO 8601),
  // likeCount, replyCount, replyLevel (0 = comment, 1 = reply), parentCommentId, commentLanguage, isPinned,
  // isCreatorLiked, authorUniqueId, authorNickname, authorUid, authorAvatarUrl. "from $0.25 / 1,000 results".
  "short_video.comments": {
    actor: "happy_b~tiktok-comments-scraper",
    docs: "https://apify.com/happy_b/tiktok-comments-scraper",
    usdPerItem: 0.00025,
    input: { videoUrls: ["$subject"] },
    keep: { path: "replyLevel", in: [0] },
    rows: {
      commentId: { path: "commentId", as: "string" },
      author: { path: "authorUniqueId", as: "string", default: "" },
      text: { path: "content", as: "string", default: "" },
      likes: { path: "likeCount", as: "integer", default: 0 },
      replies: { path: "replyCount", as: "integer", default: 0 },
      postedAt: { path: "publishedAt", as: "datetime" }
    },
    notMapped: "replies (replyLevel 1) are skipped: the op lists a post's comments, each with its reply count"
  },
  // https://apify.com/fetch_cat/tiktok-user-search-scraper. Input example: { "queries": ["coffee", "fitness coach"],
  // "maxUsersPerQuery": 10 } (queries: one to 20 keywords; maxUsersPerQuery: profiles per query). Output example: query,
  // rank, id, secUid, username, displayName, profileUrl, avatarUrl, bio, bioLink, verified, privateAccount, seller,
  // followingCount, followerCount, heartCount, videoCount, diggCount, collectedAt, source. "from $2.40 / 1,000 user
  // profiles".
  "short_video.search": {
    actor: "fetch_cat~tiktok-user-search-scraper",
    docs: "https://apify.com/fetch_cat/tiktok-user-search-scraper",
    usdPerItem: 0.0024,
    input: { queries: ["$query"], maxUsersPerQuery: "$rows" },
    rows: {
      handle: "username",
      name: { path: "displayName", as: "string", default: "" },
      followers: { path: "followerCount", as: "integer" },
      following: { path: "followingCount", as: "integer" },
      totalLikes: { path: "heartCount", as: "integer" },
      videos: { path: "videoCount", as: "integer" },
      verified: { path: "verified", as: "boolean" },
      bio: { path: "bio", as: "string", default: "" }
    }
  },
  // https://apify.com/dami_studio/tiktok-followers-scraper. Input: `profiles` (handles, profile URLs or numeric user
  // IDs), `listType` (following (default), followers, or both), `maxItemsPerProfile` (1 to 1,000). Output, "What you
  // get per row": uniqueId, userId, secUid, nickname, signature (the bio), avatar, verified, region, followerCount,
  // followingCount, videoCount, likesCount, profileUrl. "$0.35 / 1,000 tiktok profiles".
  "short_video.followers": {
    actor: "dami_studio~tiktok-followers-scraper",
    docs: "https://apify.com/dami_studio/tiktok-followers-scraper",
    usdPerItem: 0.00035,
    input: {
      profiles: ["$subject"],
      listType: {
        $value: "request.direction",
        map: { followers: "followers", following: "following" },
        default: "followers"
      },
      maxItemsPerProfile: "$rows"
    },
    rows: {
      handle: { path: "uniqueId", as: "string" },
      name: { path: "nickname", as: "string", default: "" },
      followers: { path: "followerCount", as: "integer" },
      verified: { path: "verified", as: "boolean" }
    },
    notMapped:
      "direction followers: the page says follower lists (unlike following lists) now need the caller's own TikTok cookie, which the mapping does not pass, so such a run may come back empty"
  },
  // https://apify.com/datacortex/tiktok-shop-search-scraper ("TikTok Shop search results as rows"). Input, its API
  // example (https://apify.com/datacortex/tiktok-shop-search-scraper/api): { "keywords": ["phone case"] } (no count input
  // shown: the run's item limit caps the rows). Output, its page's "What you get" table and field names: query, type
  // ("product or error"), position, page, productId ("TikTok Shop product ID"), title, url, price, originalPrice,
  // discountPercent, rating, reviewsCount, soldCount, shopName, sellerId, labels; its changelog
  // (https://apify.com/datacortex/tiktok-shop-search-scraper/changelog.md): "one row per TikTok Shop (US) product for each
  // search term", "Search terms that fail get an error row with errorCode and a plain-language errorMessage". Price, its
  // pricing page (https://apify.com/datacortex/tiktok-shop-search-scraper/pricing): "Product $2.50 / 1,000" and "Actor
  // Start $0.001", platform costs included.
  "short_video.shop": {
    actor: "datacortex~tiktok-shop-search-scraper",
    docs: "https://apify.com/datacortex/tiktok-shop-search-scraper",
    usdPerItem: 0.0025,
    usdPerRun: 0.001,
    input: { keywords: ["$query"] },
    keep: { path: "type", in: ["product"] },
    errors: { when: ["errorMessage", "errorCode"] },
    rows: {
      productId: { path: "productId", as: "string" },
      title: { path: "title", as: "string" },
      price: { path: "price", as: "number" },
      currency: { const: "USD" },
      sold: { path: "soldCount", as: "integer" },
      rating: { path: "rating", as: "number" },
      shop: { path: "shopName", as: "string" }
    },
    notMapped:
      "currency: the actor gives none; it searches the US storefront only (its changelog: one row per TikTok Shop (US) product), so its prices are read as USD; the number of products is bounded by the run's item limit (the page shows no count input)"
  },
  // https://apify.com/thescrappa/tiktok-search-scraper (Scrappa's "TikTok Search Scraper", pay per event; its Store page
  // is not in the stored copies). Its README, input schema, actor.json and source are published by the author in
  // github.com/userlip/scrappa-apify-actors, read at commit 8297905c (every file of actors/tiktok-search-scraper/ last
  // changed in commit 34aa27f8, 2026-05-13): README.md, .actor/input_schema.json, .actor/actor.json, src/main.ts,
  // src/request-params.ts, src/response-utils.ts, test/request-params.test.mjs. Price: the repository's inventory
  // (README.md "Available Actors" at 46e910c8, aligned to the live org on 2026-06-17) lists tiktok-search-scraper,
  // 0h6AKrgNYjn7pM5EO, public, "PAY_PER_EVENT, default dataset item at $0.0002/result" (no start event listed).
  // Input (input_schema.json): `keywords` ("Keyword, hashtag, product, brand, topic, or creator niche to search for in
  // TikTok videos"), `query` ("Optional alias for Search Keywords for API callers. Ignored when Search Keywords is
  // provided."; test/request-params.test.mjs: { query: "#skincare", count: 25 } searches "#skincare"), `region`,
  // `count` ("Number of video results to return from this page. Scrappa accepts 1-50.", minimum 1, maximum 50, default
  // 10; src/request-params.ts omits a count outside 1-50, so the actor's default 10 would apply), `cursor`,
  // `publish_time`, `sort_type`. One request to Scrappa's /tiktok/feed/search, one page: src/main.ts pushes every video
  // of the response (src/response-utils.ts extractVideos: data, data.videos, data.posts, data.aweme_list or
  // data.item_list) with request_keywords, request_region, request_count, request_cursor, request_publish_time and
  // request_sort_type added, and keeps has_more and the next cursor in the OUTPUT record only; an error response fails
  // the run (Actor.fail), no error item is pushed. Item (README "Output"; response-utils.ts TikTokSearchVideo):
  // aweme_id, video_id, desc, title, create_time (epoch seconds: 1731161993), digg_count, comment_count, share_count,
  // play_count, author { user_id, unique_id, nickname, avatar }. The op's hashtag search is the actor's keyword search
  // of "#<hashtag>" (its `keywords` is documented for hashtags); thescrappa~tiktok-hashtag-posts-scraper (H2dZTreGZ7s3XJsQ7,
  // $0.0003/result, input `hashtag`) is a separate actor, and one op is served by one actor.
  "short_video.searchPosts": {
    actor: "thescrappa~tiktok-search-scraper",
    docs: "https://apify.com/thescrappa/tiktok-search-scraper",
    usdPerItem: 0.0002,
    // one run gives one page of at most 50 videos (its count input's maximum; no cursor followed)
    maxItems: 50,
    input: {
      // exactly one of the two reaches the actor (the op takes exactly one of query, hashtag, soundUrl; soundUrl is
      // refused): a query as keywords, a hashtag as "#<hashtag>" in the documented alias `query`
      keywords: "$request.query",
      query: { $text: "#{request.hashtag}", strip: "#" },
      count: "$rows"
    },
    refuses: {
      soundUrl:
        "the actor searches by keyword or hashtag only (its input has no sound or music field); a sound search cannot be asked"
    },
    rows: {
      url: {
        first: [
          { template: "https://www.tiktok.com/@{author.unique_id}/video/{aweme_id}" },
          { template: "https://www.tiktok.com/@{author.unique_id}/video/{video_id}" }
        ]
      },
      caption: { path: "desc", as: "string", default: "" },
      views: { path: "play_count", as: "integer" },
      likes: { path: "digg_count", as: "integer" },
      postedAt: { path: "create_time", as: "datetime" }
    },
    notMapped:
      "url is built in TikTok's public post URL form, https://www.tiktok.com/@<author.unique_id>/video/<aweme_id> (video_id when aweme_id is absent): the actor gives no post URL; an item without a handle or an id fails the unit. caption is desc, empty when it is absent (the item's title is not documented as the caption). postedAt is create_time (epoch seconds). soundUrl is refused here (400 naming request.soundUrl before anything is spent): the actor has no sound input. A hashtag is searched as the keyword \"#<hashtag>\" (a leading # the caller gave is not doubled). region, publish_time and sort_type are not sent (the op has no such fields): TikTok's defaults apply. One run is one page of at most 50 videos (the actor's count maximum); the cursor is not followed (has_more is in the run's OUTPUT record, not its dataset), so a unit asking more than 50 rows is delivered with at most 50 and never complete, and a page shorter than asked is taken as the end of the results. The actor pushes no error items (an error fails the run), so the default error paths are kept"
  }
} as const

/** Why an op of these platforms that fetches has no shipped mapping. */
export const unmapped: Readonly<Record<string, string>> = {}
