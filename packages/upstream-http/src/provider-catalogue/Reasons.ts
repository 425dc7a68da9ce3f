/** The reasons shared by ops without a shipped provider mapping. */

/** No suitable public actor was verified. */
export const noDocs =
  "no public actor whose page documents both its input fields and output fields covering this op's required row fields was verified in this release"
