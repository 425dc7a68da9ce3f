/**
 * The plan of a call (D8 step 1): its units (subject or query, freshness key, what is stored, contact parts held and
 * to buy, exact price) and its quote; what a unit becomes once fetched.
 */
import type * as Catalogue from "./Catalogue.js"
import type { CoverageItem } from "./Coverage.js"
import type * as Pricing from "./Pricing.js"
import type { Measurement, Reveal } from "./ports/Measurements.js"
import type { UnitOutcome } from "./ports/Upstream.js"

/** A contact part an org buys. */
export type Part = "email" | "phone"

/** A unit of work once planned. */
export interface Unit {
  readonly label: { readonly subject: string } | { readonly query: string }
  readonly entity: string
  readonly freshnessKey: string
  readonly asked: number
  readonly stored: Measurement | undefined
  /** contacts: parts to buy, and what the org already holds. */
  readonly buy: ReadonlyArray<Part>
  readonly held: ReadonlyArray<Reveal>
  /** The exact price if fetched in full (zero when stored). */
  readonly price: Pricing.Exact
}

/** A plan: the units, the quote, and what the call depends on. */
export interface Plan {
  readonly op: Catalogue.OpDef
  readonly request: Catalogue.OpRequest
  readonly units: ReadonlyArray<Unit>
  readonly quote: number
  readonly store: string | undefined
  readonly sourcePrice: { readonly credits: number; readonly rows: number } | undefined
}

/** A unit once fetched: delivered, or omitted with its reason. */
export type Fetched =
  | { readonly unit: Unit; readonly outcome: Extract<UnitOutcome, { _tag: "Delivered" }>; readonly at: Date }
  | {
      readonly unit: Unit
      readonly omitted: NonNullable<CoverageItem["reason"]>
      readonly detail: string
      readonly source: string
    }

/** Whether a unit is fetched: contact parts still to buy (price rule `PerPart`), else nothing stored. */
export const needsFetch = (p: Plan, u: Unit) =>
  p.op.price._tag === "PerPart" ? u.buy.length > 0 : u.stored === undefined
