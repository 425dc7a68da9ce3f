/** The catalogue's data of home_rentals: ops, prices, windows, fields and rows. */

import * as F from "../../Fields.js"
import * as Stays from "../../rows/Stays.js"
import { history, perRows, perSubject } from "../Common.js"
import { rentalListing } from "../Forms.js"
import { DAY, HOUR, op, platform } from "../Model.js"

/** The home_rentals platform. */
export const homeRentals = platform("home_rentals", "Home-rental site: listings by URL or room id.", "stay", [
  op("listings", {
    rows: Stays.listing,
    description: "Listing cards; without stay dates a card comes back unpriced.",
    price: perSubject(2),
    fresh: 12 * HOUR,
    subjects: rentalListing,
    fields: { subjects: F.subjects(rentalListing, 10), stay: F.stay(F.RentalStay) }
  }),
  op("reviews", {
    rows: Stays.listingReview,
    description: "Guest reviews of listings.",
    price: perRows(49, 25),
    fresh: 3 * DAY,
    subjects: rentalListing,
    fields: {
      subjects: F.subjects(rentalListing, 10),
      locale: F.withDefault(F.text(10), "en-US"),
      limit: F.limit(25, 1, 100)
    }
  }),
  history(rentalListing, Stays.listingMetrics)
])
