/** Rows of the fashion marketplace and of hosted storefronts (storefront shapes fixed with the native adapter). */
import { Schema } from "effect"
import * as R from "./Row.js"

/** A fashion product card (products, and each row of listing and search). */
export const fashionItem = {
  itemId: R.nullable(R.str("numeric item id; null when the subject is a URL without one")),
  name: R.str("product name"),
  designer: R.str("designer"),
  price: R.num("current price, in `currency`"),
  fullPrice: R.num("price before discount, in `currency`"),
  discountPercent: R.nullable(R.num("discount below fullPrice, in percent; null when the source does not give it")),
  currency: R.currency("ISO 4217 currency of the storefront locale"),
  stockQuantity: R.nullable(R.count("units in stock; null when the source does not count them")),
  sizes: R.nullable(R.list(Schema.String, "sizes in stock; null when the source does not list them"))
}

/** History metrics of a fashion item. */
export const fashionMetrics = {
  price: R.field("price"),
  full_price: R.field("fullPrice"),
  discount_percent: R.field("discountPercent"),
  stock_quantity: R.field("stockQuantity")
}

const variant = Schema.Struct({
  variantId: R.str("variant id"),
  title: R.str("variant title"),
  price: R.num("variant price, in the store's currency"),
  compareAtPrice: R.nullable(R.num("variant compare-at price; null when none")),
  available: R.bool("whether the variant is available"),
  sku: R.nullable(R.str("stock keeping unit"))
})

/** A product of a store (storefronts products; `subject` is the store origin). */
export const storefrontProduct = {
  position: R.position,
  productId: R.str("product id"),
  title: R.str("product title"),
  handle: R.str("product handle (URL slug)"),
  vendor: R.nullable(R.str("vendor")),
  productType: R.nullable(R.str("product type")),
  url: R.url("product URL: {origin}/products/{handle}"),
  priceFrom: R.num("lowest variant price, in the store's currency"),
  priceTo: R.num("highest variant price, in the store's currency"),
  compareAtPrice: R.nullable(R.num("highest compare-at price over variants; null when none")),
  currency: R.nullable(R.currency("ISO 4217 currency when upstream says it; null otherwise")),
  inStock: R.bool("whether any variant is available"),
  variantCount: R.count("variants"),
  variants: R.list(variant, "the product's variants"),
  images: R.list(R.url("image URL"), "image URLs"),
  updatedAt: R.nullable(R.dateTime("when the product was last updated"))
}

/** History points of a store aggregate its delivered rows. */
export const storefrontMetrics = {
  price_from: R.aggregate("priceFrom", "min"),
  price_to: R.aggregate("priceTo", "max"),
  in_stock: R.aggregate("inStock", "countTrue"),
  variant_count: R.aggregate("variantCount", "sum")
}
