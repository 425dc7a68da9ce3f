/**
 * The shipped provider catalogue's mappings for fashion_marketplace (issue 20): each one cites the actor's page where its
 * input fields, output fields and price were read; every op of these platforms that fetches is in `shipped` or in
 * `unmapped` with the reason.
 */
/** A product record of abotapi~ssense-product-scraper (its README table and example view, cited below). */
const ssenseRow = {
  itemId: { path: "productId", as: "string" },
  name: "title",
  designer: "brand",
  price: { path: "price", as: "number" },
  fullPrice: { path: "regularPrice", as: "number" },
  discountPercent: { path: "discountPercent", as: "number" },
  currency: "currency"
} as const

export const shipped = {
  // https://apify.com/abotapi/ssense-product-scraper ("SSENSE Scraper - Products, Sale & Retail Prices", "from $1.70 /
  // 1,000 product records", pay per event; its pricing tab's table was not readable, so the advertised price is the one
  // used). Its README table: recordId / productId ("the store's own product id, stable across runs"), title / brand /
  // sku (product name, designer, style code), price ("the current selling price"), regularPrice ("the regular
  // (undiscounted) price"), onSale / discountPercent, stock state and images; the product description is "one toggle
  // away" (fetchDetails). Its example task
  // https://apify.com/abotapi/ssense-product-scraper/examples/ssense-product-scraper.md gives the input (mode "search",
  // searchTerms, urls, gender, saleOnly, onSaleOnly, sortResultsBy, fetchDetails, maxItems, maxPages, incrementalMode,
  // emitUnchanged, emitExpired, maxNotifyListings, proxy) and the output view: recordId, rowType, title, brand
  // ("Designer"), sku, gender, category, price (number), regularPrice (number), onSale (boolean), discountPercent
  // (number), currency (string), inStock, ... (the rest of the view is past the readable part).
  "fashion_marketplace.search": {
    actor: "abotapi~ssense-product-scraper",
    docs: "https://apify.com/abotapi/ssense-product-scraper",
    usdPerItem: 0.0017,
    input: { mode: "search", searchTerms: ["$query"], fetchDetails: false, maxItems: "$rows" },
    rows: ssenseRow,
    notMapped:
      "the marketplace is read as SSENSE (designer, category and sale pages, numeric product ids, prices per storefront locale): no Farfetch actor documents its output (see the other fashion ops). stockQuantity and sizes: the actor documents a stock state (inStock, its form past the readable part) but no unit count and no size list; null. fetchDetails is sent false (the description is not a field of the row, and the detail fetch's price is not documented). gender is not sent, so the actor's own default section applies (its example searches men). The actor's rowType values are not documented, so no row type is filtered out: an item without a title, designer or price fails the unit. The page documents no error items, so the default error paths are kept"
  },
  // The same actor walks a designer, category or sale page: its page (https://apify.com/abotapi/ssense-product-scraper,
  // read again in the eighth round) says "search by keyword, browse the men's or women's catalogue, follow designers
  // and categories, or watch the sale section. Paste any store URL to walk it directly", and "Scrape SSENSE by keyword,
  // category, designer or URL"; its API example (https://apify.com/abotapi/ssense-product-scraper/api/python) sends
  // such pages in `urls` (".../men/sneakers", ".../men/designers/balenciaga", ".../men/sale", ...) beside mode
  // "search", the only mode value documented. The rows are the search's (the same records, the same README table).
  "fashion_marketplace.listing": {
    actor: "abotapi~ssense-product-scraper",
    docs: "https://apify.com/abotapi/ssense-product-scraper",
    usdPerItem: 0.0017,
    input: { mode: "search", searchTerms: [], urls: ["$subject"], fetchDetails: false, maxItems: "$rows" },
    rows: ssenseRow,
    notMapped:
      "the page is walked as an SSENSE store URL (the marketplace is read as SSENSE, see search): the page is sent in urls with mode search and an empty searchTerms list (so that no default search term of the actor's is searched beside the page), as its README says a pasted store URL is walked directly (its examples send urls beside search terms; no other mode value is documented). stockQuantity and sizes: no unit count and no size list are documented; null. fetchDetails is sent false; gender is not sent (the page's own section applies). An item without a title, designer or price fails the unit. The page documents no error items, so the default error paths are kept"
  }
} as const

/** Why the fashion op without a shipped mapping (products) has none. */
const farfetch =
  "the platform models a Farfetch-like marketplace (designer, stockQuantity, sizes in stock, numeric item ids), and no Farfetch actor found shows its output field names and value shapes on the readable part of its page: autofacts/farfetch (startUrls, withSizeFit, withRecommends; from $3.00 or $4.00 / 1,000 products on different copies of its page; output fields not shown), barking_kelp/farfetch-scraper (startUrls, search, category, brand; from $2.00 / 1,000 results; output fields not shown), crawloop/farfetch-scraper (keywords, listing and product URLs; pay per event, no per-product price read; output fields not shown), studio-amba/farfetch-scraper (from $1.20 / 1,000; output fields not shown), 123webdata/farfetch-scraper ($5.00 / 1,000; productUrls, categoryUrls; its simplified output example has no designer, stock or sizes), shahidirfan/farfetch-pricing-scraper (from $1.00 / 1,000; lists availability, no stock count or sizes), stealth_mode/farfetch-product-search-scraper (from $2.00 / 1,000; \"brand names, prices, stock levels\" and 20+ fields, none named on the readable part of its page). The newer row specs (value tables, regular expressions, request fields) do not close this: what is missing is the actors' documented output field names and shapes. In the fourth round (with stock, discount and sizes allowed to be null, D38, the gap is still the names of the item id, designer, price and currency fields): barking_kelp/farfetch-scraper's page (https://apify.com/barking_kelp/farfetch-scraper) documents its input table (startUrls, search, category, brand, ...) and says it gives current and before-discount prices, brand, sizes, stock and variants, but its output keys are past the readable part; crawloop/farfetch-scraper (https://apify.com/crawloop/farfetch-scraper.md: designer, name, price, sale price, currency, stock and sizes on one row; pay per event, no amount read) and studio-amba/farfetch-scraper (brandStyleId, per-size stock, from $1.20 / 1,000) name their fields in prose only; autofacts/farfetch's changelog (https://apify.com/autofacts/farfetch/changelog.md, 2.0) says product records keep the 1.x fields (its old page: prices multiplied by 100) without naming them, and its output-schema page shows no field; stealth_mode/farfetch-product-search-scraper and parseforge/farfetch-scraper ($19.00 / 1,000) name none; the GitHub repositories 2scraper/farfetch-scraper and 0xC1pher/farfetch-scraper are not Apify actors. In the seventh round the pages of barking_kelp, autofacts, crawloop, studio-amba and stealth_mode were read again and still end before their output keys; no Farfetch actor was found in the open-source actor repositories indexed"

/** Why an op of these platforms that fetches has no shipped mapping. */
export const unmapped: Readonly<Record<string, string>> = {
  "fashion_marketplace.products": `${farfetch}. The SSENSE actor that serves search (abotapi/ssense-product-scraper) takes product pages only as URLs (its urls input), while a products unit's subject is the numeric item id (a URL's last digits), from which an SSENSE product URL (designer and name slugs) cannot be built`
}
