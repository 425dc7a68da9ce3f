/**
 * The shipped provider catalogue's mappings for quick_commerce_a, quick_commerce_b (issue 20): each one cites the actor's page where its
 * input fields, output fields and price were read; every op of these platforms that fetches is in `shipped` or in
 * `unmapped` with the reason.
 *
 * The provider adapter resolves quick-commerce stores (D3, ProviderUpstream.ts): a locator whose form every mapped op
 * of the platform takes (`$request.store.pincode`, `$request.store.lat` with `lon`, `$request.store.storeId`) is the
 * store identity as given, so an operator can map these ops with PROVIDER_OPS (all three of a platform: it is served
 * whole by one adapter). None is shipped: the actors of the three real apps (Blinkit, Zepto, Swiggy Instamart) whose
 * pages were read take a store location, but none documents a product card with every field the row requires (above
 * all a rating with its rating count, and the units in stock), so a shipped mapping would have to make them up. The
 * pages read (input, output, price):
 * - https://apify.com/automation-lab/blinkit-category-products-scraper (its example pages, e.g.
 *   .../examples/blinkit-fresh-vegetables-category.md: input `startUrls` of category URLs, `searchQueries`,
 *   `locations` [{ latitude, longitude, label }], `maxItems`; output name, brand, variant, price, mrp, inStock,
 *   inventory, rank, merchantId, location, productUrl, scrapedAt; "from $0.96 / 1,000 item extracteds");
 * - https://apify.com/upscrape/blinkit-product-details-scraper (`products` URLs or ids, `pincodes`: "price, MRP, stock,
 *   brand, variant and images", "from $4.00 / 1,000 products"), https://apify.com/upscrape/blinkit-product-search-scraper
 *   (`searchTerms`, `pincodes`: "price, MRP, discount, stock, brand and image"),
 *   https://apify.com/upscrape/blinkit-category-scraper (category URLs: "price, MRP, discount, stock and brand");
 * - https://apify.com/mindcase-co/blinkit-products-scraper and https://apify.com/mindcase-co/zepto-products-scraper
 *   (input category, sub-category, brand, dark store, latitude/longitude, city, pincode; "prices, MRP, stock, ratings,
 *   search rank and images", "from $1.50 / 1,000 products"; no output field is named on their pages);
 * - https://apify.com/parsebird/zepto-product-scraper (input `query`, `startUrl`, `results_wanted`, `max_pages`; output
 *   name, brand, formatted_packsize, mrp, selling_price, discount_percent, out_of_stock, rating_average, rating_count,
 *   image_url; "from $0.69 / 1,000 products");
 * - https://apify.com/ikmal_suzali_atr/rank-zepto (`keywords`, `locations` [{ lat, lon, label }]; position, product_id,
 *   name, brand, price, mrp, in_stock, inventory, location_label, pincode, store_id; "from $4.00 / 1,000 results"),
 *   https://apify.com/ikmal_suzali_atr/zepto-details and https://apify.com/ikmal_suzali_atr/blinkit-details (a product
 *   at a pincode: "price, MRP, discount, pack size, available quantity, rating, ... dark store id" for Zepto, no rating
 *   for Blinkit; no output field is named on their pages; "from $7.00 / 1,000 results");
 * - https://apify.com/code-for-everyone/swiggy-instamart-scraper (input `searchQueries`, `categoryUrls`, `city`,
 *   `area`).
 */

export const shipped = {} as const

const blinkit =
  "Blinkit: automation-lab~blinkit-category-products-scraper (category URLs or search queries at a latitude/longitude) gives no rating, rating count or discount percent; upscrape~blinkit-product-details-scraper, ~blinkit-product-search-scraper and ~blinkit-category-scraper (at a pincode) document price, MRP, discount, stock, brand and variant, no rating or rating count; the pages read of mindcase-co~blinkit-products-scraper name no output field and no rating count"
const zepto =
  "Zepto: parsebird~zepto-product-scraper gives rating_average and rating_count but takes no store location and gives no stock count; ikmal_suzali_atr~rank-zepto (keywords at a lat/lon) gives no pack size, discount, rating or rating count; the pages read of ikmal_suzali_atr~zepto-details and mindcase-co~zepto-products-scraper name no output field and no rating count"
const instamart =
  "Swiggy Instamart: code-for-everyone~swiggy-instamart-scraper takes a city and area name, none of the store locators (storeId, pincode, lat/lon)"

/** Why a quick-commerce op has no shipped mapping: what was asked of the actors, and what each lacks. */
const reason = (what: string) =>
  `no public actor documents ${what} at one store location with every field of the product row (rating and rating count, units in stock, pack size, discount percent). ${blinkit}. ${zepto}. ${instamart}. An operator may map all three ops of a platform with PROVIDER_OPS (the provider resolves a storeId, pincode or lat/lon its actors take)`

const products = reason("product cards by product URL")
const search = reason("search listings for a query")
const category = reason(
  "listings of a category and sub-category named as in the app's menu (automation-lab's and upscrape's actors take category URLs, mindcase-co's the names)"
)

/** Why an op of these platforms that fetches has no shipped mapping. */
export const unmapped: Readonly<Record<string, string>> = {
  "quick_commerce_a.products": products,
  "quick_commerce_a.search": search,
  "quick_commerce_a.category": category,
  "quick_commerce_b.products": products,
  "quick_commerce_b.search": search,
  "quick_commerce_b.category": category
}
