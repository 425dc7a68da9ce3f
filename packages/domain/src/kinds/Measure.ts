/**
 * Measure (D1, D2, D9): rows measured upstream and kept as stored data. A unit is fetched when nothing fresh is
 * stored; identical concurrent fetches share one upstream call; a delivery keeps the rows (or result pages) asked,
 * is priced by what it delivered, and is recorded as a measurement with its history points.
 */
import { Effect, Either } from "effect"
import { rowsAnswered } from "../Completeness.js"
import { type CoverageItem, cover, shapeRows, storedView } from "../Coverage.js"
import * as History from "../History.js"
import type { Plan } from "../Plan.js"
import * as Pricing from "../Pricing.js"
import type { Measurement, Row } from "../ports/Measurements.js"
import * as Subjects from "../Subjects.js"
import type { Delivered, Fetches, Records, Shaping } from "./Steps.js"

/** The variant: measured rows kept as stored data (D2, D9); `paging` says whether rows asked are rows or result pages (D1). */
export interface Kind {
  readonly _tag: "Measure"
  readonly paging: "rows" | "pages"
}

const noRows: ReadonlyArray<Row> = []
const noParts: ReadonlyArray<never> = []

/**
 * The coverage item of a stored view, made once and frozen (issue 22): it depends only on what the view was made for
 * (the unit's subject or query and rows asked, the measurement), so every call served from the view shows the same
 * item, and its JSON is written once (Answers.text).
 */
const storedItems = new WeakMap<object, CoverageItem>()

/** Measured rows: a stored unit's frozen view of the rows it keeps, a delivered unit's rows (kept by its fetch). */
const measured = (kept: (rows: ReadonlyArray<Row>, asked: number) => ReadonlyArray<Row>): Shaping => ({
  stored: (p, u) => {
    const s = u.stored!
    const view = storedView(p, u, s, kept)
    let item = storedItems.get(view)
    if (item === undefined) {
      // a stored measurement is served only when it covers the rows asked or is all there is (Completeness.ts)
      item = Object.freeze({ ...cover(u, "stored", view.at, view.rows.length, 0, s.source), complete: true })
      storedItems.set(view, item)
    }
    return { rows: view.rows, item }
  },
  omitted: () => noRows,
  fetched: (p, u, f) => shapeRows(p, u, f.outcome.rows, f.at, f.outcome.source),
  counted: (f) => f.outcome.rows.length
})

/** The measurement a delivered unit records. */
export const measurementOf = (p: Plan, f: Delivered): Measurement => ({
  platform: p.op.platform,
  op: p.op.name,
  entity: f.unit.entity,
  freshnessKey: f.unit.freshnessKey,
  measuredAt: f.at,
  rows: f.outcome.rows,
  rowsAsked: rowsAnswered(p.op, f.outcome.rows, f.unit.asked, f.outcome.exhaustive),
  exhaustive: f.outcome.exhaustive,
  found: true,
  source: f.outcome.source
})

/** The measurement of a delivered unit, and the history points it carries for its platform's entities (D9). */
const recordMeasured = (p: Plan, f: Delivered, into: Records) => {
  into.measurements.push(measurementOf(p, f))
  const historyOp = History.opFor(p.op.platform)
  if (historyOp?.subjectSpec === undefined) return
  for (const point of f.outcome.points) {
    const entity = Subjects.normalize(historyOp.subjectSpec, point.subject)
    if (Either.isLeft(entity)) continue
    into.points.push({
      platform: p.op.platform,
      entity: entity.right,
      store: p.store ?? "",
      stay: p.op.facets.pricedStay(p.request),
      measuredAt: f.at,
      metrics: point.metrics,
      source: f.outcome.source
    })
  }
}

/** The steps of measuring, for rows or result pages asked (a page holds about ten results; D1 bills per page). */
export const measuring = (paging: Kind["paging"]): Fetches => {
  const kept =
    paging === "pages"
      ? (rows: ReadonlyArray<Row>, asked: number) => rows.filter((r) => Number(r["page"]) <= asked)
      : (rows: ReadonlyArray<Row>, asked: number) => rows.slice(0, asked)
  const quantity =
    paging === "pages"
      ? (rows: ReadonlyArray<Row>) => new Set(rows.map((r) => r["page"])).size
      : (rows: ReadonlyArray<Row>) => rows.length
  return {
    _tag: "Fetches",
    prepare: () => Effect.succeed(undefined),
    held: () => Effect.succeed([]),
    buy: () => noParts,
    fetches: (u) => u.stored === undefined,
    fetchParts: () => undefined,
    shares: true,
    kept,
    quantity,
    delivered: (p, f) =>
      Pricing.unitPrice(p.op.price, {
        rows: quantity(f.outcome.rows),
        completed: true,
        parts: noParts,
        ...(p.sourcePrice ? { sourcePrice: p.sourcePrice } : {})
      }),
    record: (_caller, p, f, into) => recordMeasured(p, f, into),
    capture: (charge) => charge,
    shaping: measured(kept)
  }
}

/** Measuring rows. */
export const rows = measuring("rows")

/** Measuring result pages. */
export const pages = measuring("pages")

/** The steps of a measure, by its paging. */
export const steps = (kind: Kind): Fetches => (kind.paging === "pages" ? pages : rows)
