/** Rows of the maps service. */
import { Schema } from "effect"
import * as R from "./Row.js"

const day = R.str("opening hours of the day, e.g. 09:00-21:00, or closed")

/** A place card (places, and each row of search). */
export const place = {
  placeId: R.str("upstream place id"),
  name: R.str("place name"),
  address: R.str("postal address"),
  lat: R.num("latitude, in degrees (WGS 84)"),
  lon: R.num("longitude, in degrees (WGS 84)"),
  rating: R.nullable(R.num("average rating, 1 to 5; null when the place has no rating yet")),
  reviewCount: R.count("number of reviews"),
  categories: R.list(Schema.String, "categories of the place"),
  phone: R.nullable(R.str("phone number")),
  website: R.nullable(R.url("website; null when the place has none")),
  hours: R.nullable(
    Schema.Struct({ mon: day, tue: day, wed: day, thu: day, fri: day, sat: day, sun: day }).annotations({
      description: "opening hours per weekday, local time"
    })
  ),
  liveOccupancyPercent: R.nullable(R.count("live occupancy, in percent of usual peak"))
}

/** A review of a place (reviews). */
export const review = R.review("1 to 5")

/** History metrics of a place (from its card). */
export const metrics = {
  rating: R.field("rating"),
  reviews: R.field("reviewCount"),
  live_occupancy_percent: R.field("liveOccupancyPercent")
}
