/** Rows of the short-video app. */
import * as R from "./Row.js"

/** An account card (profiles, and each row of search). */
export const profile = {
  handle: R.str("account handle, without '@'"),
  name: R.str("display name"),
  followers: R.count("followers"),
  following: R.count("accounts followed"),
  totalLikes: R.count("likes received over all posts"),
  videos: R.count("posts published"),
  verified: R.bool("whether the account is verified"),
  bio: R.str("profile bio")
}

/** A post card by URL (videos). */
export const video = {
  url: R.url("post URL"),
  caption: R.str("caption"),
  author: R.str("author handle"),
  views: R.count("views"),
  likes: R.count("likes"),
  comments: R.count("comments"),
  shares: R.nullable(R.count("shares (null when the source does not measure them)")),
  durationSec: R.count("duration, in seconds"),
  sound: R.str("sound title"),
  postedAt: R.dateTime("when the post was published")
}

/** A post of an account (posts). */
export const post = {
  position: R.position,
  url: R.url("post URL"),
  caption: R.str("caption"),
  views: R.count("views"),
  likes: R.count("likes"),
  comments: R.count("comments"),
  shares: R.count("shares"),
  durationSec: R.count("duration, in seconds"),
  postedAt: R.dateTime("when the post was published")
}

/** A post matching a query, hashtag or sound (searchPosts). */
export const foundPost = {
  position: R.position,
  url: R.url("post URL"),
  caption: R.str("caption"),
  views: R.count("views"),
  likes: R.count("likes"),
  postedAt: R.dateTime("when the post was published")
}

/** A comment of a post (comments). */
export const comment = {
  position: R.position,
  commentId: R.str("upstream id of the comment"),
  author: R.str("author handle"),
  text: R.str("comment text"),
  likes: R.count("likes"),
  replies: R.count("replies"),
  postedAt: R.dateTime("when the comment was posted")
}

/** A follower or followed account (followers). */
export const follower = {
  position: R.position,
  handle: R.str("account handle"),
  name: R.str("display name"),
  followers: R.count("followers of that account"),
  verified: R.bool("whether that account is verified")
}

/** A shop product (shop). */
export const shopProduct = {
  position: R.position,
  productId: R.str("upstream id of the product"),
  title: R.str("product title"),
  price: R.num("price, in `currency`"),
  currency: R.currency(),
  sold: R.count("units sold"),
  rating: R.num("average rating, 0 to 5"),
  shop: R.str("shop name")
}

/** History metrics of an account (from its profile card). */
export const metrics = {
  followers: R.field("followers"),
  following: R.field("following"),
  total_likes: R.field("totalLikes"),
  videos: R.field("videos")
}
