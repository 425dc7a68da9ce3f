/**
 * Op calls end to end (D1, D2, D4, D8-D11): decode, plan (normalize subjects, look up the store, price every unit),
 * quote, hold, fetch concurrently with a timeout per unit, settle (capture what was delivered, never above the
 * quote, with the data in the same transaction), and answer with what was measured, when, and what was left out.
 * The service composes `Plan` (units and what is fetched), `Settle` (delivered price, records, kept answer) and
 * `Coverage` (coverage items, answer rows, stored views, contact rows).
 */
import { DateTime, Deferred, Duration, Effect, Either, Exit, FiberId, Option } from "effect"
import { EveryUnitFailed, InsufficientCredits, OpUnavailable, QuoteAboveMaxCredits } from "./CallErrors.js"
import { CallSettings } from "./CallSettings.js"
import { type CoverageItem, contactRow, cover, exactNumber, kept, shapeRows, storedView } from "./Coverage.js"
import * as History from "./History.js"
import { iso } from "./Instants.js"
import type { Caller } from "./Keys.js"
import { type Fetched, needsFetch, type Plan, plannerOf, type Unit } from "./Plan.js"
import * as Pricing from "./Pricing.js"
import { Crypto } from "./ports/Crypto.js"
import * as Demand from "./ports/Demand.js"
import { Ledger } from "./ports/Ledger.js"
import { type Measurement, Measurements, type Row } from "./ports/Measurements.js"
import { type UnitOutcome, Upstream, type UpstreamFailed } from "./ports/Upstream.js"
import * as Requests from "./Requests.js"
import { deliveredPrice, holdsOf, type Keep, keptAnswer, records } from "./Settle.js"

export { EveryUnitFailed, InsufficientCredits, OpUnavailable, QuoteAboveMaxCredits } from "./CallErrors.js"
export { CallSettings } from "./CallSettings.js"

export type { CoverageItem } from "./Coverage.js"
export type { Plan } from "./Plan.js"
export type { Keep } from "./Settle.js"

/** The domain's answer to a call; the HTTP layer adds `requestId` and the versions. */
export interface Answer {
  readonly data: ReadonlyArray<Row>
  readonly cost: { readonly creditsCharged: number; readonly creditsRemaining: number }
  readonly coverage: ReadonlyArray<CoverageItem>
  readonly estimate?: { readonly credits: number; readonly fitsMaxCredits?: boolean }
  /** The answer's JSON text as kept for an idempotency key by the settle (D16); sent as it is. */
  readonly kept?: string
}

/** An estimate, with `fitsMaxCredits` when the call carries a cap (D18). */
const withCap = (estimate: { readonly credits: number }, maxCredits: number | undefined) =>
  maxCredits === undefined ? estimate : { credits: estimate.credits, fitsMaxCredits: estimate.credits <= maxCredits }

