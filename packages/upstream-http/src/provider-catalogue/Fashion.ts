/**
 * The shipped provider catalogue's mappings for fashion_marketplace (issue 20): each one cites the actor's page where its
 * input fields, output fields and price were read; every op of these platforms that fetches is in `shipped` or in
 * `unmapped` with the reason.
 */
export const shipped = {} as const

/** Why the fashion ops have no shipped mapping. */
const farfetch =
  "the platform models a Farfetch-like marketplace (designer, stockQuantity, sizes in stock, numeric item ids), and no Farfetch actor found shows its output field names and value shapes on the readable part of its page: autofacts/farfetch (startUrls, withSizeFit, withRecommends; from $3.00 or $4.00 / 1,000 products on different copies of its page; output fields not shown), barking_kelp/farfetch-scraper (startUrls, search, category, brand; from $2.00 / 1,000 results; output fields not shown), crawloop/farfetch-scraper (keywords, listing and product URLs; pay per event, no per-product price read; output fields not shown), studio-amba/farfetch-scraper (from $1.20 / 1,000; output fields not shown), 123webdata/farfetch-scraper ($5.00 / 1,000; productUrls, categoryUrls; its simplified output example has no designer, stock or sizes), shahidirfan/farfetch-pricing-scraper (from $1.00 / 1,000; lists availability, no stock count or sizes), stealth_mode/farfetch-product-search-scraper (from $2.00 / 1,000; \"brand names, prices, stock levels\" and 20+ fields, none named on the readable part of its page). The newer row specs (value tables, regular expressions, request fields) do not close this: what is missing is the actors' documented output field names and shapes. In the fourth round (with stock, discount and sizes allowed to be null, D38, the gap is still the names of the item id, designer, price and currency fields): barking_kelp/farfetch-scraper's page (https://apify.com/barking_kelp/farfetch-scraper) documents its input table (startUrls, search, category, brand, ...) and says it gives current and before-discount prices, brand, sizes, stock and variants, but its output keys are past the readable part; crawloop/farfetch-scraper (https://apify.com/crawloop/farfetch-scraper.md: designer, name, price, sale price, currency, stock and sizes on one row; pay per event, no amount read) and studio-amba/farfetch-scraper (brandStyleId, per-size stock, from $1.20 / 1,000) name their fields in prose only; autofacts/farfetch's changelog (https://apify.com/autofacts/farfetch/changelog.md, 2.0) says product records keep the 1.x fields (its old page: prices multiplied by 100) without naming them, and its output-schema page shows no field; stealth_mode/farfetch-product-search-scraper and parseforge/farfetch-scraper ($19.00 / 1,000) name none; the GitHub repositories 2scraper/farfetch-scraper and 0xC1pher/farfetch-scraper are not Apify actors"

/** Why an op of these platforms that fetches has no shipped mapping. */
export const unmapped: Readonly<Record<string, string>> = {
  "fashion_marketplace.products": farfetch,
  "fashion_marketplace.listing": farfetch,
  "fashion_marketplace.search": farfetch
}
