/** The catalogue's data of lodging_booking: ops, prices, windows, fields and rows. */

import * as F from "../../Fields.js"
import * as Stays from "../../rows/Stays.js"
import { history, location, perRows, perSubject } from "../Common.js"
import { hotelPage } from "../Forms.js"
import { DAY, HOUR, op, platform } from "../Model.js"

/** The lodging_booking platform. */
export const lodgingBooking = platform("lodging_booking", "Hotel booking site: properties by hotel page URL.", "stay", [
  op("properties", {
    rows: Stays.property,
    description: "Property cards, priced for the stay when it has dates.",
    price: perSubject(2),
    fresh: 12 * HOUR,
    subjects: hotelPage,
    fields: { subjects: F.subjects(hotelPage, 10), stay: F.stay(F.LodgingStay) }
  }),
  op("search", {
    rows: Stays.property,
    description: "Properties in a location, filtered and sorted.",
    price: perRows(24, 12),
    fields: {
      location,
      stay: F.stay(F.LodgingStay),
      propertyType: F.optional(F.text(40)),
      minStars: F.optional(F.int(1, 5)),
      minRating: F.optional(F.number(0, 10)),
      priceMin: F.optional(F.int(0, Number.MAX_SAFE_INTEGER)),
      priceMax: F.optional(F.int(0, Number.MAX_SAFE_INTEGER)),
      sort: F.withDefault(F.oneOf("relevance", "price_low", "rating_high", "distance"), "relevance"),
      limit: F.limit(12, 1, 100)
    },
    label: (r) => String(r["location"]),
    checkJsonSchema: { description: "`priceMax` must not be below `priceMin`" },
    check: (r) =>
      typeof r["priceMin"] === "number" && typeof r["priceMax"] === "number" && r["priceMax"] < r["priceMin"]
        ? { path: ["priceMax"], message: "must not be below priceMin" }
        : true
  }),
  op("reviews", {
    rows: Stays.propertyReview,
    description: "Guest reviews of properties.",
    price: perRows(49, 25),
    fresh: 3 * DAY,
    subjects: hotelPage,
    fields: {
      subjects: F.subjects(hotelPage, 10),
      sort: F.withDefault(F.oneOf("relevance", "newest", "oldest", "rating_high", "rating_low"), "relevance"),
      since: F.optional(F.Day),
      scoreBands: F.list(F.oneOf("superb", "good", "average", "poor")),
      limit: F.limit(25, 1, 100)
    }
  }),
  history(hotelPage, Stays.propertyMetrics)
])
