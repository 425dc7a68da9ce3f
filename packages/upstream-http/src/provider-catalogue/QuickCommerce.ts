/**
 * The shipped provider catalogue's mappings for quick_commerce_a, quick_commerce_b (issue 20): each one cites the actor's page where its
 * input fields, output fields and price were read; every op of these platforms that fetches is in `shipped` or in
 * `unmapped` with the reason.
 *
 * The provider adapter resolves quick-commerce stores (D3, ProviderUpstream.ts): a locator whose form every mapped op
 * of the platform takes (`$request.store.pincode`, `$request.store.lat` with `lon`, `$request.store.storeId`) is the
 * store identity as given. A store-scoped platform is served whole by one adapter (Upstreams.effectiveRoutes), so the
 * provider serves an app only when its three fetching ops are all mapped onto actors taking one same locator form: a
 * search mapping alone would be shipped and never served. None is shipped: the one op no actor documents is the
 * category listing named as in the app's menu (every actor that takes the names documents no output field), and no
 * app has a documented product-by-URL actor at a store either. D38 (null for unmeasured values) would let a row's
 * rating, rating count, units in stock, discount or pack size be null where an actor does not measure them; that is
 * not what is missing. An operator may still map all three ops of a platform with PROVIDER_OPS or PROVIDER_MAPPINGS.
 *
 * The pages read (input, output, price), in the two passes (the second with the search tool's docs corpus):
 * - https://apify.com/automation-lab/blinkit-category-products-scraper (its example page
 *   .../examples/blinkit-fresh-vegetables-category.md: input `startUrls` of category URLs
 *   (https://blinkit.com/cn/fresh-vegetables/cid/1487/1489), `searchQueries`, `locations` [{ latitude, longitude,
 *   label }], `maxItems`; output name, brand, variant, price, mrp, inStock, inventory, rank, merchantId, location,
 *   productUrl, scrapedAt; its pricing page: "from $0.96 / 1,000 item extracteds");
 * - https://apify.com/upscrape/blinkit-product-details-scraper (input-schema and API pages: `products` (product URLs
 *   or bare ids), `pincodes`, or cities; "from $4.00 / 1,000 products"; no output field named on its own pages),
 *   https://apify.com/upscrape/blinkit-product-search-scraper (API example { searchTerms, pincodes }),
 *   https://apify.com/upscrape/blinkit-category-scraper ("from category URLs", "from $1.49 / 1,000 results"), and
 *   https://apify.com/upscrape/blinkit-delivery-coverage-checker/output-schema (the one upscrape output schema read:
 *   input_query, input_product, input_category_url, input_pincode, rank, name, brand, variant, price, mrp,
 *   discount_text, inventory, product_id, product_url, ...; a page of another actor);
 * - https://apify.com/mindcase-co/blinkit-products-scraper and https://apify.com/mindcase-co/zepto-products-scraper
 *   (input-schema and API pages: top-level category and sub-category names, brand, dark store id, latitude/longitude,
 *   city, pincode; "prices, MRP, stock, ratings, search rank and images", "from $1.50 / 1,000 products"; no output
 *   field named on any page read), https://apify.com/mindcase-co/flipkart-minutes-products-scraper (the same
 *   description and price; only the opening of its .md page and its API page read: no field named);
 * - https://apify.com/zapticx/blinkit-products-prices-scraper (API example { searchQueries, locations: ["Delhi"],
 *   maxResults, categories, productUrls, brandFilter, includeOutOfStock, ... }, "for any Indian city, PIN code or
 *   coordinates"; neither output fields nor a price on a page read);
 * - https://apify.com/ikmal_suzali_atr/rank-zepto (`keywords`, `locations` [{ lat, lon, label }]; position,
 *   product_id, name, brand, price, mrp, in_stock, inventory, location_label, pincode, store_id; "from $4.00 / 1,000
 *   results"), https://apify.com/ikmal_suzali_atr/zepto-details and https://apify.com/ikmal_suzali_atr/blinkit-details
 *   (a product id or URL at a pincode, "from $7.00 / 1,000 results"; no output field named),
 *   https://apify.com/ikmal_suzali_atr/blinkit-catalog, .../zepto-catalog and .../instamart-catalog (a whole store for
 *   a location; no input or output field named);
 * - https://apify.com/parsebird/zepto-product-scraper (`query`, `startUrl`, `results_wanted`, `max_pages`; no store
 *   location; output name, brand, formatted_packsize, mrp, selling_price, discount_percent, out_of_stock,
 *   rating_average, rating_count; "from $0.69 / 1,000 products"), https://apify.com/shahidirfan/zepto-product-scraper ("query or ...
 *   startUrl", no location, "from $0.80 / 1,000 results"), https://apify.com/krazee_kaushik/zepto-scraper (delivery
 *   locations and search keywords, "from $2.00 / 1,000 product scrapeds"; neither the location form nor the output
 *   fields on the part read), https://apify.com/scrapix/zepto-product-screener ("by search keyword or category for any
 *   delivery location"; no field named), https://apify.com/architjn/zepto-category-scraper and
 *   https://apify.com/scrapedo/zepto-scraper (category URLs; scrapedo's "no per-result fee");
 * - https://apify.com/code-for-everyone/swiggy-instamart-scraper (`searchQueries`, `categoryUrls`, `city`, `area`),
 *   https://apify.com/clearpath/flipkart-minutes-scraper (its example .../examples/flipkart-minutes-category-audit.md:
 *   `locations` as built-in area labels, "Mumbai · Powai", `searchTerms`, `categories` ["Fresh Fruits"], `maxItems`;
 *   "or your own coordinates", whose input field is not on a page read; no price read),
 *   https://apify.com/ikmal_suzali_atr/flipkart-product-data (FSNs, search terms or category URLs at a pincode).
 */

