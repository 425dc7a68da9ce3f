/**
 * The explore sources shipped with the provider (issue 20): the actors explore `run` serves when PROVIDER_EXPLORE is
 * not set. Explore rows are raw and unverified (D11), so a source needs no row mapping: what it needs is a public
 * actor whose page documents the input a caller forwards and its price per item. Each source's per-row price in
 * credits pays for its actor's items at the default PROVIDER_USD_PER_CREDIT (0.001 USD): a run's charge limit is its
 * quote times that, and a source whose price cannot pay for its items at the configured value stops the start
 * (ProviderUpstream.settingsConfig). Every input field and price below was read on the cited page.
 *
 * These are the quick-commerce actors whose input and price are documented: two of them also serve the dedicated
 * quick_commerce_a/b search ops (QuickCommerce.ts); explore is how a caller reaches them, and the others, rows raw.
 */

/** A shipped explore source: its actor, the page read, the actor's price per item and ours per row. */
export interface ShippedSource {
  readonly actor: string
  readonly docs: string
  /** The actor's USD per dataset item, as its page gives it. */
  readonly usdPerItem: number
  /** Our price: `credits` for every `rows` rows returned (D1: explore `run` is billed per row returned). */
  readonly price: { readonly credits: number; readonly rows: number }
  /** The input fields its page documents, for the catalogue document. */
  readonly input: string
}

export const sources: ReadonlyArray<ShippedSource> = [
  // https://apify.com/automation-lab/blinkit-category-products-scraper/pricing: "from $0.96 / 1,000 item extracteds";
  // input read on its example .../examples/blinkit-fresh-vegetables-category.md: `startUrls` [{ url }] of category
  // URLs, `searchQueries`, `locations` [{ latitude, longitude, label }], `maxItems`.
  {
    actor: "automation-lab~blinkit-category-products-scraper",
    docs: "https://apify.com/automation-lab/blinkit-category-products-scraper",
    usdPerItem: 0.00096,
    price: { credits: 1, rows: 1 },
    input:
      "startUrls [{ url }] (Blinkit category URLs), searchQueries, locations [{ latitude, longitude, label }], maxItems"
  },
  // https://apify.com/ikmal_suzali_atr/rank-zepto: "from $4.00 / 1,000 results"; input `keywords`, `locations`
  // [{ lat, lon, label }] (one row per search result position at the store serving that location).
  {
    actor: "ikmal_suzali_atr~rank-zepto",
    docs: "https://apify.com/ikmal_suzali_atr/rank-zepto",
    usdPerItem: 0.004,
    price: { credits: 4, rows: 1 },
    input: "keywords, locations [{ lat, lon, label }]"
  },
  // https://apify.com/parsebird/zepto-product-scraper/api/cli: "from $0.69 / 1,000 products"; input `query`,
  // `startUrl` (a Zepto search URL), `results_wanted`, `max_pages` (no delivery location).
  {
    actor: "parsebird~zepto-product-scraper",
    docs: "https://apify.com/parsebird/zepto-product-scraper",
    usdPerItem: 0.00069,
    price: { credits: 1, rows: 1 },
    input: "query, startUrl (a Zepto search URL), results_wanted, max_pages"
  }
]
