/** The catalogue's data of forum: ops, prices, windows, fields and rows. */

import * as F from "../../Fields.js"
import * as Forum from "../../rows/Forum.js"
import { history, perRows, query } from "../Common.js"
import { forumCommunity, forumPost, forumUser } from "../Forms.js"
import { DAY, op, platform } from "../Model.js"

/** The forum platform. */
export const forum = platform("forum", "Discussion forum: posts, communities, comments.", "none", [
  op("posts", {
    rows: Forum.post,
    description: "Posts of one user: score, upvote ratio, comment count, kind, permalink.",
    price: perRows(25, 10),
    fresh: 1 * DAY,
    subjects: forumUser,
    fields: { subject: F.subject(forumUser), limit: F.limit(10, 1, 50) }
  }),
  op("subreddit", {
    rows: Forum.post,
    description: "Listing of one community by sort.",
    price: perRows(25, 10),
    subjects: forumCommunity,
    fields: {
      subject: F.subject(forumCommunity),
      sort: F.withDefault(F.oneOf("hot", "newest", "top", "rising"), "hot"),
      postedWithin: F.withDefault(F.ForumWindow, "7d"),
      limit: F.limit(10, 1, 50)
    }
  }),
  op("comments", {
    rows: Forum.comment,
    description: "Comments of posts by permalink or id.",
    price: perRows(3, 25),
    fresh: 1 * DAY,
    subjects: forumPost,
    fields: { subjects: F.subjects(forumPost, 10), limit: F.limit(25, 1, 100) }
  }),
  op("search", {
    rows: Forum.post,
    description: "Posts matching a query.",
    price: perRows(25, 10),
    fields: {
      query,
      sort: F.withDefault(F.oneOf("relevance", "hot", "top", "newest", "most_commented"), "relevance"),
      postedWithin: F.withDefault(F.ForumWindow, "any"),
      limit: F.limit(10, 1, 50)
    }
  }),
  history(forumPost, Forum.metrics)
])
