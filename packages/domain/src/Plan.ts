/**
 * The plan of a call (D8 step 1): its units (subject or query, freshness key, what is stored, contact parts held and
 * to buy, exact price) and its quote; what a unit becomes once fetched.
 */
import { type Context, DateTime, Duration, Effect, Option } from "effect"
import { EveryUnitFailed } from "./CallErrors.js"
import { CallSettings } from "./CallSettings.js"
import type * as Catalogue from "./Catalogue.js"
import type { CoverageItem } from "./Coverage.js"
import * as Freshness from "./Freshness.js"
import type { Caller } from "./Keys.js"
import * as Pricing from "./Pricing.js"
import type { Measurement, Measurements, Reveal } from "./ports/Measurements.js"
import type { UnitOutcome, Upstream } from "./ports/Upstream.js"
import * as Requests from "./Requests.js"

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

const invalidStore = () =>
  new Requests.InvalidRequest({
    message: "no store serves this locator",
    details: [new Requests.FieldProblem({ path: "request.store", message: "resolves to no store of this app" })]
  })

/** The planning of calls over the Measurements and Upstream ports: the store a request names, and the plan (D8 step 1). */
export const plannerOf = (measurements: Context.Tag.Service<Measurements>, upstream: Context.Tag.Service<Upstream>) => {
  const resolveStore = (op: Catalogue.OpDef, request: Catalogue.OpRequest) =>
    Effect.gen(function* () {
      const locator = op.facets.store(request)
      if (locator === undefined) return undefined
      const resolved = yield* upstream
        .resolveStore(op.platform, locator)
        .pipe(Effect.mapError(() => new EveryUnitFailed({ coverage: [] })))
      if (Option.isNone(resolved)) return yield* invalidStore()
      return resolved.value
    })

  /** D8 step 1: the plan and its quote, the same for `estimateOnly` and the real call. */
  const plan = Effect.fnUntraced(function* (caller: Caller, op: Catalogue.OpDef, request: Catalogue.OpRequest) {
    const now = DateTime.toDate(yield* DateTime.now)
    const store = yield* resolveStore(op, request)
    let sourcePrice: Plan["sourcePrice"]
    if (op.price._tag === "PerSourceRow") {
      const source = yield* upstream
        .exploreSource(op.facets.source(request) ?? "")
        .pipe(Effect.mapError(() => new EveryUnitFailed({ coverage: [] })))
      if (Option.isNone(source)) {
        const served = yield* upstream.exploreSources().pipe(Effect.orElseSucceed(() => []))
        return yield* new Requests.InvalidRequest({
          message: "unknown explore source",
          details: [
            new Requests.FieldProblem({
              path: "request.source",
              message: `names no source served now; the sources are ${served.map((s) => s.name).join(", ")}`
            })
          ]
        })
      }
      sourcePrice = source.value.price
    }
    const fields = Freshness.answerFields(request, store)
    const asked = op.facets.asked(request)
    const labels: ReadonlyArray<Unit["label"]> =
      op.units === "query"
        ? [{ query: op.facets.label(request) }]
        : op.facets.subjects(request).map((subject) => ({ subject }))
    const keyed = labels.map((label) => {
      const entity = "subject" in label ? label.subject : `query:${fields}`
      return { label, entity, freshnessKey: Freshness.key(op, entity, fields) }
    })
    const stored =
      op.freshSeconds === null
        ? new Map<string, Measurement>()
        : yield* measurements.fresh({
            keys: keyed.map((k) => k.freshnessKey),
            since: new Date(
              now.getTime() - Math.min(op.freshSeconds * 1000, Duration.toMillis((yield* CallSettings).freshAtMost))
            ),
            minRows: asked
          })
    const reveals =
      op.price._tag === "PerPart"
        ? yield* measurements.reveals({ accountId: caller.accountId, persons: keyed.map((k) => k.entity) })
        : []
    const units = keyed.map((k): Unit => {
      const hit = stored.get(k.freshnessKey)
      const held = reveals.filter((r) => r.person === k.entity)
      const buy =
        op.price._tag === "PerPart" ? op.facets.parts(request).filter((p) => !held.some((r) => r.part === p)) : []
      const fetch = op.price._tag === "PerPart" ? buy.length > 0 : hit === undefined
      const price = fetch
        ? Pricing.unitPrice(op.price, {
            rows: asked,
            completed: true,
            parts: buy,
            ...(sourcePrice ? { sourcePrice } : {})
          })
        : Pricing.zero
      // explicit literals, not spreads, on the per-request path (a spread followed by more keys is slow in V8)
      return { label: k.label, entity: k.entity, freshnessKey: k.freshnessKey, asked, stored: hit, buy, held, price }
    })
    return {
      op,
      request,
      units,
      quote: Pricing.roundUp(Pricing.sum(units.map((u) => u.price))),
      store,
      sourcePrice
    } satisfies Plan
  })

  return { resolveStore, plan } as const
}
