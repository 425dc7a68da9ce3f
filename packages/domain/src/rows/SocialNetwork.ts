/** Rows of the social network. */
import { Schema } from "effect"
import * as R from "./Row.js"

/** A page card (pages). */
export const page = {
  name: R.str("page name"),
  category: R.str("page category"),
  followers: R.count("followers"),
  likes: R.count("page likes"),
  talkingAbout: R.nullable(
    R.count("people talking about the page (last 7 days; null when the source does not measure it)")
  ),
  reviewCount: R.nullable(R.count("reviews (null when the source does not measure them)")),
  recommendPercent: R.nullable(R.num("share of reviewers who recommend the page, in percent")),
  website: R.nullable(R.url("website of the page")),
  verified: R.nullable(R.bool("whether the page is verified (null when the source does not say)"))
}

/** A post of a page (posts). */
export const post = {
  position: R.position,
  permalink: R.url("post permalink"),
  text: R.str("post text"),
  postedAt: R.dateTime("when the post was published"),
  reactions: R.count("reactions"),
  comments: R.count("comments"),
  shares: R.count("shares")
}

/** A reel (reels). */
export const reel = {
  position: R.position,
  permalink: R.url("reel permalink"),
  caption: R.str("caption"),
  plays: R.count("plays"),
  reactions: R.count("reactions"),
  comments: R.count("comments"),
  postedAt: R.dateTime("when the reel was published")
}

/** A review of a page (reviews). */
export const review = {
  position: R.position,
  reviewer: R.str("reviewer name"),
  recommends: R.bool("whether the reviewer recommends the page"),
  text: R.str("review text"),
  postedAt: R.dateTime("when the review was posted")
}

/** A follower or followed profile (followers). */
export const follower = {
  position: R.position,
  name: R.str("profile name"),
  profileUrl: R.url("profile URL")
}

/** An ad (ads). */
export const ad = {
  position: R.position,
  adId: R.str("ad library id"),
  status: R.oneOf("whether the ad runs now", "active", "inactive"),
  startedAt: R.dateTime("when the ad started running"),
  platforms: R.list(Schema.String, "placements the ad runs on"),
  body: R.str("ad text"),
  landingUrl: R.url("where the ad links to")
}

/** An event (events). */
export const event = {
  position: R.position,
  eventId: R.str("event id"),
  name: R.str("event name"),
  startsAt: R.dateTime("when the event starts"),
  location: R.str("where the event takes place"),
  going: R.count("people going"),
  interested: R.count("people interested")
}

/** A marketplace listing (marketplace). */
export const listing = {
  position: R.position,
  listingId: R.str("listing id"),
  title: R.str("listing title"),
  price: R.num("asking price, in `currency`"),
  currency: R.currency(),
  location: R.str("where the item is"),
  // D60o: the date a listing shows is read off the listing like its price (a measured value), so under D38 it is
  // null when the source does not read it, rather than the op having no source at all
  postedAt: R.nullable(R.dateTime("when the listing was posted; null when the source does not measure it"))
}

/** A comment of a post, reel or photo (comments). */
export const comment = {
  position: R.position,
  commentId: R.str("comment id"),
  author: R.str("author name"),
  text: R.str("comment text"),
  reactions: R.count("reactions"),
  postedAt: R.dateTime("when the comment was posted"),
  replies: R.optional(R.count("replies (present when includeReplies is true)"))
}

/** History metrics of a page (from its card). */
export const metrics = {
  followers: R.field("followers"),
  likes: R.field("likes"),
  talking_about: R.field("talkingAbout"),
  review_count: R.field("reviewCount"),
  recommend_percent: R.field("recommendPercent")
}