/** Op calls as a service over the Ledger, Measurements and Upstream ports. */
export class Calls extends Effect.Service<Calls>()("@pdr/domain/Calls", {
  effect: Effect.gen(function* () {
    const ledger = yield* Ledger
    const measurements = yield* Measurements
    const upstream = yield* Upstream
    const crypto = yield* Crypto
    const demand = yield* Demand.Demand

    const readSpendable = (accountId: string) =>
      Effect.map(ledger.findAccount(accountId), Option.match({ onNone: () => 0, onSome: (a) => a.spendable }))

    /** Spendable credits for an answer that spent nothing: the figure read with the key, else a read. */
    const unspent = (caller: Caller) =>
      caller.spendable === undefined ? readSpendable(caller.accountId) : Effect.succeed(caller.spendable)

    const planner = plannerOf(measurements, upstream)
    const resolveStore = planner.resolveStore
    const plan = planner.plan

    const fetchUnit = (p: Plan, u: Unit) =>
      Effect.gen(function* () {
        const settings = yield* CallSettings
        type Failure = UpstreamFailed | { readonly _tag: "Timeout" } | { readonly _tag: "Defect" }
        const outcome: Either.Either<UnitOutcome, Failure> = yield* upstream
          .fetch({
            platform: p.op.platform,
            op: p.op.name,
            request: p.request,
            subject: "subject" in u.label ? u.label.subject : undefined,
            rows: u.asked,
            store: p.store,
            parts: p.op.price._tag === "PerPart" ? u.buy : undefined
          })
          .pipe(
            Effect.timeoutFail({
              duration: settings.unitTimeout,
              onTimeout: (): Failure => ({ _tag: "Timeout" })
            }),
            Effect.either,
            Effect.catchAllDefect((defect) =>
              Effect.logWarning("upstream defect", defect).pipe(Effect.as(Either.left<Failure>({ _tag: "Defect" })))
            )
          )
        const at = DateTime.toDate(yield* DateTime.now)
        if (Either.isLeft(outcome)) {
          const e = outcome.left
          return e._tag === "Timeout"
            ? ({
                unit: u,
                omitted: "upstream_timeout",
                detail: `no answer within ${Duration.format(settings.unitTimeout)}`,
                source: upstream.sourceFor(p.op.platform, p.op.name)
              } as const)
            : e._tag === "Defect"
              ? ({
                  unit: u,
                  omitted: "upstream_failed",
                  detail: "the upstream adapter failed",
                  source: upstream.sourceFor(p.op.platform, p.op.name)
                } as const)
              : ({ unit: u, omitted: "upstream_failed", detail: e.detail, source: e.source } as const)
        }
        const o = outcome.right
        if (o._tag === "NotFound") return { unit: u, omitted: "not_found", detail: o.detail, source: o.source } as const
        if (o._tag === "InvalidSubject")
          return { unit: u, omitted: "invalid_subject", detail: o.detail, source: o.source } as const
        return { unit: u, outcome: { ...o, rows: kept(p.op, o.rows, u.asked) }, at } as const
      })

    /** Fetches in flight, by freshness key and rows asked: identical concurrent fetches share one (D2). */
    const inflight = new Map<string, Deferred.Deferred<Fetched>>()

    const fetchShared = (p: Plan, u: Unit): Effect.Effect<{ readonly f: Fetched; readonly shared: boolean }> =>
      Effect.suspend(() => {
        const own = Effect.map(fetchUnit(p, u), (f) => ({ f, shared: false }))
        if (!p.op.stored || p.op.price._tag === "PerPart") return own
        const key = `${u.freshnessKey}#${u.asked}`
        const running = inflight.get(key)
        if (running !== undefined) {
          return Deferred.await(running).pipe(
            Effect.map((f) => ({ f: { ...f, unit: u }, shared: true })),
            Effect.catchAllCause(() => own)
          )
        }
        const deferred = Deferred.unsafeMake<Fetched>(FiberId.none)
        inflight.set(key, deferred)
        return fetchUnit(p, u).pipe(
          Effect.tap((f) => Deferred.succeed(deferred, f)),
          Effect.onExit((exit) => (Exit.isSuccess(exit) ? Effect.void : Deferred.interrupt(deferred))),
          Effect.ensuring(
            Effect.sync(() => {
              if (inflight.get(key) === deferred) inflight.delete(key)
            })
          ),
          Effect.map((f) => ({ f, shared: false }))
        )
      })

    const asMeasurement = (p: Plan, f: Extract<Fetched, { outcome: unknown }>): Measurement => ({
      platform: p.op.platform,
      op: p.op.name,
      entity: f.unit.entity,
      freshnessKey: f.unit.freshnessKey,
      measuredAt: f.at,
      rows: f.outcome.rows,
      rowsAsked: f.unit.asked,
      exhaustive: f.outcome.exhaustive,
      found: true,
      source: f.outcome.source
    })

    const estimate = (caller: Caller, p: Plan) =>
      Effect.map(
        unspent(caller),
        (available): Answer => ({
          data: [],
          cost: { creditsCharged: 0, creditsRemaining: available },
          coverage: p.units.map((u) =>
            cover(
              u,
              needsFetch(p, u) ? "fetch" : "stored",
              u.stored ? iso(u.stored.measuredAt) : null,
              needsFetch(p, u) ? (p.op.rowsField ? u.asked : 1) : (u.stored?.rows.length ?? u.held.length),
              exactNumber(u.price),
              u.stored?.source ?? null
            )
          ),
          estimate: { credits: p.quote }
        })
      )

    const holds = holdsOf(ledger, crypto)

    /** D8 steps 2-4 and the answer. */
    const execute = (caller: Caller, p: Plan, keep: Keep | undefined) =>
      holds.holding(caller, p, (holdId) => deliver(caller, p, holdId, keep))

    /** D8 steps 3-4 under the hold (null when nothing is to be paid), and the answer. */
    const deliver = Effect.fnUntraced(function* (
      caller: Caller,
      p: Plan,
      holdId: string | null,
      keep: Keep | undefined
    ) {
      const toFetch = p.units.filter((u) => needsFetch(p, u))
      const settings = yield* CallSettings
      // nothing or one unit to fetch (a stored answer, a single subject) forks no fibers
      const fetching =
        toFetch.length === 0
          ? Effect.succeed([])
          : toFetch.length === 1
            ? Effect.map(fetchShared(p, toFetch[0]!), (r) => [r])
            : Effect.forEach(toFetch, (u) => fetchShared(p, u), { concurrency: settings.concurrency })
      const results = yield* fetching
      // a unit another call was already fetching is served from that fetch, free, as the store would serve it (D2)
      const sharedStored = new Map<Unit, Unit>()
      const fetched: Array<Fetched> = []
      for (const r of results) {
        if (r.shared && !("omitted" in r.f))
          sharedStored.set(r.f.unit, Object.assign({}, r.f.unit, { stored: asMeasurement(p, r.f) }))
        else fetched.push(r.f)
      }
      const byUnit = new Map(fetched.map((f) => [f.unit, f]))
      const coverage: Array<CoverageItem> = []
      const data: Array<Row> = []
      for (const planned of p.units) {
        const u = sharedStored.get(planned) ?? planned
        const f = byUnit.get(u)
        if (f === undefined) {
          if (p.op.price._tag === "PerPart") {
            data.push(contactRow(u, undefined, undefined, undefined))
            coverage.push(
              cover(
                u,
                "stored",
                iso(new Date(Math.max(...u.held.map((r) => r.at.getTime())))),
                1,
                0,
                u.held[0]?.source ?? null
              )
            )
            continue
          }
          const s = u.stored!
          const view = storedView(p, u, s)
          for (const row of view.rows) data.push(row)
          coverage.push(cover(u, "stored", view.at, view.rows.length, 0, s.source))
        } else if ("omitted" in f) {
          if (p.op.price._tag === "PerPart" && u.held.length > 0)
            data.push(contactRow(u, undefined, undefined, undefined))
          coverage.push(
            cover(u, "omitted", null, 0, 0, f.source ?? upstream.sourceFor(p.op.platform, p.op.name), {
              reason: f.omitted,
              detail: f.detail ?? ""
            })
          )
        } else {
          const price = deliveredPrice(p, f)
          if (p.op.price._tag === "PerPart") {
            data.push(contactRow(u, f.outcome.rows[0], f.at, f.outcome.source))
          } else {
            data.push(...shapeRows(p, u, f.outcome.rows, f.at, f.outcome.source))
          }
          coverage.push(
            cover(
              u,
              "fetched",
              iso(f.at),
              p.op.price._tag === "PerPart" ? 1 : f.outcome.rows.length,
              exactNumber(price),
              f.outcome.source
            )
          )
        }
      }
      const failed = fetched.filter(
        (f) => "omitted" in f && (f.omitted === "upstream_failed" || f.omitted === "upstream_timeout")
      )
      // the failure releases the hold (`holding`)
      if (fetched.length > 0 && failed.length === p.units.length) return yield* new EveryUnitFailed({ coverage })
      const exact = Pricing.roundUp(Pricing.sum(fetched.map((f) => deliveredPrice(p, f))))
      const charge = Math.min(exact, p.quote)
      if (exact > p.quote)
        yield* Effect.logError("delivered price above the quote; capped at the quote", { exact, quote: p.quote })
      const recorded = records(caller, p, fetched)
      const written = { ...recorded, measurements: recorded.measurements.map((m) => ({ ...m, holdId })) }
      const reason = `${p.op.platform} ${p.op.name}`
      const nothingToWrite =
        holdId === null && written.measurements.length + written.points.length + written.reveals.length === 0
      // a call served entirely from the store has nothing to settle: one read of the balance
      // contact parts are charged by the settle itself, only for the parts this org did not hold yet (D10)
      const capture = holdId === null || p.op.price._tag === "PerPart" ? 0 : charge
      // an idempotent call's answer is kept by the settle, in its transaction (D16)
      const kept = keep === undefined || nothingToWrite ? undefined : keptAnswer(keep, data, coverage)
      const settled: {
        readonly account: { readonly spendable: number }
        readonly captured: number
        readonly kept?: string
      } = nothingToWrite
        ? { account: { spendable: yield* unspent(caller) }, captured: 0 }
        : yield* ledger.settle({ holdId, accountId: caller.accountId, capture, reason, records: written, kept }).pipe(
            Effect.catchTag("HoldNotHeld", () =>
              Effect.logWarning("hold expired before settle; delivered without charge").pipe(
                Effect.zipRight(
                  ledger.settle({
                    holdId: null,
                    accountId: caller.accountId,
                    capture: 0,
                    reason,
                    records: written,
                    kept
                  })
                )
              )
            ),
            Effect.orDie
          )
      return {
        data,
        cost: { creditsCharged: settled.captured, creditsRemaining: settled.account.spendable },
        coverage,
        ...(settled.kept === undefined ? {} : { kept: settled.kept })
      } satisfies Answer
    })

    /** Answers one call: `estimateOnly` quotes with the same plan; `history` never bills or fetches. */
    const callImpl = Effect.fnUntraced(function* (
      caller: Caller,
      platformId: string,
      body: unknown,
      keep: Keep | undefined
    ) {
      const decoded = yield* Requests.decode(platformId, body)
      if (!decoded.op.available) return yield* new OpUnavailable({ platform: platformId, op: decoded.op.name })
      if (decoded.op.name === "history") {
        const store = yield* resolveStore(decoded.op, decoded.request)
        const answer = yield* History.answer(measurements, decoded.op, decoded.request, store)
        const available = yield* unspent(caller)
        return {
          ...answer,
          cost: { creditsCharged: 0, creditsRemaining: available },
          ...(decoded.estimateOnly ? { estimate: withCap({ credits: 0 }, decoded.maxCredits) } : {})
        } satisfies Answer
      }
      const p = yield* plan(caller, decoded.op, decoded.request)
      // nightly refresh: a real call of a trackable op notes its subjects' demand (buffered by the adapter)
      if (!decoded.estimateOnly && Demand.trackable(p.op))
        yield* demand.note(caller.accountId, Demand.entriesOf(p, DateTime.toDate(yield* DateTime.now)))
      if (decoded.estimateOnly) {
        const quoted = yield* estimate(caller, p)
        return { ...quoted, estimate: withCap({ credits: p.quote }, decoded.maxCredits) } satisfies Answer
      }
      // D18: the cap is checked on the quote, before anything is held or fetched
      if (decoded.maxCredits !== undefined && p.quote > decoded.maxCredits)
        return yield* new QuoteAboveMaxCredits({ required: p.quote, maxCredits: decoded.maxCredits })
      return yield* execute(caller, p, keep)
    })

    /** Answers one call; with `keep`, a paid call's answer is kept for its idempotency key by the settle (D16). */
    const call = (caller: Caller, platformId: string, body: unknown, keep?: Keep): Effect.Effect<Answer, CallError> =>
      callImpl(caller, platformId, body, keep)

    const balance = (caller: Caller) => unspent(caller)

    return { call, plan, balance } as const
  })
}) {}

/** The errors a call can answer with. */
export type CallError =
  | Requests.InvalidRequest
  | Requests.UnknownOp
  | Requests.UnknownPlatform
  | OpUnavailable
  | InsufficientCredits
  | QuoteAboveMaxCredits
  | EveryUnitFailed
