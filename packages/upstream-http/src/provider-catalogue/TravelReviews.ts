/**
 * The shipped provider catalogue's mappings for travel_reviews (issue 20): each one cites the actor's page where its
 * input fields, output fields and price were read; every op of these platforms that fetches is in `shipped` or in
 * `unmapped` with the reason.
 */
import { noDocs } from "./Reasons.js"

export const shipped = {} as const

/** Why an op of these platforms that fetches has no shipped mapping. */
export const unmapped: Readonly<Record<string, string>> = {
  "travel_reviews.hotels": noDocs,
  "travel_reviews.restaurants": noDocs,
  "travel_reviews.attractions": noDocs,
  "travel_reviews.searchHotels": noDocs,
  "travel_reviews.searchRestaurants": noDocs,
  "travel_reviews.searchAttractions": noDocs,
  "travel_reviews.reviews": noDocs
}
