/**
 * The shipped provider catalogue's mappings for fashion_marketplace (issue 20): each one cites the actor's page where its
 * input fields, output fields and price were read; every op of these platforms that fetches is in `shipped` or in
 * `unmapped` with the reason.
 */
import { noDocs } from "./Reasons.js"

export const shipped = {} as const

/** Why an op of these platforms that fetches has no shipped mapping. */
export const unmapped: Readonly<Record<string, string>> = {
  "fashion_marketplace.products": noDocs,
  "fashion_marketplace.listing": noDocs,
  "fashion_marketplace.search": noDocs
}
