/** Rows of the stay platforms: hotel booking, travel reviews and home rentals. */
import * as R from "./Row.js"

/** A hotel property card (lodging_booking properties, and each row of search). */
export const property = {
  name: R.str("property name"),
  url: R.url("hotel page URL"),
  stars: R.nullable(R.int("star class, 1 to 5; null when the property shows none (unrated)")),
  guestScore: R.nullable(R.num("guest score, 0 to 10; null when the property shows none (too few reviews)")),
  reviewCount: R.count("guest reviews"),
  address: R.str("postal address"),
  priceFrom: R.nullable(R.num("lowest total price for the stay, in `currency`; null without stay dates")),
  currency: R.nullable(R.currency("ISO 4217 currency of priceFrom; null without stay dates")),
  nights: R.nullable(R.count("nights of the stay; null without stay dates")),
  available: R.nullable(R.bool("whether a room is available for the stay; null without stay dates"))
}

/** A guest review of a property (lodging_booking reviews). */
export const propertyReview = {
  ...R.review("1 to 10"),
  band: R.oneOf("score band of the rating", "superb", "good", "average", "poor"),
  travellerType: R.str("kind of traveller, e.g. couple")
}

/** History metrics of a property; price points carry the stay they were priced for (D9). */
export const propertyMetrics = {
  price_from: R.field("priceFrom"),
  guest_score: R.field("guestScore"),
  review_count: R.field("reviewCount")
}

/** A hotel, restaurant or attraction card (travel_reviews cards and searches). */
export const place = {
  kind: R.oneOf("kind of place", "hotel", "restaurant", "attraction"),
  name: R.str("place name"),
  url: R.url("place page URL"),
  rating: R.nullable(R.num("traveller rating, 1 to 5 in half steps; null when the upstream does not give it (D38)")),
  reviews: R.nullable(R.count("reviews; null when the upstream does not give the count (D38)")),
  rank: R.nullable(
    R.int(
      "rank of the place among its kind in its city (1 is best); null when not measured: the upstream gives none, or its ranking sentence is not Tripadvisor's wording (D38, D60t)"
    )
  ),
  rankOf: R.nullable(R.count("places of its kind ranked in its city; null when not measured, as rank (D38, D60t)")),
  city: R.str("city"),
  priceLevel: R.nullable(R.str("price level, $ to $$$$")),
  currency: R.currency("ISO 4217 currency asked for"),
  language: R.str("BCP-47 language asked for"),
  priceFrom: R.optional(R.num("lowest price for the stay, in `currency` (hotels with stay dates only)"))
}

/** A review of a travel place (travel_reviews reviews). */
export const placeReview = { ...R.review("1 to 5"), language: R.str("BCP-47 language of the review") }

/** History metrics of a travel place. */
export const placeMetrics = {
  rating: R.field("rating"),
  reviews: R.field("reviews"),
  rank: R.field("rank")
}

/** A rental listing card (home_rentals listings). */
export const listing = {
  roomId: R.nullable(R.str("numeric room id; null when the subject is a URL without one")),
  title: R.str("listing title"),
  url: R.url("listing URL"),
  ratingOverall: R.num("overall rating, 0 to 5"),
  reviewsCount: R.count("reviews"),
  bedrooms: R.count("bedrooms"),
  guests: R.count("guests allowed"),
  pricePerNight: R.nullable(R.num("price per night for the stay, in `currency`; null without stay dates")),
  totalPrice: R.nullable(R.num("total price of the stay with fees, in `currency`; null without stay dates")),
  currency: R.nullable(R.currency("ISO 4217 currency of the prices; null without stay dates")),
  priced: R.bool("whether the card is priced for a stay")
}

/** A guest review of a listing (home_rentals reviews). */
export const listingReview = { ...R.review("1 to 5"), locale: R.str("locale the review was read in") }

/** History metrics of a listing; price points carry the stay they were priced for (D9). */
export const listingMetrics = {
  price_per_night: R.field("pricePerNight"),
  total_price: R.field("totalPrice"),
  rating_overall: R.field("ratingOverall"),
  reviews_count: R.field("reviewsCount")
}
