/**
 * The shipped provider catalogue's mappings for quick_commerce_a, quick_commerce_b (issue 20): each one cites the actor's page where its
 * input fields, output fields and price were read; every op of these platforms that fetches is in `shipped` or in
 * `unmapped` with the reason.
 *
 * The spec names neither app: "one dark store, prices per store", INR prices and MRP, pincode or lat/lon store
 * locators and a category menu fit Blinkit, Zepto, Swiggy Instamart and Flipkart Minutes alike, so every reason below
 * is written for both platforms and names the actors of all four.
 *
 * Why an app is served whole (checked again this round): every op's request carries `store` (exactly one of storeId,
 * pincode with city, lat with lon; D17); the call resolves it once, through the adapter routed to the platform (D3,
 * Upstream.route), and that identity keys the op's stored results, the history points of the products it measures
 * and each row's `store`. The provider adapter resolves only the locator forms its mappings take
 * (`$request.store.pincode`, `$request.store.lat` with `lon`, `$request.store.storeId`), as given. Were search alone
 * on the provider, the synthetic upstream would resolve every form, so a pincode sent to an actor that takes lat/lon
 * would leave its location out (an absent value is left out of the input) and the actor would answer at its own
 * default store: another store's prices sold as this one's, and the rows would carry a synthetic store identity.
 * Splitting an app is safe only with stores resolved per op (the op's adapter, and products with history on one
 * adapter, since history reads the points products writes), which is a change to D3's "one store identity" and to the
 * Upstream port, not made here. So the provider serves an app only when its three fetching ops are all mapped onto
 * actors taking one same locator form (Upstreams.effectiveRoutes): a search mapping alone would be shipped and never
 * served. The actors below that document their input and price are reachable raw through explore `run`
 * (Explore.ts). None is shipped: the one op no actor documents is the
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
 * - third pass (this round, the docs corpus): https://apify.com/solidcode/zepto-scraper (its example
 *   .../examples/zepto-category-url-product-scraper.md: input `searchTerms`, `startUrls` (search or category links),
 *   `city`, `latitude`, `longitude`, `maxResults`, `includeEta`; output name, brand, price, mrp, discountPercent,
 *   packSize, inStock, ratingValue, etaInMinutes, searchTerm, url: no units in stock, no rating count, no price read),
 *   https://apify.com/sharath1036/blinkit-product-scraper ("search by keyword or paste product URLs"; neither a
 *   location input nor an output field on a page read), https://apify.com/123webdata/blinkit-scraper.md ("Blinkit
 *   search and product pages", from $0.89 / 1,000 results; no location input or output field read),
 *   https://apify.com/s-r/blinkit-scraper ("the serving dark store attached to every offer"; no field read),
 *   https://apify.com/noahadler/zepto-scraper (its own description: "storeId is the store Zepto assigned after WAF,
 *   not a proven dark-store switch"), https://apify.com/axlymxp/zepto-mcp-server (product detail and "resolve stores
 *   by delivery location"; no field read), https://apify.com/parsebird/blinkit-price-scraper, mindcase~blinkit-scraper,
 *   fascinating_lentil~blinkit-quick-commerce-scraper (from $3.00 / 1,000 product scrapeds),
 *   stealth_mode~blinkit-product-search-scraper ("32+ data fields", none named; from $1.50 / 1,000 results),
 *   jocular_quisling~blinkit-product-scraper (searches at a location; no field read), architjn~blinkit-category-scraper
 *   and scrapedo~blinkit-scraper (category URLs at a latitude/longitude; scrapedo charges no per-result fee). The
 *   stored copies of these pages are their openapi.json and Store headers: the input-schema part of an openapi.json is
 *   past what the search returns.
 * - https://apify.com/code-for-everyone/swiggy-instamart-scraper (`searchQueries`, `categoryUrls`, `city`, `area`),
 *   https://apify.com/clearpath/flipkart-minutes-scraper (its example .../examples/flipkart-minutes-category-audit.md:
 *   `locations` as built-in area labels, "Mumbai · Powai", `searchTerms`, `categories` ["Fresh Fruits"], `maxItems`;
 *   "or your own coordinates", whose input field is not on a page read; no price read),
 *   https://apify.com/ikmal_suzali_atr/flipkart-product-data (FSNs, search terms or category URLs at a pincode).
 */

export const shipped = {} as const

