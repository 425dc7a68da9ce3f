/**
 * The settle of a call (D8 steps 3-4, D9, D10, D16): the exact price of what was delivered, the records its
 * transaction writes, and the answer an idempotent call keeps with it.
 */

import { type Context, DateTime, Duration, Effect, Either, Exit } from "effect"
import { InsufficientCredits } from "./CallErrors.js"
import { CallSettings } from "./CallSettings.js"
import type * as Catalogue from "./Catalogue.js"
import type { CoverageItem } from "./Coverage.js"
import * as History from "./History.js"
import * as Ids from "./Ids.js"
import type { Caller } from "./Keys.js"
import type { Fetched, Plan } from "./Plan.js"
import * as Pricing from "./Pricing.js"
import type { Crypto } from "./ports/Crypto.js"
import type { Ledger } from "./ports/Ledger.js"
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

/**
 * The hold lifecycle of a call (D8 step 2, issue 14) over the Ledger: `holding` places the hold for the quote, runs
 * what follows it, and releases the hold on any end but a success.
 */
export const holdsOf = (ledger: Context.Tag.Service<Ledger>, crypto: Context.Tag.Service<Crypto>) => {
  /** D8 step 2: the hold for the quote, or null for a call that costs nothing. */
  const placeHold = Effect.fnUntraced(function* (caller: Caller, p: Plan) {
    let holdId: string | null = null
    if (p.quote > 0) {
      const settings = yield* CallSettings
      const now = DateTime.toDate(yield* DateTime.now)
      const hold = yield* ledger
        .placeHold({
          id: yield* Ids.make(crypto, "hold"),
          accountId: caller.accountId,
          keyId: caller.keyId,
          amount: p.quote,
          expiresAt: new Date(now.getTime() + Duration.toMillis(settings.holdTtl))
        })
        .pipe(
          Effect.catchTag(
            "HoldRefused",
            (e) => new InsufficientCredits({ required: e.required, available: e.available })
          )
        )
      holdId = hold.id
    }
    return holdId
  })

  // ---- issue 14: an error never leaves a hold behind (D8) ----
  /**
   * The hold, then what follows it: any end of `use` but a success (a failure, a defect, an interruption: the store
   * refusing the settle, an adapter defect) releases the hold, exactly once, before the answer is written. Placing
   * the hold is uninterruptible, so no exit between the hold and `use` escapes this. The expiry sweep is left only
   * for a process that died.
   */
  const holding = <A, E, R>(
    caller: Caller,
    p: Plan,
    use: (holdId: string | null) => Effect.Effect<A, E, R>
  ): Effect.Effect<A, E | InsufficientCredits, R> =>
    Effect.acquireUseRelease(placeHold(caller, p), use, (holdId, exit) =>
      holdId === null || Exit.isSuccess(exit)
        ? Effect.void
        : ledger
            .release(holdId)
            .pipe(
              Effect.catchAllCause((cause) =>
                Effect.logError("the hold of a failed call was not released; the expiry sweep will", cause)
              )
            )
    )
  // ---- end issue 14 ----

  return { placeHold, holding } as const
}
