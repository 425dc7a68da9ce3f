/** Rows of the discussion forum (shapes fixed with the native adapter: one row per post or comment). */
import * as R from "./Row.js"

/** A post (posts, subreddit, search). */
export const post = {
  position: R.position,
  postId: R.str("base-36 post id, without the t3_ prefix"),
  title: R.str("post title"),
  community: R.str("community name, without r/"),
  author: R.nullable(R.str("author user name; null when deleted")),
  score: R.int("score (upvotes minus downvotes)"),
  upvoteRatio: R.num("share of upvotes, 0 to 1"),
  commentsCount: R.count("comments"),
  kind: R.oneOf("kind of post", "text", "link", "image", "video", "gallery", "poll"),
  permalink: R.url("absolute permalink of the post"),
  url: R.nullable(R.url("link target of a link post; null for text posts")),
  postedAt: R.dateTime("when the post was submitted")
}

/** A comment (comments; `subject` is the post id). */
export const comment = {
  position: R.position,
  commentId: R.str("comment id, without the t1_ prefix"),
  postId: R.str("the post's base-36 id"),
  parentId: R.nullable(R.str("parent comment id; null for a top-level comment")),
  author: R.nullable(R.str("author user name; null when deleted")),
  body: R.str("comment text"),
  score: R.int("score"),
  depth: R.count("nesting depth, 0 for a top-level comment"),
  postedAt: R.dateTime("when the comment was posted"),
  permalink: R.nullable(R.url("absolute permalink of the comment"))
}

/** History metrics of a post: each post row gives a point for its post. */
export const metrics = {
  score: R.field("score"),
  comments_count: R.field("commentsCount")
}
