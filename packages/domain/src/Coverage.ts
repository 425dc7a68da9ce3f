/**
 * What a call answers per unit (D4): its coverage item, its rows shaped for the answer (the subject or query, when
 * measured, the source), stored results' frozen views, and the contact rows of ops priced per part (D10); and the
 * answer of a whole call assembled from its units.
 */
import type * as Catalogue from "./Catalogue.js"
import { iso } from "./Instants.js"
import type { Fetched, Plan, Unit } from "./Plan.js"
import type * as Pricing from "./Pricing.js"
import type { Measurement, Row } from "./ports/Measurements.js"

/** One item of `coverage` (D4). */
export interface CoverageItem {
  readonly subject?: string
  readonly query?: string
  readonly status: "fetched" | "stored" | "omitted" | "fetch"
  readonly measuredAt: string | null
  readonly rows: number
  readonly credits: number
  readonly source: string | null
  readonly reason?: "not_found" | "upstream_failed" | "upstream_timeout" | "nothing_on_file" | "invalid_subject"
  readonly detail?: string
}

/**
 * The part of a delivery a unit keeps: rows up to the number asked, or for per-page ops every row of the pages
 * asked (a page holds about ten results; D1 bills per page delivered).
 */
export const kept = (op: Catalogue.OpDef, rows: ReadonlyArray<Row>, asked: number): ReadonlyArray<Row> =>
  op.price._tag === "PerPage" ? rows.filter((r) => Number(r["page"]) <= asked) : rows.slice(0, asked)

/** A unit's delivered rows as the answer shows them. */
export const shapeRows = (p: Plan, u: Unit, rows: ReadonlyArray<Row>, at: Date, source: string): ReadonlyArray<Row> => {
  const measuredAt = iso(at)
  return kept(p.op, rows, u.asked).map((row) => ({
    subject: "subject" in u.label ? u.label.subject : (row["subject"] ?? u.label.query),
    ...row,
    measuredAt,
    source,
    ...(p.op.stored ? {} : { unverified: true })
  }))
}

/**
 * The answer rows of a stored measurement as a unit asks for them, kept with the measurement: a stored result
 * never changes, so every later read of it (the free path, D2) reuses the same frozen rows instead of reshaping.
 */
const shapedStored = new WeakMap<Measurement, Map<string, { readonly rows: ReadonlyArray<Row>; readonly at: string }>>()
export const storedView = (p: Plan, u: Unit, s: Measurement) => {
  const key = `${"subject" in u.label ? u.label.subject : u.label.query}\u0000${u.asked}`
  let views = shapedStored.get(s)
  const known = views?.get(key)
  if (known !== undefined) return known
  const view = {
    rows: Object.freeze(shapeRows(p, u, s.rows, s.measuredAt, s.source).map(Object.freeze)),
    at: iso(s.measuredAt)
  }
  if (views === undefined) {
    views = new Map()
    shapedStored.set(s, views)
  }
  if (views.size < 16) views.set(key, view)
  return view
}

/** The contact row of a unit of an op priced per part: parts held, revealed now, or nothing on file (D10). */
export const contactRow = (
  u: Unit,
  fetchedRow: Row | undefined,
  at: Date | undefined,
  source: string | undefined
): Row => {
  const parts: Record<string, unknown> = {}
  for (const part of ["email", "phone"] as const) {
    const held = u.held.find((r) => r.part === part)
    if (held) {
      parts[part] =
        held.status === "revealed"
          ? { status: "owned", value: held.value, revealedAt: iso(held.at) }
          : { status: "nothing_on_file", value: null }
    } else if (u.buy.includes(part) && fetchedRow !== undefined) {
      const value = fetchedRow[part]
      parts[part] =
        typeof value === "string" ? { status: "revealed", value } : { status: "nothing_on_file", value: null }
    }
  }
  const times = [...u.held.map((r) => r.at.getTime()), ...(at ? [at.getTime()] : [])]
  return {
    subject: "subject" in u.label ? u.label.subject : "",
    measuredAt: iso(new Date(Math.max(...times))),
    source: source ?? u.held[0]?.source ?? null,
    ...parts
  }
}

