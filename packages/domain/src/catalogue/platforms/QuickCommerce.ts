/** The catalogue's data of quick_commerce_a, quick_commerce_b: ops, prices, windows, fields and rows. */

import * as F from "../../Fields.js"
import * as QuickCommerce from "../../rows/QuickCommerce.js"
import { history, perRows, perSubject, query } from "../Common.js"
import { qcProduct } from "../Forms.js"
import { HOUR, op, platform } from "../Model.js"

const qcOps = (app: string) => {
  const store = { store: F.Store }
  return [
    op("products", {
      rows: QuickCommerce.product,
      description: `Product cards at one ${app} dark store: name, brand, pack size, price, mrp, discount, stock, rating.`,
      price: perSubject(1),
      fresh: 6 * HOUR,
      subjects: qcProduct,
      fields: { subjects: F.subjects(qcProduct, 10), ...store }
    }),
    op("search", {
      rows: QuickCommerce.product,
      description: "Listings for a query with price, stock and rank at the store.",
      price: perRows(20, 20),
      fields: { query, ...store, limit: F.limit(20, 1, 100) }
    }),
    op("category", {
      rows: QuickCommerce.product,
      description: "Listings of one category and sub-category of the app's own menu at the store.",
      price: perRows(20, 20),
      fields: { category: F.text(80), subCategory: F.text(80), ...store, limit: F.limit(20, 1, 100) },
      label: (r) => `${r["category"]} / ${String(r["subCategory"])}`
    }),
    history(qcProduct, QuickCommerce.metrics, store)
  ] as const
}

/** The quick_commerce_a platform. */
export const quickCommerceA = platform(
  "quick_commerce_a",
  "Quick-commerce app A: one dark store, prices per store.",
  "store",
  qcOps("app A")
)

/** The quick_commerce_b platform. */
export const quickCommerceB = platform(
  "quick_commerce_b",
  "Quick-commerce app B: one dark store, prices per store.",
  "store",
  qcOps("app B")
)
