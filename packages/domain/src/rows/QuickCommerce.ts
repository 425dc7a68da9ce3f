/** Rows of the quick-commerce apps: one product card at the resolved dark store. */
import * as R from "./Row.js"

/** A product card (products, and each row of search and category). */
export const product = {
  rank: R.optional(R.int("rank of the product in the listing (search and category only)")),
  name: R.str("product name"),
  brand: R.str("brand"),
  packSize: R.nullable(
    R.str("pack size as the app shows it, e.g. 500 g; null when the upstream does not give it (D38)")
  ),
  price: R.num("selling price at the store, in INR"),
  mrp: R.num("maximum retail price, in INR"),
  discountPct: R.nullable(
    R.num("discount of price below mrp, in percent; null when the upstream does not give it (D38)")
  ),
  inStock: R.bool("whether the store has it in stock"),
  stockCount: R.count("units in stock at the store"),
  rating: R.nullable(R.num("average rating, 0 to 5; null when the upstream does not give it (D38)")),
  ratingCount: R.nullable(R.count("number of ratings; null when the upstream does not give it (D38)")),
  store: R.str(
    "the resolved store identity: the store the upstream serving the op was asked for (storeId, pincode or lat/lon as it resolves them)"
  )
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
