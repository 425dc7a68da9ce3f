/** The catalogue's data of travel_reviews: ops, prices, windows, fields and rows. */
import { Schema } from "effect"
import * as F from "../../Fields.js"
import * as Stays from "../../rows/Stays.js"
import { history, perRows, perSubject, query } from "../Common.js"
import { travelPage } from "../Forms.js"
import { DAY, op, platform } from "../Model.js"

/** Travel reviews cards of one kind of place (hotels are priced for a stay). */
const travelCards = <const K extends string, Ex extends Schema.Struct.Fields>(kind: K, extra: Ex) =>
  op(kind, {
    rows: Stays.place,
    description: `Cards of ${kind} by page URL: name, rating, reviews, rank${"stay" in extra ? ", price for the stay" : ""}.`,
    price: perSubject(2),
    fresh: 3 * DAY,
    subjects: travelPage,
    fields: {
      subjects: F.subjects(travelPage, 10),
      language: F.withDefault(F.Bcp47, "en"),
      currency: F.withDefault(F.Currency, "USD"),
      ...extra
    }
  })

/** Travel reviews search of one kind of place. */
const travelSearch = <const K extends string, Ex extends Schema.Struct.Fields>(kind: K, extra: Ex) =>
  op(`search${kind}`, {
    rows: Stays.place,
    description: `${kind} matching a query.`,
    price: perRows(20, 10),
    fields: {
      query,
      language: F.withDefault(F.Bcp47, "en"),
      currency: F.withDefault(F.Currency, "USD"),
      limit: F.limit(10, 1, 100),
      ...extra
    }
  })

/** The travel_reviews platform. */
export const travelReviews = platform(
  "travel_reviews",
  "Travel reviews site: hotels, restaurants, attractions by page URL.",
  "stay",
  [
    travelCards("hotels", { stay: F.stay(F.TravelStay) }),
    travelCards("restaurants", {}),
    travelCards("attractions", {}),
    travelSearch("Hotels", { stay: F.stay(F.TravelStay) }),
    travelSearch("Restaurants", {}),
    travelSearch("Attractions", {}),
    op("reviews", {
      rows: Stays.placeReview,
      description: "Reviews of places of any kind.",
      price: perRows(49, 25),
      fresh: 3 * DAY,
      subjects: travelPage,
      fields: {
        subjects: F.subjects(travelPage, 10),
        since: F.optional(F.Day),
        ratings: F.list(F.int(1, 5)),
        languages: F.list(F.Bcp47),
        limit: F.limit(25, 1, 100)
      }
    }),
    history(travelPage, Stays.placeMetrics)
  ]
)
