/**
 * Op calls end to end (D1, D2, D4, D8-D11): decode, plan (normalize subjects, look up the store, price every unit),
 * quote, hold, fetch concurrently with a timeout per unit, settle (capture what was delivered, never above the
 * quote, with the data in the same transaction), and answer with what was measured, when, and what was left out.
 * The service composes `Plan` (units and what is fetched), `Fetch` (each unit's fetch, timeouts, shared fetches),
 * `Coverage` (the answer assembled from its units: coverage items, rows, stored views, contact rows) and `Settle`
 * (delivered price, records, kept answer).
 */
import { Clock, Context, Effect, Exit, Option } from "effect"
import { EveryUnitFailed, InsufficientCredits, OpUnavailable, QuoteAboveMaxCredits } from "./CallErrors.js"
import { CallSettings } from "./CallSettings.js"
import { assemble, type CoverageItem, estimated } from "./Coverage.js"
import { Ends, Fence } from "./Ends.js"
import { asMeasurement, type FetchResult, fetcherOf } from "./Fetch.js"
import type { KeyCreditLimitReached } from "./KeyLimits.js"
import type { Caller } from "./Keys.js"
import { CallControl } from "./LongCalls.js"
import * as OpKind from "./OpKind.js"
import { type Fetched, needsFetch, type Plan, plannerOf, type Unit } from "./Plan.js"
import * as Pricing from "./Pricing.js"
import { Crypto } from "./ports/Crypto.js"
import * as Demand from "./ports/Demand.js"
import { FetchLeases } from "./ports/FetchLeases.js"
import { KeySpend } from "./ports/KeySpend.js"
import { Ledger, type SettleOutcomeUnknown } from "./ports/Ledger.js"
import { Measurements, type Row } from "./ports/Measurements.js"
import { Upstream } from "./ports/Upstream.js"
import * as Requests from "./Requests.js"
import { deliveredPrice, holdsOf, type Keep, keptAnswer, reason as reasonOf, records } from "./Settle.js"
import * as Spans from "./Spans.js"

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
  dependencies: [Ends.Default],
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

    // issue 22: with a lease store (a PostgreSQL server: several instances), identical concurrent fetches are shared
    // across instances too; without one (tests, the embedded database: one process) they are shared in memory
    const leases = yield* Effect.serviceOption(FetchLeases)
    const fetcher = fetcherOf(
      upstream,
      Option.isSome(leases) ? { leases: leases.value, measurements, pollMs: 25, leaseMs: 3_000 } : undefined
    )

    const estimate = (caller: Caller, p: Plan, steps: OpKind.Fetches) =>
      Effect.map(
        unspent(caller),
        (available): Answer => ({
          data: [],
          cost: { creditsCharged: 0, creditsRemaining: available },
          coverage: p.units.map((u) => estimated(u, steps.fetches(u))),
          estimate: { credits: p.quote }
        })
      )

    const holds = holdsOf(ledger, crypto, yield* Ends, yield* KeySpend)

    /**
     * The answer of a call with nothing to fetch and nothing to pay (every unit served from the store, D2): what
     * `deliver` answers with no fetched unit (no hold, nothing to record or keep, one read of the balance), without
     * its steps (issue 22: a stored call's hold, fetch and settle steps were about a fifth of its Effect operations).
     */
    const servedFromStore = (caller: Caller, p: Plan, steps: OpKind.Fetches) =>
      Effect.map(unspent(caller), (spendable): Answer => {
        const { data, coverage } = assemble(
          p,
          steps.shaping,
          p.units,
          () => undefined,
          (f) => deliveredPrice(p, f),
          fetcher.sourceOf(p)
        )
        return { data, cost: { creditsCharged: 0, creditsRemaining: spendable }, coverage }
      })

    /** D8 steps 2-4 and the answer. */
    const execute = (
      caller: Caller,
      p: Plan,
      steps: OpKind.Fetches,
      keep: Keep | undefined,
      options: RunOptions,
      settings: CallSettings["Type"],
      control: CallControl["Type"]
    ) =>
      p.quote === 0 && !p.units.some((u) => steps.fetches(u))
        ? servedFromStore(caller, p, steps)
        : options.hold === undefined
          ? holds.holding(caller, p, (holdId) =>
              deliver(caller, p, steps, holdId, keep, options.fenced === true, false, settings, control)
            )
          : // issue 19: the call draws from a hold its caller placed for several calls (a refresh batch's) and closes:
            // a failure leaves its share in that hold, released when the hold is closed
            deliver(
              caller,
              p,
              steps,
              p.quote > 0 ? options.hold : null,
              keep,
              options.fenced === true,
              true,
              settings,
              control
            )

    /**
     * D8 steps 3-4 under the hold (null when nothing is to be paid), and the answer. (Issue 22: chains, not generators,
     * on the paid path; the call's settings and control read once, by `run`.)
     */
    const deliver = (
      caller: Caller,
      p: Plan,
      steps: OpKind.Fetches,
      holdId: string | null,
      keep: Keep | undefined,
      fenced: boolean,
      draw: boolean,
      settings: CallSettings["Type"],
      control: CallControl["Type"]
    ): Effect.Effect<Answer, CallError> =>
      Effect.flatMap(
        Effect.suspend(() =>
          fetcher.fetchAll(
            p,
            p.units.filter((u) => steps.fetches(u)),
            settings.concurrency
          )
        ),
        (results) => {
          // the leases this call's fetches hold (issue 22) are given back once its settle has stored their results: by
          // the settle itself, in its transaction, when the store can; else here
          const leases = results.flatMap((r) => (r.lease === undefined ? [] : [r.lease]))
          if (leases.length === 0)
            return settleFetched(caller, p, steps, holdId, keep, fenced, draw, results, [], control)
          return settleFetched(caller, p, steps, holdId, keep, fenced, draw, results, leases, control).pipe(
            Effect.onExit((exit) =>
              Exit.isSuccess(exit) && exit.value.leasesReleased === true
                ? fetcher.forget(results)
                : fetcher.release(results)
            ),
            Effect.map(({ leasesReleased: _, ...answer }): Answer => answer)
          )
        }
      )

    /** D8 step 4 for the fetched units, and the answer. */
    const settleFetched = (
      caller: Caller,
      p: Plan,
      steps: OpKind.Fetches,
      holdId: string | null,
      keep: Keep | undefined,
      fenced: boolean,
      draw: boolean,
      results: ReadonlyArray<FetchResult>,
      leases: ReadonlyArray<{ readonly key: string; readonly token: string }>,
      control: CallControl["Type"]
    ): Effect.Effect<Answer & { readonly leasesReleased?: boolean }, CallError> =>
      Effect.withFiberRuntime((fiber) => {
        // a unit another call was already fetching is served from that fetch, free, as the store would serve it (D2)
        const sharedStored = new Map<Unit, Unit>()
        const fetched: Array<Fetched> = []
        for (const r of results) {
          if (r.stored !== undefined) sharedStored.set(r.f.unit, Object.assign({}, r.f.unit, { stored: r.stored }))
          else if (r.shared && !("omitted" in r.f))
            sharedStored.set(r.f.unit, Object.assign({}, r.f.unit, { stored: asMeasurement(p, r.f) }))
          else fetched.push(r.f)
        }
        const byUnit = new Map(fetched.map((f) => [f.unit, f]))
        const { data, coverage } = assemble(
          p,
          steps.shaping,
          sharedStored.size === 0 ? p.units : p.units.map((u) => sharedStored.get(u) ?? u),
          (u) => byUnit.get(u),
          (f) => deliveredPrice(p, f),
          fetcher.sourceOf(p)
        )
        const failed = fetched.filter(
          (f) => "omitted" in f && (f.omitted === "upstream_failed" || f.omitted === "upstream_timeout")
        )
        // the failure releases the hold (`holding`)
        if (fetched.length > 0 && failed.length === p.units.length) {
          const waits = failed.flatMap((f) => ("retryInMs" in f && f.retryInMs !== undefined ? [f.retryInMs] : []))
          return Effect.fail(
            new EveryUnitFailed(waits.length === 0 ? { coverage } : { coverage, retryInMs: Math.max(...waits) })
          )
        }
        const exact = Pricing.roundUp(Pricing.sum(fetched.map((f) => deliveredPrice(p, f))))
        const charge = Math.min(exact, p.quote)
        const recorded = records(caller, p, fetched)
        const written = { ...recorded, measurements: recorded.measurements.map((m) => ({ ...m, holdId })) }
        const reason = reasonOf(p)
        const nothingToWrite =
          holdId === null && written.measurements.length + written.points.length + written.reveals.length === 0
        // a call served entirely from the store has nothing to settle: one read of the balance
        // the kind says what the settle captures: contact parts are charged by the settle itself, per part (D10)
        const capture = holdId === null ? 0 : steps.capture(charge)
        // an idempotent call's answer is kept by the settle, in its transaction (D16)
        // under its idempotency claim (D115: a draw keeps its answer only while the claim is this run's)
        const kept =
          keep === undefined || nothingToWrite
            ? undefined
            : keptAnswer(keep, data, coverage, Context.getOption(fiber.currentContext, Fence))
        const settling: Effect.Effect<
          {
            readonly account: { readonly spendable: number }
            readonly captured: number
            readonly kept?: string
            readonly leasesReleased?: boolean
          },
          CallError
        > = nothingToWrite
          ? Effect.map(unspent(caller), (spendable) => ({ account: { spendable }, captured: 0 }))
          : // a settle once begun is waited for, never left behind by an interruption (a client's abort, a refresh job
            // stopped because its lease was lost): its statement may still commit (a group commit's batch runs on, a
            // sent statement is not cancelled), and the interrupted call's idempotency claim would then be dropped
            // before the settle wrote its kept answer, so the charge would be made with no kept answer to replay (the
            // refresh then reported the entity "fresh", 0 credits, against a hold that captured it: stop 34)
            Effect.uninterruptible(
              ledger
                .settle({
                  holdId,
                  accountId: caller.accountId,
                  capture,
                  reason,
                  records: written,
                  kept,
                  draw,
                  ...(leases.length === 0 ? {} : { leases })
                })
                .pipe(
                  Effect.catchTag("HoldNotHeld", (e) =>
                    // issue 21: a long call's hold is renewed with its lease, so one that is gone was released by a
                    // process that took the call over: this attempt is stale and settles nothing (the fence); the new
                    // one answers. A fenced run (a refresh job's: its holds are released when the job is taken over) is
                    // the same
                    control.long || fenced
                      ? Effect.zipRight(
                          Effect.logWarning("the call's hold was released by a takeover: this attempt settles nothing"),
                          Effect.die(e)
                        )
                      : Effect.logWarning("hold expired before settle; delivered without charge").pipe(
                          Effect.zipRight(
                            ledger
                              .settle({
                                holdId: null,
                                accountId: caller.accountId,
                                capture: 0,
                                reason,
                                records: written,
                                kept
                              })
                              .pipe(
                                // a settle without a hold is never refused as not held
                                Effect.catchTag("HoldNotHeld", (e) => Effect.die(e))
                              )
                          )
                        )
                  )
                )
            )
        const answered = Effect.flatMap(settling, (settled) => {
          const answer = {
            data,
            cost: { creditsCharged: settled.captured, creditsRemaining: settled.account.spendable },
            coverage,
            ...(settled.kept === undefined ? {} : { kept: settled.kept }),
            ...(settled.leasesReleased === true ? { leasesReleased: true } : {})
          } satisfies Answer & { readonly leasesReleased?: boolean }
          // issue 21: a cache in front of the store serves what was just stored (a forced fetch replaces its copy)
          return measurements.stored !== undefined && written.measurements.length > 0
            ? Effect.as(measurements.stored(written.measurements), answer)
            : Effect.succeed(answer)
        })
        return exact > p.quote
          ? Effect.zipRight(
              Effect.logError("delivered price above the quote; capped at the quote", { exact, quote: p.quote }),
              answered
            )
          : answered
      })

    /**
     * Plans one call (D8 step 1) and gives its quote and the rest of the call, to run on that plan: `estimateOnly`
     * answers the quote; a read-only kind (a series) never bills or fetches. The nightly refresh reserves its pass
     * budget for the quote between the two, so an entity is planned once (its store read once), not quoted and then
     * planned again.
     */
    // (issue 22: a chain rather than a generator: every op call passes here)
    const prepareImpl = (caller: Caller, platformId: string, body: unknown): Effect.Effect<Prepared, CallError> =>
      Effect.flatMap(Requests.decode(platformId, body), (decoded): Effect.Effect<Prepared, CallError> => {
        if (!decoded.op.available) return Effect.fail(new OpUnavailable({ platform: platformId, op: decoded.op.name }))
        const steps = OpKind.stepsOf(decoded.op)
        if (steps._tag === "Reads")
          return Effect.map(resolveStore(decoded.op, decoded.request), (store): Prepared => {
            const read = Effect.gen(function* () {
              const answer = yield* steps.answer(measurements, decoded.op, decoded.request, store)
              const available = yield* unspent(caller)
              return {
                ...answer,
                cost: { creditsCharged: 0, creditsRemaining: available },
                ...(decoded.estimateOnly ? { estimate: withCap({ credits: 0 }, decoded.maxCredits) } : {})
              } satisfies Answer
            })
            return { quote: 0, run: (_keep?: Keep, _options?: RunOptions): Effect.Effect<Answer, CallError> => read }
          })
        // issue 25: the plan's span (a no-op while the tracer is off)
        return Effect.map(
          plan(caller, decoded.op, decoded.request, decoded).pipe(Spans.traced("Calls.plan")),
          (p): Prepared => {
            // issue 22: the call's control, settings and clock read in one step; chains rather than generators
            const run = (keep: Keep | undefined, options: RunOptions): Effect.Effect<Answer, CallError> =>
              decoded.estimateOnly
                ? Effect.map(
                    estimate(caller, p, steps),
                    (quoted) =>
                      ({ ...quoted, estimate: withCap({ credits: p.quote }, decoded.maxCredits) }) satisfies Answer
                  )
                : Effect.withFiberRuntime((fiber) => {
                    const control = Context.get(fiber.currentContext, CallControl)
                    const settings = Context.get(fiber.currentContext, CallSettings)
                    const paid = Effect.suspend(() => {
                      // issue 21: a long call reports its quote and its units (those stored count as done)
                      const toFetch = p.units.reduce((n, u) => (needsFetch(p, u) ? n + 1 : n), 0)
                      control.planned(p.quote, p.units.length, p.units.length - toFetch)
                      // D18: the cap is checked on the quote, before anything is held or fetched
                      if (decoded.maxCredits !== undefined && p.quote > decoded.maxCredits)
                        return Effect.fail(
                          new QuoteAboveMaxCredits({ required: p.quote, maxCredits: decoded.maxCredits })
                        )
                      return execute(caller, p, steps, keep, options, settings, control)
                    })
                    // nightly refresh: a real call of a trackable op notes its subjects' demand (buffered by the adapter)
                    if (!Demand.trackable(p.op)) return paid
                    const now = new Date(
                      Context.get(fiber.currentDefaultServices, Clock.Clock).unsafeCurrentTimeMillis()
                    )
                    return Effect.zipRight(demand.note(caller.accountId, Demand.entriesOf(p, now)), paid)
                  })
            return {
              quote: p.quote,
              run: (keep?: Keep, options?: RunOptions): Effect.Effect<Answer, CallError> => run(keep, options ?? {})
            }
          }
        )
      })

    /** A planned call: its quote, and the call to run on its plan (with `keep`, its answer kept by the settle). */
    const prepare = prepareImpl

    /** Answers one call; with `keep`, a paid call's answer is kept for its idempotency key by the settle (D16). */
    const call = (caller: Caller, platformId: string, body: unknown, keep?: Keep): Effect.Effect<Answer, CallError> =>
      Effect.flatMap(prepareImpl(caller, platformId, body), (prepared) => prepared.run(keep))

    const balance = (caller: Caller) => unspent(caller)

    return { call, prepare, plan, balance } as const
  })
}) {}

/** How a prepared call runs. */
export interface RunOptions {
  /**
   * A hold found released at the settle means the call was taken over (a refresh job's holds are released when
   * another runner takes the job over): the call settles nothing and fails, rather than delivering without charge.
   */
  readonly fenced?: boolean
  /**
   * Issue 19: a hold the caller placed for several calls (a refresh batch's, covering their quotes): the call draws its
   * charge from it (`Ledger.settle` with `draw`) instead of placing its own, and leaves it held; the caller closes it.
   */
  readonly hold?: string
}

/** A call planned once: its quote, and the rest of the call on that plan. */
export interface Prepared {
  readonly quote: number
  readonly run: (keep?: Keep, options?: RunOptions) => Effect.Effect<Answer, CallError>
}

/** The errors a call can answer with. */
export type CallError =
  | Requests.InvalidRequest
  | Requests.UnknownOp
  | Requests.UnknownPlatform
  | OpUnavailable
  | InsufficientCredits
  | QuoteAboveMaxCredits
  | KeyCreditLimitReached
  | EveryUnitFailed
  | SettleOutcomeUnknown
