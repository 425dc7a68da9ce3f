/** The catalogue's data of social_network: ops, prices, windows, fields and rows. */
import { Schema } from "effect"
import * as F from "../../Fields.js"
import * as SocialNetwork from "../../rows/SocialNetwork.js"
import * as S from "../../Subjects.js"
import { dateOrder, dateOrderNote, history, perRows, perSubject, query } from "../Common.js"
import { snPage, snPermalink } from "../Forms.js"
import { DAY, op, platform } from "../Model.js"

/** The social_network platform. */
export const socialNetwork = platform(
  "social_network",
  "Social network: pages, posts, reels, reviews, followers, ads, events, marketplace.",
  "none",
  [
    op("pages", {
      rows: SocialNetwork.page,
      description: "Page cards: name, category, followers, likes, talking about, reviews, recommend percent.",
      price: perSubject(10),
      fresh: 7 * DAY,
      subjects: snPage,
      fields: { subjects: F.subjects(snPage, 10) }
    }),
    op("posts", {
      rows: SocialNetwork.post,
      description: "Posts of a page, profile or group.",
      price: perRows(121, 25),
      fresh: 1 * DAY,
      subjects: snPage,
      fields: {
        subject: F.subject(snPage),
        since: F.optional(F.Day),
        until: F.optional(F.Day),
        limit: F.limit(25, 1, 100)
      },
      checkJsonSchema: dateOrderNote,
      check: dateOrder
    }),
    op("reels", {
      rows: SocialNetwork.reel,
      description: "Reels of a page or profile.",
      price: perRows(97, 20),
      fresh: 1 * DAY,
      subjects: snPage,
      fields: { subject: F.subject(snPage), limit: F.limit(20, 1, 100) }
    }),
    op("reviews", {
      rows: SocialNetwork.review,
      description: "Reviews of pages.",
      price: perRows(121, 50),
      fresh: 3 * DAY,
      subjects: snPage,
      fields: { subjects: F.subjects(snPage, 5), limit: F.limit(50, 1, 100) }
    }),
    op("followers", {
      rows: SocialNetwork.follower,
      description: "Followers or followings of pages.",
      price: perRows(182, 25),
      fresh: 7 * DAY,
      subjects: snPage,
      fields: {
        subjects: F.subjects(snPage, 3),
        direction: F.withDefault(F.oneOf("followers", "following"), "followers"),
        limit: F.limit(25, 1, 100)
      }
    }),
    op("ads", {
      rows: SocialNetwork.ad,
      description: "Ads run by pages.",
      price: perRows(121, 25),
      fresh: 1 * DAY,
      subjects: snPage,
      fields: {
        subjects: F.subjects(snPage, 5),
        status: F.withDefault(F.oneOf("active", "inactive"), "active"),
        limit: F.limit(25, 1, 100)
      }
    }),
    op("events", {
      rows: SocialNetwork.event,
      description: "Events matching a query.",
      price: perRows(194, 20),
      fields: { query, limit: F.limit(20, 1, 100) }
    }),
    op("marketplace", {
      rows: SocialNetwork.listing,
      description: "Marketplace listings of a category or search URL.",
      price: perRows(194, 20),
      subjects: S.urlOnly("a marketplace category or search URL"),
      fields: { subject: F.subject(S.urlOnly("a marketplace category or search URL")), limit: F.limit(20, 1, 100) }
    }),
    history(snPage, SocialNetwork.metrics),
    op("comments", {
      rows: SocialNetwork.comment,
      description: "Comments of posts, reels or photos by permalink.",
      price: perRows(121, 50),
      fresh: 1 * DAY,
      subjects: snPermalink,
      fields: {
        subjects: F.subjects(snPermalink, 5),
        includeReplies: F.withDefault(Schema.Boolean, true),
        sort: F.withDefault(F.oneOf("top", "threaded", "newest"), "top"),
        limit: F.limit(50, 1, 100)
      }
    })
  ]
)
