/** The catalogue's data of short_video: ops, prices, windows, fields and rows. */

import * as F from "../../Fields.js"
import * as ShortVideo from "../../rows/ShortVideo.js"
import { history, perRows, perSubject, query } from "../Common.js"
import { svPost, svProfile } from "../Forms.js"
import { DAY, op, platform } from "../Model.js"

/** The short_video platform. */
export const shortVideo = platform(
  "short_video",
  "Short-video app: accounts, posts, comments, followers and shop.",
  "none",
  [
    op("profiles", {
      rows: ShortVideo.profile,
      description: "Profile cards: handle, name, followers, following, total likes, videos, verified, bio.",
      price: perSubject(2),
      fresh: 7 * DAY,
      subjects: svProfile,
      fields: { subjects: F.subjects(svProfile, 10) }
    }),
    op("posts", {
      rows: ShortVideo.post,
      description: "Recent posts of one account with views, likes, comments and shares.",
      price: perRows(29, 15),
      fresh: 1 * DAY,
      subjects: svProfile,
      fields: { subject: F.subject(svProfile), limit: F.limit(15, 1, 100) }
    }),
    op("videos", {
      rows: ShortVideo.video,
      description: "Post cards by URL: caption, views, likes, comments, shares, duration, sound.",
      price: perSubject(2),
      fresh: 1 * DAY,
      subjects: svPost,
      fields: { subjects: F.subjects(svPost, 10) }
    }),
    op("searchPosts", {
      rows: ShortVideo.foundPost,
      description: "Posts matching exactly one of a query, a hashtag or a sound URL.",
      price: perRows(39, 20),
      fields: {
        query: F.optional(F.text(300)),
        hashtag: F.optional(F.text(150)),
        soundUrl: F.optional(F.text(400)),
        limit: F.limit(20, 1, 100)
      },
      label: (r) => String(r["query"] ?? r["hashtag"] ?? r["soundUrl"]),
      checkJsonSchema: {
        oneOf: [{ required: ["query"] }, { required: ["hashtag"] }, { required: ["soundUrl"] }],
        description: "exactly one of query, hashtag, soundUrl"
      },
      check: (r) => {
        const given = ["query", "hashtag", "soundUrl"].filter((k) => r[k] !== undefined)
        if (given.length === 1) return true
        return given.length === 0
          ? "must give exactly one of query, hashtag, soundUrl (none given)"
          : {
              path: [given[1]!],
              message: `must give exactly one of query, hashtag, soundUrl (got ${given.join(", ")})`
            }
      }
    }),
    op("search", {
      rows: ShortVideo.profile,
      description: "Accounts matching a query.",
      price: perRows(25, 10),
      fields: { query, limit: F.limit(10, 1, 100) }
    }),
    op("comments", {
      rows: ShortVideo.comment,
      description: "Comments of posts by URL.",
      price: perRows(25, 50),
      fresh: 1 * DAY,
      subjects: svPost,
      fields: { subjects: F.subjects(svPost, 10), limit: F.limit(50, 1, 100) }
    }),
    op("followers", {
      rows: ShortVideo.follower,
      description: "Followers or followings of accounts.",
      price: perRows(25, 25),
      fresh: 7 * DAY,
      subjects: svProfile,
      fields: {
        subjects: F.subjects(svProfile, 5),
        direction: F.withDefault(F.oneOf("followers", "following"), "followers"),
        limit: F.limit(25, 1, 100)
      }
    }),
    op("shop", {
      rows: ShortVideo.shopProduct,
      description: "Shop products matching a query.",
      price: perRows(145, 10),
      fields: { query, limit: F.limit(10, 1, 100) }
    }),
    history(svProfile, ShortVideo.metrics)
  ]
)
