/**
 * The shipped provider catalogue's mappings for quick_commerce_a, quick_commerce_b (issue 20): each one cites the actor's page where its
 * input fields, output fields and price were read; every op of these platforms that fetches is in `shipped` or in
 * `unmapped` with the reason.
 */
import { storeScoped } from "./Reasons.js"

export const shipped = {} as const

/** Why an op of these platforms that fetches has no shipped mapping. */
export const unmapped: Readonly<Record<string, string>> = {
  "quick_commerce_a.products": storeScoped,
  "quick_commerce_a.search": storeScoped,
  "quick_commerce_a.category": storeScoped,
  "quick_commerce_b.products": storeScoped,
  "quick_commerce_b.search": storeScoped,
  "quick_commerce_b.category": storeScoped
}