export const shipped = {} as const

/** Why no app is shipped at all: what a store-scoped platform needs of its actors. */
const whole =
  "A quick-commerce app is served whole by one adapter (D3: its stores are resolved by the adapter that serves it), so the provider serves it only when products, search and category are all mapped onto actors taking one same store locator (storeId, pincode or lat/lon); no app has all three documented, so none is shipped, and D38 (null for an unmeasured rating, rating count, stock, discount or pack size) does not change that. An operator may map all three ops of a platform with PROVIDER_OPS or PROVIDER_MAPPINGS"

const products = `no actor documents a product card by product URL at one store with its output fields and price: upscrape~blinkit-product-details-scraper takes \`products\` (URLs or ids) and \`pincodes\` (from $4.00 / 1,000 products) but no page of its own names an output field (the upscrape output schema read is upscrape~blinkit-delivery-coverage-checker's); ikmal_suzali_atr~blinkit-details and ikmal_suzali_atr~zepto-details (an id or URL at a pincode, from $7.00 / 1,000 results) name no output field; zapticx~blinkit-products-prices-scraper (\`productUrls\`, \`locations\`) documents neither its output fields nor its price on a page read; parsebird~zepto-product-scraper and shahidirfan~zepto-product-scraper search by query, with no product URL and no store location. ${whole}`

const search = `searches at a store are documented (automation-lab~blinkit-category-products-scraper: \`searchQueries\`, \`locations\` [{ latitude, longitude, label }], \`maxItems\`, output name, brand, variant, price, mrp, inStock, inventory, rank, from $0.96 / 1,000 item extracteds; ikmal_suzali_atr~rank-zepto: \`keywords\`, \`locations\` [{ lat, lon, label }], output position, name, brand, price, mrp, in_stock, inventory, store_id, from $4.00 / 1,000 results; upscrape~blinkit-product-search-scraper: \`searchTerms\`, \`pincodes\`), but a search mapping alone would never be served: neither app's products nor category op has a documented actor (see those ops); krazee_kaushik~zepto-scraper shows neither its location form nor its output fields on the part read, and parsebird's and shahidirfan's Zepto actors take no store location. ${whole}`

const category = `no actor documents a listing of a category and sub-category named as in the app's menu: mindcase-co~blinkit-products-scraper and ~zepto-products-scraper take those names (with a dark store id, latitude/longitude or pincode; from $1.50 / 1,000 products) but their input-schema and API pages name no output field, and the pages read of mindcase-co~flipkart-minutes-products-scraper name no field at all; automation-lab~blinkit-category-products-scraper, upscrape~blinkit-category-scraper, architjn~zepto-category-scraper and code-for-everyone~swiggy-instamart-scraper take category URLs, whose ids a menu name does not give, and scrapedo~zepto-scraper charges no per-result fee; ikmal_suzali_atr~blinkit-catalog, ~zepto-catalog and ~instamart-catalog (a whole store by location) and scrapix~zepto-product-screener name no input or output field on a page read; clearpath~flipkart-minutes-scraper takes category names but its documented \`locations\` are built-in area labels ("Mumbai · Powai"), not a store locator, and no price was read. ${whole}`

/** Why an op of these platforms that fetches has no shipped mapping. */
export const unmapped: Readonly<Record<string, string>> = {
  "quick_commerce_a.products": products,
  "quick_commerce_a.search": search,
  "quick_commerce_a.category": category,
  "quick_commerce_b.products": products,
  "quick_commerce_b.search": search,
  "quick_commerce_b.category": category
}
