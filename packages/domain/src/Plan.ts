/**
 * The plan of a call (D8 step 1): its units (subject or query, freshness key, what is stored, contact parts held and
 * to buy, exact price) and its quote; what a unit becomes once fetched.
 */
import { type Context, Duration, Effect, Option } from "effect"
import { EveryUnitFailed } from "./CallErrors.js"
import { CallSettings } from "./CallSettings.js"
import type * as Catalogue from "./Catalogue.js"
import type { CoverageItem } from "./Coverage.js"
import type { FreshnessControl } from "./Envelope.js"
import * as Fields from "./Fields.js"
import * as Freshness from "./Freshness.js"
import type { Caller } from "./Keys.js"
import * as OpKind from "./OpKind.js"
import * as Pricing from "./Pricing.js"
import type { Measurement, Measurements, Reveal } from "./ports/Measurements.js"
import type { UnitOutcome, Upstream } from "./ports/Upstream.js"
import * as Requests from "./Requests.js"

/** A contact part an org buys. */
export type Part = OpKind.Part

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
  readonly sourcePrice: OpKind.SourcePrice
}

/** A unit once fetched: delivered, or omitted with its reason. */
export type Fetched =
  | { readonly unit: Unit; readonly outcome: Extract<UnitOutcome, { _tag: "Delivered" }>; readonly at: Date }
  | {
      readonly unit: Unit
      readonly omitted: NonNullable<CoverageItem["reason"]>
      readonly detail: string
      readonly source: string
      /** Upstream failed with the host's circuit open: in how many ms it is tried again. */
      readonly retryInMs?: number
    }

/** Whether a unit is fetched, as its op's kind says (nothing fresh stored; contact parts still to buy). */
export const needsFetch = (p: Plan, u: Unit) => OpKind.fetching(p.op).fetches(u)

/** How each store locator form is named to a caller. */
const formWords: { readonly [F in Fields.StoreForm]: string } = {
  storeId: "storeId",
  pincode: "pincode with city",
  latLon: "lat with lon"
}

/**
 * A locator no store answers (D3): 400 naming `request.store`, and when the op's upstream here takes other locator
 * forms than the one given, which (the catalogue's `servedBy.store` says the same), before anything is spent.
 */
const invalidStore = (
  op: Catalogue.OpDef,
  locator: Readonly<Record<string, unknown>>,
  servedBy: Context.Tag.Service<Upstream>["servedBy"]
) => {
  const served = servedBy?.(op.platform, op.name)
  const form = Fields.storeFormOf(locator)
  const taken = served?.store ?? Fields.storeFormNames
  const refused = form !== undefined && !taken.includes(form)
  const by = served === undefined ? "" : ` (${served.adapter}${served.actor ? ` ${served.actor}` : ""})`
  return new Requests.InvalidRequest({
    message: refused
      ? `${op.platform} ${op.name} does not take a store as ${formWords[form]} here`
      : "no store serves this locator",
    details: [
      new Requests.FieldProblem({
        path: "request.store",
        message: refused
          ? `${op.platform} ${op.name} is served here by an upstream${by} that takes a store as ${taken.map((f) => formWords[f]).join(" or ")}, not ${formWords[form]}`
          : "resolves to no store of this app"
      })
    ]
  })
}

/**
 * An optional request field the upstream serving the op here cannot do without, absent (issue 20: e.g. an actor that
 * searches its own default city when no location is given would sell that city's results as the request's): 400
 * naming the field, before anything is spent (`estimateOnly` too).
 */
const missingRequired = (
  op: Catalogue.OpDef,
  request: Catalogue.OpRequest,
  servedBy: Context.Tag.Service<Upstream>["servedBy"]
) => {
  const served = servedBy?.(op.platform, op.name)
  if (served?.requires === undefined) return undefined
  const fields: Readonly<Record<string, unknown>> = request
  const missing = Object.entries(served.requires).filter(([field]) => fields[field] === undefined)
  if (missing.length === 0) return undefined
  const by = `${served.adapter}${served.actor ? ` ${served.actor}` : ""}`
  return new Requests.InvalidRequest({
    message: `${op.platform} ${op.name} needs ${missing.map(([f]) => f).join(" and ")} here`,
    details: missing.map(
      ([field, why]) =>
        new Requests.FieldProblem({
          path: `request.${field}`,
          message: `required here: ${op.platform} ${op.name} is served by an upstream (${by}) that cannot do without it: ${why}`
        })
    )
  })
}

/**
 * An optional request field the upstream serving the op here cannot serve, given (issue 20: e.g. an actor that cannot
 * search by sound would answer a sound search with nothing, or with a keyword search's posts): 400 naming the field,
 * before anything is spent (`estimateOnly` too).
 */
