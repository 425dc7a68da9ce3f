/** The reasons shared by ops without a shipped provider mapping. */

/** No suitable public actor was verified. */
export const noDocs =
  "no public actor whose page documents both its input fields and output fields covering this op's required row fields was verified in this release"

/** Quick-commerce ops need a resolved store (D3). */
export const storeScoped =
  "store-scoped: the provider adapter resolves no quick-commerce stores (D3), so its ops stay with an adapter that does"
