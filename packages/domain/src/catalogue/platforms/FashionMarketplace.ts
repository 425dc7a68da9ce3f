/** The catalogue's data of fashion_marketplace: ops, prices, windows, fields and rows. */

import * as F from "../../Fields.js"
import * as Stores from "../../rows/Stores.js"
import * as S from "../../Subjects.js"
import { history, perRows, perSubject, query } from "../Common.js"
import { fashionItem } from "../Forms.js"
import { DAY, op, platform } from "../Model.js"

/** The fashion_marketplace platform. */
export const fashionMarketplace = platform(
  "fashion_marketplace",
  "Fashion marketplace: prices per storefront locale (read `currency`).",
  "none",
  [
    op("products", {
      rows: Stores.fashionItem,
      description: "Product cards by URL or item id, with currency.",
      price: perSubject(1),
      fresh: 1 * DAY,
      subjects: fashionItem,
      fields: { subjects: F.subjects(fashionItem, 10) }
    }),
    op("listing", {
      rows: Stores.fashionItem,
      description: "Products of a designer, category or sale page.",
      price: perRows(20, 20),
      subjects: S.urlOnly("a designer, category or sale page URL"),
      fields: { subject: F.subject(S.urlOnly("a designer, category or sale page URL")), limit: F.limit(20, 1, 100) }
    }),
    op("search", {
      rows: Stores.fashionItem,
      description: "Full product cards matching a keyword.",
      price: perRows(20, 20),
      fields: { query, limit: F.limit(20, 1, 100) }
    }),
    history(fashionItem, Stores.fashionMetrics)
  ]
)
