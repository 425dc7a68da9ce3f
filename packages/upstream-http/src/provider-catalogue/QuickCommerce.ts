/**
 * The shipped provider catalogue's mappings for quick_commerce_a, quick_commerce_b (issue 20): each one cites the actor's page where its
 * input fields, output fields and price were read; every op of these platforms that fetches is in `shipped` or in
 * `unmapped` with the reason.
 *
 * Which app is which: the spec names neither ("one dark store, prices per store", INR prices and MRP, pincode or
 * lat/lon store locators and a category menu fit Blinkit, Zepto, Swiggy Instamart and Flipkart Minutes alike), so the
 * catalogue ships quick_commerce_a as Blinkit and quick_commerce_b as Zepto, the two apps with a documented search at
 * a store location (a choice of this catalogue, said in the README); the reasons of the unmapped ops are written for
 * both platforms and name the actors of all four apps.
 *
 * Stores are resolved per op (D3 as revised here): each op's request carries `store` (exactly one of storeId, pincode
 * with city, lat with lon; D17) and the call resolves it through the adapter serving that op (Upstream.route), so a
 * search served by an actor is resolved by the provider from the locator forms its mapping takes, while products,
 * category and history stay on their default route and keep its store identity (history reads the points products
 * writes: they share an adapter, Upstream.storeSharers). A locator form the search's actor does not take (a storeId,
 * or a pincode for the Blinkit actor, which takes coordinates only) is refused 400 naming `request.store` before
 * anything is spent, never sent to the actor without a location; `GET /api/v1/platforms` says per op which forms it
 * takes (`servedBy.store`). Each row's `store` is the store the actor was asked for (the locator as given,
 * canonicalised: coordinates at 4 decimals), not an id the actor reports: the Blinkit actor's `merchantId` and the
 * Zepto actor's `store_id` are the dark store the app assigned, which the request cannot name beforehand.
 *
 * Row fields the actors do not measure are null (D38): the Blinkit actor documents no discount, rating or rating
 * count; the Zepto actor no pack size, discount, rating or rating count. A discount is not computed from price and
 * mrp: the row carries what the app shows, never a value of ours.
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

export const shipped = {
  // quick_commerce_a is Blinkit. Input, output and the store location read on the actor's example page
  // https://apify.com/automation-lab/blinkit-category-products-scraper/examples/blinkit-fresh-vegetables-category.md:
  // input `startUrls`, `searchQueries`, `locations` [{ latitude, longitude, label }], `maxItems`; output name, brand,
  // variant ("Pack size / variant"), price, mrp, inStock (boolean), inventory (number), rank ("Listing rank",
  // integer), merchantId ("Store / merchant ID"), location, productUrl, scrapedAt. Its description ("Extract
  // location-specific Blinkit category and search products ... listing rank, and store identifiers") and price:
  // https://apify.com/automation-lab/blinkit-category-products-scraper/pricing, "from $0.96 / 1,000 item extracteds".
  // It takes a location as coordinates only: a pincode or storeId request is refused (400 naming request.store).
  "quick_commerce_a.search": {
    actor: "automation-lab~blinkit-category-products-scraper",
    docs: "https://apify.com/automation-lab/blinkit-category-products-scraper/examples/blinkit-fresh-vegetables-category.md",
    usdPerItem: 0.00096,
    input: {
      searchQueries: ["$query"],
      locations: [{ latitude: "$request.store.lat", longitude: "$request.store.lon" }],
      maxItems: "$rows"
    },
    rows: {
      rank: { path: "rank", as: "integer" },
      name: "name",
      brand: "brand",
      packSize: "variant",
      price: { path: "price", as: "number" },
      mrp: { path: "mrp", as: "number" },
      inStock: { path: "inStock", as: "boolean" },
      stockCount: { path: "inventory", as: "integer" }
    },
    notMapped:
      "store: lat with lon only (the actor's `locations` take latitude and longitude; a pincode or storeId is refused 400 naming request.store); discountPct, rating and ratingCount are null (no such output field documented; a discount is not computed from price and mrp); each row's store is the location asked (geo:<lat>,<lon> at 4 decimals), the actor's merchantId is not kept"
  },
  // quick_commerce_b is Zepto. https://apify.com/ikmal_suzali_atr/rank-zepto: "Captures the full Zepto search results
  // slate for a keyword in a specific Indian location"; "One row per search result position: position, product_id,
  // name, brand, price, mrp, in_stock and inventory", "is_sponsored on paid slots", "location_label, pincode and
  // store_id", "captured_at"; input: "Give the keywords and at least one Indian pincode", example { keywords,
  // locations: [{ lat, lon, label }] }; its API pages (https://apify.com/ikmal_suzali_atr/rank-zepto/api/javascript)
  // give the input { keywords, pincodes: ["122002"] }; "from $4.00 / 1,000 results". It documents no item limit of
  // its own: the run's maxItems bounds it. Sponsored slots are kept: they are positions of the listing the app shows.
  "quick_commerce_b.search": {
    actor: "ikmal_suzali_atr~rank-zepto",
    docs: "https://apify.com/ikmal_suzali_atr/rank-zepto",
    usdPerItem: 0.004,
    input: {
      keywords: ["$query"],
      locations: [{ lat: "$request.store.lat", lon: "$request.store.lon" }],
      pincodes: ["$request.store.pincode"]
    },
    rows: {
      rank: { path: "position", as: "integer" },
      name: "name",
      brand: "brand",
      price: { path: "price", as: "number" },
      mrp: { path: "mrp", as: "number" },
      inStock: { path: "in_stock", as: "boolean" },
      stockCount: { path: "inventory", as: "integer" }
    },
    notMapped:
      "store: pincode (with city, which the actor does not take) or lat with lon (the actor's `pincodes` and `locations`); a storeId is refused 400 naming request.store; packSize, discountPct, rating and ratingCount are null (no such output field documented); each row's store is the locator asked (pincode:<pincode> or geo:<lat>,<lon>), the actor's store_id is not kept; sponsored positions (is_sponsored) are kept as ranked"
  }
} as const

/** Why products and category stay on their default route (search is served per op, D3). */
const perOp =
  "The app's search is served by the provider (quick_commerce_a: automation-lab~blinkit-category-products-scraper; quick_commerce_b: ikmal_suzali_atr~rank-zepto) with its store resolved per op (D3 revised: each op's store locator is resolved by the adapter serving that op, and history with the ops writing its points); this op stays on its default route, with its own store identity. An operator may map it with PROVIDER_OPS or PROVIDER_MAPPINGS (a products mapping takes history with it); the documented actors are reachable raw through explore run"

