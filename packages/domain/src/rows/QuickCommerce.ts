/** Rows of the quick-commerce apps: one product card at the resolved dark store. */
import * as R from "./Row.js"

/** A product card (products, and each row of search and category). */
export const product = {
  rank: R.optional(R.int("rank of the product in the listing (search and category only)")),
  name: R.str("product name"),
  brand: R.str("brand"),
  packSize: R.str("pack size as the app shows it, e.g. 500 g"),
  price: R.num("selling price at the store, in INR"),
  mrp: R.num("maximum retail price, in INR"),
  discountPct: R.num("discount of price below mrp, in percent"),
  inStock: R.bool("whether the store has it in stock"),
  stockCount: R.count("units in stock at the store"),
  rating: R.num("average rating, 0 to 5"),
  ratingCount: R.count("number of ratings"),
  store: R.str("the resolved store identity")
}

/** History metrics of a product at a store. */
export const metrics = {
  price: R.field("price"),
  mrp: R.field("mrp"),
  discount_pct: R.field("discountPct"),
  stock_count: R.field("stockCount"),
  rating: R.field("rating"),
  rating_count: R.field("ratingCount")
}
