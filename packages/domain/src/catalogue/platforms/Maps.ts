/** The catalogue's data of maps: ops, prices, windows, fields and rows. */

import * as F from "../../Fields.js"
import * as Maps from "../../rows/Maps.js"
import { history, location, perRows, perSubject, query } from "../Common.js"
import { mapsPlace } from "../Forms.js"
import { DAY, op, platform } from "../Model.js"

/** The maps platform. */
export const maps = platform("maps", "Maps service: places, search, reviews.", "none", [
  op("places", {
    rows: Maps.place,
    description:
      "Place cards: name, address, coordinates, rating, review count, categories, phone, website, hours, live occupancy.",
    price: perSubject(4),
    fresh: 3 * DAY,
    subjects: mapsPlace,
    fields: { subjects: F.subjects(mapsPlace, 10) }
  }),
  op("search", {
    rows: Maps.place,
    description: "Places matching a query near a location.",
    price: perRows(39, 10),
    fields: {
      query,
      location,
      minRating: F.optional(F.oneOf("2", "2.5", "3", "3.5", "4", "4.5")),
      website: F.withDefault(F.oneOf("any", "with", "without"), "any"),
      limit: F.limit(10, 1, 100)
    }
  }),
  op("reviews", {
    rows: Maps.review,
    description: "Reviews of places.",
    price: perRows(7, 25),
    fresh: 3 * DAY,
    subjects: mapsPlace,
    fields: {
      subjects: F.subjects(mapsPlace, 10),
      sort: F.withDefault(F.oneOf("newest", "relevance", "rating_high", "rating_low"), "newest"),
      limit: F.limit(25, 1, 100)
    }
  }),
  history(mapsPlace, Maps.metrics)
])
