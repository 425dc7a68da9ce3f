/**
 * Pricing (D1): each op carries one price rule as data; units are priced exactly (as fractions) and a call is
 * rounded up once, after all its units are added.
 */
import { Data } from "effect"

/** A price rule of the catalogue. */
export type PriceRule = Data.TaggedEnum<{
  /** "from N": N credits for each subject fetched and found. */
  PerSubject: { readonly credits: number }
  /** "from N for M": ceil(N * R / M) for R rows delivered. */
  PerRows: { readonly credits: number; readonly rows: number }
  /** web_search `search`: N credits per result page delivered. */
  PerPage: { readonly credits: number }
  /** jobs_in `search`: a completed search bills max(R, minimum) rows at N per M. */
  MinimumRows: { readonly credits: number; readonly rows: number; readonly minimum: number }
  /** explore `run`: rows returned times the source's per-row price (default N per M rows). */
  PerSourceRow: { readonly credits: number; readonly rows: number }
  /** contacts `reveal`: per person and per part. */
  PerPart: { readonly parts: { readonly email: number; readonly phone: number } }
  /** Never billed. */
  Free: {}
}>

/** Constructors of {@link PriceRule}. */
export const PriceRule = Data.taggedEnum<PriceRule>()

/** An exact amount of credits, a non-negative fraction `n / d`. */
export interface Exact {
  readonly n: number
  readonly d: number
}

const gcd = (a: number, b: number): number => (b === 0 ? a : gcd(b, a % b))

/** An exact amount. */
export const exact = (n: number, d = 1): Exact => {
  if (n === 0) return zero
  const g = gcd(n, d)
  return { n: n / g, d: d / g }
}

/** No credits. */
export const zero: Exact = { n: 0, d: 1 }

/** Adds exact amounts. */
export const add = (a: Exact, b: Exact): Exact => exact(a.n * b.d + b.n * a.d, a.d * b.d)

/** Sums exact amounts. */
export const sum = (amounts: Iterable<Exact>): Exact => {
  let total = zero
  for (const a of amounts) total = add(total, a)
  return total
}

/** The one rounding of a call: whole credits, rounded up. */
export const roundUp = (a: Exact): number => Math.floor((a.n + a.d - 1) / a.d)

/** What one unit of work asks for or delivered, in the terms of its op's rule. */
export interface Delivery {
  /** Rows (or pages, for PerPage) asked for or delivered. */
  readonly rows: number
  /** The unit completed (a subject found, a search answered). */
  readonly completed: boolean
  /** contacts: the parts asked or revealed. */
  readonly parts?: ReadonlyArray<"email" | "phone">
  /** explore: the source's own per-row price, when it has one. */
  readonly sourcePrice?: { readonly credits: number; readonly rows: number }
}

/** The exact price of one unit of work under a rule. Quotes and settlements both go through here. */
export const unitPrice = (rule: PriceRule, delivery: Delivery): Exact => {
  if (!delivery.completed) return zero
  switch (rule._tag) {
    case "Free":
      return zero
    case "PerSubject":
      return exact(rule.credits)
    case "PerRows":
      return exact(rule.credits * delivery.rows, rule.rows)
    case "PerPage":
      return exact(rule.credits * delivery.rows)
    case "MinimumRows":
      return exact(rule.credits * Math.max(delivery.rows, rule.minimum), rule.rows)
    case "PerSourceRow": {
      const price = delivery.sourcePrice ?? rule
      return exact(price.credits * delivery.rows, price.rows)
    }
    case "PerPart":
      return exact((delivery.parts ?? []).reduce((total, part) => total + rule.parts[part], 0))
  }
}

/** The starting price published in the catalogue ("from N"). */
export const startingPrice = (rule: PriceRule): number => {
  switch (rule._tag) {
    case "Free":
      return 0
    case "PerPart":
      return rule.parts.email + rule.parts.phone
    default:
      return rule.credits
  }
}

/** The rows the starting price is for ("for M"), or null when the price is per subject, page or person. */
export const startingRows = (rule: PriceRule): number | null =>
  rule._tag === "PerRows" || rule._tag === "MinimumRows" || rule._tag === "PerSourceRow" ? rule.rows : null

/** The rule's name in the public catalogue. */
export const ruleName = (rule: PriceRule): string =>
  ({
    PerSubject: "per_subject",
    PerRows: "per_rows",
    PerPage: "per_page",
    MinimumRows: "minimum_rows",
    PerSourceRow: "per_source_row",
    PerPart: "per_person_and_part",
    Free: "free"
  })[rule._tag]

/** A rule as the public catalogue shows it (D13): its name, starting price, rows, and the price of each part. */
export const published = (rule: PriceRule) => ({
  rule: ruleName(rule),
  startingPrice: startingPrice(rule),
  rows: startingRows(rule),
  ...(rule._tag === "PerPart" ? { parts: { ...rule.parts } } : {})
})

/** Whether a rule never bills. */
export const isFree = (rule: PriceRule): boolean => rule._tag === "Free"

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`

/** A price rule in words, as the dashboard shows it ("4 credits per subject found"). */
export const inWords = (rule: PriceRule): string => {
  switch (rule._tag) {
    case "Free":
      return "free"
    case "PerSubject":
      return `${plural(rule.credits, "credit")} per subject found`
    case "PerRows":
      return `${plural(rule.credits, "credit")} per ${rule.rows === 1 ? "row" : `${rule.rows} rows`} delivered`
    case "PerPage":
      return `${plural(rule.credits, "credit")} per result page delivered`
    case "MinimumRows":
      return `${plural(rule.credits, "credit")} per ${rule.rows === 1 ? "row" : `${rule.rows} rows`}, at least ${plural(rule.minimum, "row")} billed per completed search`
    case "PerSourceRow":
      return `the source's own price per row (by default ${plural(rule.credits, "credit")} per ${rule.rows === 1 ? "row" : `${rule.rows} rows`})`
    case "PerPart":
      return `${plural(rule.parts.email, "credit")} per email and ${plural(rule.parts.phone, "credit")} per phone number revealed`
  }
}
