/** The catalogue's data of storefronts: ops, prices, windows, fields and rows. */

import * as F from "../../Fields.js"
import * as Stores from "../../rows/Stores.js"
import { history, perRows } from "../Common.js"
import { storefront } from "../Forms.js"
import { DAY, op, platform } from "../Model.js"

/** The storefronts platform. */
export const storefronts = platform("storefronts", "Hosted storefronts: any store by its URL.", "none", [
  op("products", {
    rows: Stores.storefrontProduct,
    description: "Products of stores, with price range, stock and variants.",
    price: perRows(25, 25),
    fresh: 1 * DAY,
    subjects: storefront,
    fields: { subjects: F.subjects(storefront, 5), limit: F.limit(25, 1, 100) }
  }),
  history(storefront, Stores.storefrontMetrics, {}, 5)
])
