/**
 * The settle of a call (D8 steps 3-4, D9, D10, D16): the exact price of what was delivered, the records its
 * transaction writes, and the answer an idempotent call keeps with it.
 */

import { Either } from "effect"
import type * as Catalogue from "./Catalogue.js"
import type { CoverageItem } from "./Coverage.js"
import * as History from "./History.js"
import type { Caller } from "./Keys.js"
import type { Fetched, Plan } from "./Plan.js"
import * as Pricing from "./Pricing.js"
import type { HistoryPoint, Measurement, Reveal, Row } from "./ports/Measurements.js"
import * as Subjects from "./Subjects.js"

/** What an idempotent call keeps with its settle: the key, and the members the HTTP layer adds after `coverage`. */
export interface Keep {
  readonly key: string
  readonly envelope: Readonly<Record<string, unknown>>
}

/** The kept answer of a paid call around its cost: `{"data":...,"cost":` and `,"coverage":...,<envelope>}`. */
export const keptAnswer = (keep: Keep, data: ReadonlyArray<Row>, coverage: ReadonlyArray<CoverageItem>) => {
  const envelope = JSON.stringify(keep.envelope)
  return {
    key: keep.key,
    status: 200,
    before: `{"data":${JSON.stringify(data)},"cost":`,
    after: `,"coverage":${JSON.stringify(coverage)}${envelope === "{}" ? "}" : `,${envelope.slice(1)}`}`
  }
}

/** Billable quantity a delivery carries: pages for per-page ops, rows otherwise. */
export const deliveredQuantity = (op: Catalogue.OpDef, rows: ReadonlyArray<Row>): number =>
  op.price._tag === "PerPage" ? new Set(rows.map((r) => r["page"])).size : rows.length

/** The exact price of what a fetch delivered. */
export const deliveredPrice = (p: Plan, f: Fetched): Pricing.Exact => {
  if ("omitted" in f) return Pricing.zero
  const row = f.outcome.rows[0]
  const revealed = p.op.price._tag === "PerPart" ? f.unit.buy.filter((part) => typeof row?.[part] === "string") : []
  return Pricing.unitPrice(p.op.price, {
    rows: deliveredQuantity(p.op, f.outcome.rows),
    completed: true,
    parts: revealed,
    ...(p.sourcePrice ? { sourcePrice: p.sourcePrice } : {})
  })
}

/** Records the settle transaction writes for delivered units (D8, D9, D10). */
export const records = (caller: Caller, p: Plan, fetched: ReadonlyArray<Fetched>) => {
  const ms: Array<Measurement> = []
  const points: Array<HistoryPoint> = []
  const reveals: Array<Reveal> = []
  const historyOp = History.opFor(p.op.platform)
  for (const f of fetched) {
    if ("omitted" in f) continue
    const o = f.outcome
    if (p.op.price._tag === "PerPart") {
      const row = o.rows[0]
      for (const part of f.unit.buy) {
        const value = row?.[part]
        reveals.push({
          accountId: caller.accountId,
          person: f.unit.entity,
          part,
          status: typeof value === "string" ? "revealed" : "nothing_on_file",
          value: typeof value === "string" ? value : null,
          at: f.at,
          source: o.source,
          credits:
            typeof value === "string"
              ? Pricing.roundUp(Pricing.unitPrice(p.op.price, { rows: 1, completed: true, parts: [part] }))
              : 0
        })
      }
      continue
    }
    if (!p.op.stored) continue
    ms.push({
      platform: p.op.platform,
      op: p.op.name,
      entity: f.unit.entity,
      freshnessKey: f.unit.freshnessKey,
      measuredAt: f.at,
      rows: o.rows,
      rowsAsked: f.unit.asked,
      exhaustive: o.exhaustive,
      found: true,
      source: o.source
    })
    if (historyOp?.subjectSpec) {
      for (const point of o.points) {
        const entity = Subjects.normalize(historyOp.subjectSpec, point.subject)
        if (Either.isLeft(entity)) continue
        points.push({
          platform: p.op.platform,
          entity: entity.right,
          store: p.store ?? "",
          stay: p.op.facets.pricedStay(p.request),
          measuredAt: f.at,
          metrics: point.metrics,
          source: o.source
        })
      }
    }
  }
  return { measurements: ms, points, reveals }
}