const products = `no actor documents a product card by product URL at one store with its output fields and price: upscrape~blinkit-product-details-scraper takes \`products\` (URLs or ids) and \`pincodes\` (from $4.00 / 1,000 products) but no page of its own names an output field (the upscrape output schema read is upscrape~blinkit-delivery-coverage-checker's); ikmal_suzali_atr~blinkit-details and ikmal_suzali_atr~zepto-details (an id or URL at a pincode, from $7.00 / 1,000 results) name no output field; zapticx~blinkit-products-prices-scraper (\`productUrls\`, \`locations\`) documents neither its output fields nor its price on a page read; parsebird~zepto-product-scraper and shahidirfan~zepto-product-scraper search by query, with no product URL and no store location; in the third pass: sharath1036~blinkit-product-scraper ("search by keyword or paste product URLs") and 123webdata~blinkit-scraper ("search and product pages", from $0.89 / 1,000 results) show neither a location input nor an output field on a page read, s-r~blinkit-scraper and axlymxp~zepto-mcp-server (product detail, stores by delivery location) name no field, and noahadler~zepto-scraper says its storeId is the store Zepto assigned, not one the input chose. ${perOp}`

const category = `no actor documents a listing of a category and sub-category named as in the app's menu: mindcase-co~blinkit-products-scraper and ~zepto-products-scraper take those names (with a dark store id, latitude/longitude or pincode; from $1.50 / 1,000 products) but their input-schema and API pages name no output field, and the pages read of mindcase-co~flipkart-minutes-products-scraper name no field at all; automation-lab~blinkit-category-products-scraper, upscrape~blinkit-category-scraper, architjn~zepto-category-scraper and code-for-everyone~swiggy-instamart-scraper take category URLs, whose ids a menu name does not give, and scrapedo~zepto-scraper charges no per-result fee; ikmal_suzali_atr~blinkit-catalog, ~zepto-catalog and ~instamart-catalog (a whole store by location) and scrapix~zepto-product-screener name no input or output field on a page read; clearpath~flipkart-minutes-scraper takes category names but its documented \`locations\` are built-in area labels ("Mumbai · Powai"), not a store locator, and no price was read; in the third pass architjn~blinkit-category-scraper, scrapedo~blinkit-scraper and solidcode~zepto-scraper take category URLs too (ids a menu name does not give). ${perOp}`

/** Why an op of these platforms that fetches has no shipped mapping. */
export const unmapped: Readonly<Record<string, string>> = {
  "quick_commerce_a.products": products,
  "quick_commerce_a.category": category,
  "quick_commerce_b.products": products,
  "quick_commerce_b.category": category
}