const givenRefused = (
  op: Catalogue.OpDef,
  request: Catalogue.OpRequest,
  servedBy: Context.Tag.Service<Upstream>["servedBy"]
) => {
  const served = servedBy?.(op.platform, op.name)
  if (served?.refuses === undefined) return undefined
  const fields: Readonly<Record<string, unknown>> = request
  const given = Object.entries(served.refuses).filter(([field]) => fields[field] !== undefined)
  if (given.length === 0) return undefined
  const by = `${served.adapter}${served.actor ? ` ${served.actor}` : ""}`
  return new Requests.InvalidRequest({
    message: `${op.platform} ${op.name} cannot be served with ${given.map(([f]) => f).join(" or ")} here`,
    details: given.map(
      ([field, why]) =>
        new Requests.FieldProblem({
          path: `request.${field}`,
          message: `not served here: ${op.platform} ${op.name} is served by an upstream (${by}) that cannot serve it: ${why}`
        })
    )
  })
}

const noStore = Effect.succeed<string | undefined>(undefined)

/** The planning of calls over the Measurements and Upstream ports: the store a request names, and the plan (D8 step 1). */
export const plannerOf = (measurements: Context.Tag.Service<Measurements>, upstream: Context.Tag.Service<Upstream>) => {
  // (issue 22: most ops name no store: known without a generator's steps)
  const resolveStore = (
    op: Catalogue.OpDef,
    request: Catalogue.OpRequest
  ): Effect.Effect<string | undefined, EveryUnitFailed | Requests.InvalidRequest> => {
    const locator = op.facets.store(request)
    if (locator === undefined) return noStore
    return Effect.flatMap(
      upstream
        .resolveStore(op.platform, op.name, locator)
        .pipe(Effect.mapError(() => new EveryUnitFailed({ coverage: [] }))),
      (resolved) =>
        Option.isNone(resolved)
          ? Effect.fail(invalidStore(op, locator, upstream.servedBy))
          : Effect.succeed<string | undefined>(resolved.value)
    )
  }

  /**
   * D8 step 1: the plan and its quote, the same for `estimateOnly` and the real call. (issue 22: a chain rather than
   * a generator, the clock read in its first step: every op call passes here.)
   */
  const plan = (
    caller: Caller,
    op: Catalogue.OpDef,
    request: Catalogue.OpRequest,
    control?: FreshnessControl
  ): Effect.Effect<Plan, Requests.InvalidRequest | EveryUnitFailed> =>
    Effect.clockWith((clock) => {
      const now = new Date(clock.unsafeCurrentTimeMillis())
      const missing = missingRequired(op, request, upstream.servedBy)
      if (missing !== undefined) return Effect.fail(missing)
      const refused = givenRefused(op, request, upstream.servedBy)
      if (refused !== undefined) return Effect.fail(refused)
      const steps = OpKind.fetching(op)
      return Effect.flatMap(resolveStore(op, request), (store) =>
        Effect.flatMap(steps.prepare(upstream, op, request), (sourcePrice) => {
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
          // issue 21: `forceFresh` reads nothing stored; `maxAgeSeconds` only shortens the window
          const storedRead =
            op.freshSeconds === null || control?.forceFresh === true
              ? Effect.succeed(new Map<string, Measurement>())
              : Effect.flatMap(CallSettings, (settings) =>
                  measurements.fresh({
                    keys: keyed.map((k) => k.freshnessKey),
                    // issue 21: `maxAgeSeconds` only shortens the window
                    since: Freshness.since(
                      now,
                      op.freshSeconds!,
                      Math.min(
                        Duration.toMillis(settings.freshAtMost),
                        control?.maxAgeSeconds === undefined ? Number.POSITIVE_INFINITY : control.maxAgeSeconds * 1000
                      )
                    ),
                    minRows: asked
                  })
                )
          return Effect.flatMap(storedRead, (stored) =>
            Effect.map(
              steps.held(
                measurements,
                caller,
                keyed.map((k) => k.entity)
              ),
              (reveals): Plan => {
                const units = keyed.map((k): Unit => {
                  const hit = stored.get(k.freshnessKey)
                  const held = reveals.filter((r) => r.person === k.entity)
                  const buy = steps.buy(op, request, held)
                  const price = steps.fetches({ stored: hit, buy })
                    ? Pricing.unitPrice(op.price, {
                        rows: asked,
                        completed: true,
                        parts: buy,
                        ...(sourcePrice ? { sourcePrice } : {})
                      })
                    : Pricing.zero
                  // explicit literals, not spreads, on the per-request path (a spread followed by more keys is slow in V8)
                  return {
                    label: k.label,
                    entity: k.entity,
                    freshnessKey: k.freshnessKey,
                    asked,
                    stored: hit,
                    buy,
                    held,
                    price
                  }
                })
                return {
                  op,
                  request,
                  units,
                  quote: Pricing.roundUp(Pricing.sum(units.map((u) => u.price))),
                  store,
                  sourcePrice
                } satisfies Plan
              }
            )
          )
        })
      )
    })

  return { resolveStore, plan } as const
}