/** Why no app is shipped at all: what a store-scoped platform needs of its actors. */
const whole =
  "A quick-commerce app is served whole by one adapter (D3: its stores are resolved by the adapter that serves it; were one op on the provider and the others synthetic, a locator form its actor does not take would be resolved by the synthetic upstream and the actor run without a location, at its own default store, selling another store's prices as this one's), so the provider serves it only when products, search and category are all mapped onto actors taking one same store locator (storeId, pincode or lat/lon); no app has all three documented, so none is shipped, and D38 (null for an unmeasured rating, rating count, stock, discount or pack size) does not change that. An operator may map all three ops of a platform with PROVIDER_OPS or PROVIDER_MAPPINGS; the documented actors are reachable raw through explore run"

const products = `no actor documents a product card by product URL at one store with its output fields and price: upscrape~blinkit-product-details-scraper takes \`products\` (URLs or ids) and \`pincodes\` (from $4.00 / 1,000 products) but no page of its own names an output field (the upscrape output schema read is upscrape~blinkit-delivery-coverage-checker's); ikmal_suzali_atr~blinkit-details and ikmal_suzali_atr~zepto-details (an id or URL at a pincode, from $7.00 / 1,000 results) name no output field; zapticx~blinkit-products-prices-scraper (\`productUrls\`, \`locations\`) documents neither its output fields nor its price on a page read; parsebird~zepto-product-scraper and shahidirfan~zepto-product-scraper search by query, with no product URL and no store location; in the third pass: sharath1036~blinkit-product-scraper ("search by keyword or paste product URLs") and 123webdata~blinkit-scraper ("search and product pages", from $0.89 / 1,000 results) show neither a location input nor an output field on a page read, s-r~blinkit-scraper and axlymxp~zepto-mcp-server (product detail, stores by delivery location) name no field, and noahadler~zepto-scraper says its storeId is the store Zepto assigned, not one the input chose. ${whole}`

const search = `searches at a store are documented (automation-lab~blinkit-category-products-scraper: \`searchQueries\`, \`locations\` [{ latitude, longitude, label }], \`maxItems\`, output name, brand, variant, price, mrp, inStock, inventory, rank, from $0.96 / 1,000 item extracteds; ikmal_suzali_atr~rank-zepto: \`keywords\`, \`locations\` [{ lat, lon, label }], output position, name, brand, price, mrp, in_stock, inventory, store_id, from $4.00 / 1,000 results; upscrape~blinkit-product-search-scraper: \`searchTerms\`, \`pincodes\`), but a search mapping alone would never be served: neither app's products nor category op has a documented actor (see those ops); krazee_kaushik~zepto-scraper shows neither its location form nor its output fields on the part read ("each input location is mapped to the closest active Zepto delivery zone"), and parsebird's and shahidirfan's Zepto actors take no store location; in the third pass: solidcode~zepto-scraper documents a search at latitude/longitude with its output (name, brand, price, mrp, discountPercent, packSize, inStock, ratingValue, url) but no units in stock or rating count and no price on a page read, and parsebird~blinkit-price-scraper, mindcase~blinkit-scraper, fascinating_lentil~blinkit-quick-commerce-scraper, stealth_mode~blinkit-product-search-scraper and jocular_quisling~blinkit-product-scraper (searches at a location) name no output field on a page read. ${whole}`

const category = `no actor documents a listing of a category and sub-category named as in the app's menu: mindcase-co~blinkit-products-scraper and ~zepto-products-scraper take those names (with a dark store id, latitude/longitude or pincode; from $1.50 / 1,000 products) but their input-schema and API pages name no output field, and the pages read of mindcase-co~flipkart-minutes-products-scraper name no field at all; automation-lab~blinkit-category-products-scraper, upscrape~blinkit-category-scraper, architjn~zepto-category-scraper and code-for-everyone~swiggy-instamart-scraper take category URLs, whose ids a menu name does not give, and scrapedo~zepto-scraper charges no per-result fee; ikmal_suzali_atr~blinkit-catalog, ~zepto-catalog and ~instamart-catalog (a whole store by location) and scrapix~zepto-product-screener name no input or output field on a page read; clearpath~flipkart-minutes-scraper takes category names but its documented \`locations\` are built-in area labels ("Mumbai · Powai"), not a store locator, and no price was read; in the third pass architjn~blinkit-category-scraper, scrapedo~blinkit-scraper and solidcode~zepto-scraper take category URLs too (ids a menu name does not give). ${whole}`

/** Why an op of these platforms that fetches has no shipped mapping. */
export const unmapped: Readonly<Record<string, string>> = {
  "quick_commerce_a.products": products,
  "quick_commerce_a.search": search,
  "quick_commerce_a.category": category,
  "quick_commerce_b.products": products,
  "quick_commerce_b.search": search,
  "quick_commerce_b.category": category
}
