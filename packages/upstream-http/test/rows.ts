// The row shapes fixed in briefs/rows.md, exactly (no other field): the mapped rows of the native adapters must decode.
import { Schema as S } from "effect"

const exact = { parseOptions: { onExcessProperty: "error" as const } }
const Position = S.Int.pipe(S.greaterThanOrEqualTo(1))
const Uri = S.String.pipe(S.pattern(/^https?:\/\/\S+$/))
const DateTime = S.String.pipe(S.filter((s) => !Number.isNaN(Date.parse(s)) && s.includes("T")))

export const StorefrontProduct = S.Struct({
  position: Position,
  productId: S.String,
  title: S.String,
  handle: S.String,
  vendor: S.NullOr(S.String),
  productType: S.NullOr(S.String),
  url: Uri,
  priceFrom: S.Number,
  priceTo: S.Number,
  compareAtPrice: S.NullOr(S.Number),
  currency: S.NullOr(S.String),
  inStock: S.Boolean,
  variantCount: S.Int.pipe(S.greaterThanOrEqualTo(0)),
  variants: S.Array(
    S.Struct({
      variantId: S.String,
      title: S.String,
      price: S.Number,
      compareAtPrice: S.NullOr(S.Number),
      available: S.Boolean,
      sku: S.NullOr(S.String)
    }).annotations(exact)
  ),
  images: S.Array(Uri),
  updatedAt: S.NullOr(DateTime)
}).annotations(exact)

export const ForumPost = S.Struct({
  position: Position,
  postId: S.String.pipe(S.pattern(/^[a-z0-9]+$/)),
  title: S.String,
  community: S.String.pipe(S.filter((s) => !s.startsWith("r/"))),
  author: S.NullOr(S.String),
  score: S.Int,
  upvoteRatio: S.Number.pipe(S.between(0, 1)),
  commentsCount: S.Int.pipe(S.greaterThanOrEqualTo(0)),
  kind: S.Literal("text", "link", "image", "video", "gallery", "poll"),
  permalink: Uri,
  url: S.NullOr(Uri),
  postedAt: DateTime
}).annotations(exact)

export const ForumComment = S.Struct({
  position: Position,
  commentId: S.String.pipe(S.filter((s) => !s.startsWith("t1_"))),
  postId: S.String,
  parentId: S.NullOr(S.String),
  author: S.NullOr(S.String),
  body: S.String,
  score: S.Int,
  depth: S.Int.pipe(S.greaterThanOrEqualTo(0)),
  postedAt: DateTime,
  permalink: S.NullOr(Uri)
}).annotations(exact)
