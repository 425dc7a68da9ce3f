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
  }
} as const

/** Why an op of these platforms that fetches has no shipped mapping. */
export const unmapped: Readonly<Record<string, string>> = {
  "short_video.searchPosts":
    "no page read documents one actor that takes a query, a hashtag and a sound together with its output field names and its price per result (the two template gaps, a list none of whose references is given and a mode picked by the field given, are closed): dami_studio/tiktok-scraper (https://apify.com/dami_studio/tiktok-scraper: profile, hashtag, keyword search or video URL) and funny_ground/tiktok-scraper (https://apify.com/funny_ground/tiktok-scraper: profiles, hashtags, search, direct URLs) have no sound input; the stored copies hold no page of clover_folktale/tiktok-scraper or nextgensda/tiktok-scraper to re-read; apidojo/tiktok-scraper ($0.30 / 1,000 posts) and novi/tiktok-scraper-ultimate take `keywords` and `startUrls` of search, tag and music pages (https://apify.com/apidojo/tiktok-scraper/api/javascript, https://apify.com/novi/tiktok-scraper-ultimate/api/python), but no page read names their output fields, and a hashtag would have to be written into a tag URL (`https://www.tiktok.com/tag/{request.hashtag}`), which a template sends as `.../tag/` when the caller gave a sound instead; novi's Fast TikTok API input (https://apify.com/novi/fast-tiktok-api-with-simple-result: `type` SEARCH, HASHTAG or MUSIC, one `url` for a hashtag or a music page) puts the hashtag page and the sound page in the same field, and an issue of novi/fast-tiktok-scraper ($3.00 / 1,000 videos) says a user was banned for asking fewer than 50 results many times; netdesignr/tiktok-scraper-pro (search, hashtag and sound pages, from $3.00 / 1,000 videos) shows neither its input nor its output field names; trev0n/tiktok-scraper (hashtags, sound URLs) has no keyword search; xmolodtsov/tiktok-search-scraper serves keywords and hashtags only; in the fourth round fanndev/tiktok-all-in-one-scraper (https://apify.com/fanndev/tiktok-all-in-one-scraper: modes video, profile, hashtag, music) has no keyword search, korado_labs/tiktok-posts-scraper and harpoon/tiktok-posts-scraper (profiles, hashtags, keywords) have no sound input, and the stored copies give only the first part of each page, which ends before the input and output keys of badr_xba/tiktok-scraper and apidojo/tiktok-scraper; in the sixth round nextgensda/tiktok-scraper's example task (https://apify.com/nextgensda/tiktok-scraper/examples/tiktok-clockworks-format.md: searches, videos, maxItemsPerSearch, maxItemsPerSound, outputFormat \"clockworks\"; output dataType, desc, authorUniqueId, playCount, diggCount, commentCount, createdAt, url; from $0.18 / 1,000 videos) shows its keyword input but not the keys of its hashtag and sound inputs; poidata/tiktok-scraper (hashtags, profiles, searches and TikTok URLs, sounds among the URL kinds; from $0.40 / 1,000) and automly/tiktok-scraper (creators, hashtags, search keywords, video links and sounds; from $0.45 / 1,000) name no input or output key on the part read; socialscrapers/tiktok-scraper and humble-echidna/tiktok-scraper have no keyword search; epctex/tiktok-hashtag-scraper serves hashtags only; in the seventh and eighth rounds: thescrappa's TikTok actors, documented in github.com/userlip/scrappa-apify-actors, split the three modes over three actors, which one mapping per mode (chosen by the request field given) could run, but the sound mode has no actor that can be run and charged: tiktok-music-posts-scraper (actors/tiktok-music-posts-scraper/README.md at commit 6198345c, .actor/input_schema.json at f9c86524) states no price (\"intended for paid per-result usage\", its actor.json title carries none) and is not among the 81 live thescrappa actors the repository's inventory lists (README.md \"Available Actors\" at 46e910c8, aligned to the live org on 2026-06-17, the day after the actor was added), so there is neither a published actor id nor a price to set a run's charge limit from; it also takes numeric `musicIds` (pattern ^[0-9]{1,100}$), not the sound URL the op takes. The other two are published and priced (inventory: tiktok-search-scraper, 0h6AKrgNYjn7pM5EO, default dataset item $0.0002/result, input `keywords`, README at 34aa27f8; tiktok-hashtag-posts-scraper, H2dZTreGZ7s3XJsQ7, $0.0003/result, input `hashtag`, README at 23bb3041) and return videos, not accounts; all three give one page of `count` posts, 1 to 50 (their input schemas' maximum, the op asks up to 100, and the dataset does not say whether more exist: has_more is in the OUTPUT record), and items documented as aweme_id, desc, create_time (epoch seconds), digg_count, comment_count, share_count, play_count, author { unique_id, nickname }: no post URL, which would have to be built from author.unique_id and aweme_id; apidojo's own agent skill (https://raw.githubusercontent.com/apidojo-io/social-media-skills/main/skills/tiktok-scraper/SKILL.md) lists its TikTok Scraper's modes (videos, profiles, hashtags, music, search, locations), but the part stored ends before its input and output keys and the repository is not in the stored copies"
}