/** A coverage item of a unit (D4): `subject` or `query`, then the rest. */
export const cover = (
  u: Unit,
  status: CoverageItem["status"],
  measuredAt: string | null,
  rows: number,
  credits: number,
  source: string | null,
  omitted?: { readonly reason: NonNullable<CoverageItem["reason"]>; readonly detail: string }
): CoverageItem => {
  const item: { -readonly [K in keyof CoverageItem]: CoverageItem[K] } =
    "subject" in u.label
      ? { subject: u.label.subject, status, measuredAt, rows, credits, source }
      : { query: u.label.query, status, measuredAt, rows, credits, source }
  if (omitted) {
    item.reason = omitted.reason
    item.detail = omitted.detail
  }
  return item
}
/** An exact price as a number, to four decimals (D17). */
export const exactNumber = (e: Pricing.Exact) => Math.round((e.n / e.d) * 10000) / 10000

/** A unit delivered by its upstream. */
export type Delivered = Extract<Fetched, { readonly outcome: unknown }>

/** How an answer shows its units: measured rows, or one contact row per person. */
interface Shaping {
  /** A unit served from what is held: its rows and its coverage item. */
  readonly stored: (p: Plan, u: Unit) => { readonly rows: ReadonlyArray<Row>; readonly item: CoverageItem }
  /** The rows an omitted unit still shows. */
  readonly omitted: (u: Unit) => ReadonlyArray<Row>
  /** A delivered unit's rows, and how many its coverage item counts. */
  readonly fetched: (p: Plan, u: Unit, f: Delivered) => ReadonlyArray<Row>
  readonly counted: (f: Delivered) => number
}

const noRows: ReadonlyArray<Row> = []

/** Measured rows: a stored unit's frozen view, a delivered unit's rows as asked. */
const measured: Shaping = {
  stored: (p, u) => {
    const s = u.stored!
    const view = storedView(p, u, s)
    return { rows: view.rows, item: cover(u, "stored", view.at, view.rows.length, 0, s.source) }
  },
  omitted: () => noRows,
  fetched: (p, u, f) => shapeRows(p, u, f.outcome.rows, f.at, f.outcome.source),
  counted: (f) => f.outcome.rows.length
}

/** Contact rows (D10): one per person, its parts owned, revealed now or nothing on file; parts held show even when the rest failed. */
const contacts: Shaping = {
  stored: (_, u) => ({
    rows: [contactRow(u, undefined, undefined, undefined)],
    item: cover(
      u,
      "stored",
      iso(new Date(Math.max(...u.held.map((r) => r.at.getTime())))),
      1,
      0,
      u.held[0]?.source ?? null
    )
  }),
  omitted: (u) => (u.held.length > 0 ? [contactRow(u, undefined, undefined, undefined)] : noRows),
  fetched: (_, u, f) => [contactRow(u, f.outcome.rows[0], f.at, f.outcome.source)],
  counted: () => 1
}

/** How an op's answer shows its units, chosen by its price rule: contacts for ops priced per part. */
export const shapingOf = (op: Catalogue.OpDef): Shaping => (op.price._tag === "PerPart" ? contacts : measured)

/**
 * The answer of a call (D4), its units in plan order: each served from what is held (its `stored` measurement, or
 * contact parts held), omitted with its reason (from `omittedSource` when the failure names none), or delivered and
 * priced by `priceOf`.
 */
export const assemble = (
  p: Plan,
  units: ReadonlyArray<Unit>,
  fetchedOf: (u: Unit) => Fetched | undefined,
  priceOf: (f: Delivered) => Pricing.Exact,
  omittedSource: string
): { readonly data: ReadonlyArray<Row>; readonly coverage: ReadonlyArray<CoverageItem> } => {
  const shaping = shapingOf(p.op)
  const coverage: Array<CoverageItem> = []
  const data: Array<Row> = []
  for (const u of units) {
    const f = fetchedOf(u)
    if (f === undefined) {
      const served = shaping.stored(p, u)
      for (const row of served.rows) data.push(row)
      coverage.push(served.item)
    } else if ("omitted" in f) {
      for (const row of shaping.omitted(u)) data.push(row)
      coverage.push(
        cover(u, "omitted", null, 0, 0, f.source ?? omittedSource, { reason: f.omitted, detail: f.detail ?? "" })
      )
    } else {
      for (const row of shaping.fetched(p, u, f)) data.push(row)
      coverage.push(cover(u, "fetched", iso(f.at), shaping.counted(f), exactNumber(priceOf(f)), f.outcome.source))
    }
  }
  return { data, coverage }
}
