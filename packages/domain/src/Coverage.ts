/**
 * What a call answers per unit (D4): its coverage item, its rows shaped for the answer (the subject or query, when
 * measured, the source), stored results' frozen views, and the contact rows of revealed parts (D10); and the answer
 * of a whole call assembled from its units as its op's kind shows them.
 */
import { complete } from "./Completeness.js"
import { iso } from "./Instants.js"
import type { Delivered, Shaping } from "./kinds/Steps.js"
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
  readonly reason?:
    | "not_found"
    | "upstream_failed"
    | "upstream_timeout"
    | "nothing_on_file"
    | "invalid_subject"
    | "cancelled"
  readonly detail?: string
  /**
   * Measured units (fetched or stored): whether the rows are every row asked for or all there is (issue 20); false
   * when the unit was cut short (a limit, a budget, a charge limit, an unexpanded stub), billed for what it holds.
   */
  readonly complete?: boolean
  /** Rows the upstream announced but that could not be fetched within the unit's budget. */
  readonly missing?: number
  /**
   * An omitted unit whose upstream host refuses calls for now (its circuit open, shared by every instance): the
   * seconds until the host is tried again; asked sooner, the unit is refused the same way (nothing billed).
   */
  readonly retryAfterSeconds?: number
}

/** A unit's rows, as its kind keeps them for the rows asked, as the answer shows them. */
export const shapeRows = (p: Plan, u: Unit, rows: ReadonlyArray<Row>, at: Date, source: string): ReadonlyArray<Row> => {
  const measuredAt = iso(at)
  return rows.map((row) => ({
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
export const storedView = (
  p: Plan,
  u: Unit,
  s: Measurement,
  kept: (rows: ReadonlyArray<Row>, asked: number) => ReadonlyArray<Row>
) => {
  const key = `${"subject" in u.label ? u.label.subject : u.label.query}\u0000${u.asked}`
  let views = shapedStored.get(s)
  const known = views?.get(key)
  if (known !== undefined) return known
  const view = {
    rows: Object.freeze(shapeRows(p, u, kept(s.rows, u.asked), s.measuredAt, s.source).map(Object.freeze)),
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

/** A wait in ms as whole seconds, at least 1 (as a `Retry-After` header gives it). */
export const retryAfterSeconds = (ms: number) => Math.max(1, Math.ceil(ms / 1000))

/** A coverage item of a unit (D4): `subject` or `query`, then the rest. */
export const cover = (
  u: Unit,
  status: CoverageItem["status"],
  measuredAt: string | null,
  rows: number,
  credits: number,
  source: string | null,
  omitted?: {
    readonly reason: NonNullable<CoverageItem["reason"]>
    readonly detail: string
    readonly retryInMs?: number | undefined
  }
): CoverageItem => {
  const item: { -readonly [K in keyof CoverageItem]: CoverageItem[K] } =
    "subject" in u.label
      ? { subject: u.label.subject, status, measuredAt, rows, credits, source }
      : { query: u.label.query, status, measuredAt, rows, credits, source }
  if (omitted) {
    item.reason = omitted.reason
    item.detail = omitted.detail
    if (omitted.retryInMs !== undefined) item.retryAfterSeconds = retryAfterSeconds(omitted.retryInMs)
  }
  return item
}
/** A unit's coverage item in an estimate (D18): to fetch, with its rows asked, or served from what is held. */
export const estimated = (u: Unit, fetches: boolean): CoverageItem =>
  cover(
    u,
    fetches ? "fetch" : "stored",
    u.stored ? iso(u.stored.measuredAt) : null,
    fetches ? u.asked : (u.stored?.rows.length ?? u.held.length),
    exactNumber(u.price),
    u.stored?.source ?? null
  )

/** An exact price as a number, to four decimals (D17). */
export const exactNumber = (e: Pricing.Exact) => Math.round((e.n / e.d) * 10000) / 10000

/**
 * The answer of a call (D4), its units in plan order and shown as `shaping` (its op's kind) says: each served from what is held (its `stored` measurement, or
 * contact parts held), omitted with its reason (from `omittedSource` when the failure names none), or delivered and
 * priced by `priceOf`.
 */
export const assemble = (
  p: Plan,
  shaping: Shaping,
  units: ReadonlyArray<Unit>,
  fetchedOf: (u: Unit) => Fetched | undefined,
  priceOf: (f: Delivered) => Pricing.Exact,
  omittedSource: string
): { readonly data: ReadonlyArray<Row>; readonly coverage: ReadonlyArray<CoverageItem> } => {
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
        cover(u, "omitted", null, 0, 0, f.source ?? omittedSource, {
          reason: f.omitted,
          detail: f.detail ?? "",
          retryInMs: f.retryInMs
        })
      )
    } else {
      for (const row of shaping.fetched(p, u, f)) data.push(row)
      const item = cover(u, "fetched", iso(f.at), shaping.counted(f), exactNumber(priceOf(f)), f.outcome.source)
      coverage.push(
        p.op.kind._tag === "Measure"
          ? {
              ...item,
              complete: complete(p.op, f.outcome.rows, u.asked, f.outcome.exhaustive),
              ...(f.outcome.missing ? { missing: f.outcome.missing } : {})
            }
          : item
      )
    }
  }
  return { data, coverage }
}
