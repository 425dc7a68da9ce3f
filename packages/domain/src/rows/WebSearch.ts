/** Rows of the web search engine. */
import { Schema } from "effect"
import * as R from "./Row.js"

/** An organic result (search): about ten per page. */
export const result = {
  page: Schema.Int.pipe(Schema.greaterThanOrEqualTo(1)).annotations({ description: "result page, 1-based" }),
  position: R.position,
  title: R.str("result title"),
  url: R.url("result URL"),
  snippet: R.str("result snippet")
}

/** A news article (news). */
export const article = {
  position: R.position,
  title: R.str("headline"),
  url: R.url("article URL"),
  publisher: R.str("publisher name"),
  publishedAt: R.dateTime("when the article was published"),
  snippet: R.str("snippet")
}

/** An image (images). */
export const image = {
  position: R.position,
  title: R.str("image title"),
  imageUrl: R.url("image file URL"),
  pageUrl: R.url("page the image is on"),
  width: R.count("width, in pixels"),
  height: R.count("height, in pixels")
}

/** A shopping offer (shopping). */
export const offer = {
  position: R.position,
  title: R.str("product title"),
  price: R.num("price, in `currency`"),
  currency: R.currency(),
  merchant: R.str("merchant name"),
  rating: R.nullable(R.num("average rating, 0 to 5")),
  url: R.url("offer URL")
}

/** An app store review (playReviews). */
export const appReview = {
  position: R.position,
  reviewId: R.str("review id"),
  author: R.str("reviewer name"),
  rating: R.int("stars, 1 to 5"),
  text: R.str("review text"),
  thumbsUp: R.count("helpful votes"),
  appVersion: R.nullable(R.str("app version reviewed")),
  postedAt: R.dateTime("when the review was posted")
}
