/**
 * Fetching the units of a plan (D8 step 3, D2): each unit's upstream fetch with its timeout, a failure or a defect
 * as an omitted unit with its reason, and identical concurrent fetches of stored ops shared by one upstream call.
 */
import { type Context, DateTime, Deferred, Duration, Effect, Either, Exit, FiberId } from "effect"
import { CallSettings } from "./CallSettings.js"
import * as Kinds from "./Kinds.js"
import { measurementOf } from "./kinds/Measure.js"
import { CallControl, isCancelled } from "./LongCalls.js"
import type { Fetched, Plan, Unit } from "./Plan.js"
import type { Measurement } from "./ports/Measurements.js"
import type { UnitOutcome, Upstream, UpstreamFailed } from "./ports/Upstream.js"

/** A fetched unit, and whether its fetch was another call's, shared (then it is served as stored, free). */
export interface FetchResult {
  readonly f: Fetched
  readonly shared: boolean
}

/** The measurement a delivered unit records. */
export const asMeasurement: (p: Plan, f: Kinds.Delivered) => Measurement = measurementOf

type Failure =
  | UpstreamFailed
  | { readonly _tag: "Timeout" }
  | { readonly _tag: "Defect" }
  | { readonly _tag: "Cancelled" }

/** The fetching of units over the Upstream port; fetches in flight are shared per process. */
export const fetcherOf = (upstream: Context.Tag.Service<Upstream>) => {
  /** One unit's fetch: delivered (rows kept as asked), or omitted with its reason; never fails. */
  const fetchUnit = (p: Plan, u: Unit) =>
    Effect.gen(function* () {
      const settings = yield* CallSettings
      const steps = Kinds.fetching(p.op)
      // issue 21: a cancelled call fetches no more units and cuts the ones in flight; a long call has its own budget
      const control = yield* CallControl
      if (isCancelled(control)) {
        const source = upstream.sourceFor(p.op.platform, p.op.name)
        return {
          unit: u,
          omitted: "cancelled",
          detail: "the call was cancelled before this unit was fetched",
          source
        } as const
      }
      const unitTimeout = control.long ? settings.longUnitTimeout : settings.unitTimeout
      const fetching: Effect.Effect<Either.Either<UnitOutcome, Failure>> = upstream
        .fetch({
          platform: p.op.platform,
          op: p.op.name,
          request: p.request,
          subject: "subject" in u.label ? u.label.subject : undefined,
          rows: u.asked,
          store: p.store,
          parts: steps.fetchParts(u)
        })
        .pipe(
          Effect.timeoutFail({ duration: unitTimeout, onTimeout: (): Failure => ({ _tag: "Timeout" }) }),
          Effect.either,
          Effect.catchAllDefect((defect) =>
            Effect.logWarning("upstream defect", defect).pipe(Effect.as(Either.left<Failure>({ _tag: "Defect" })))
          )
        )
      const outcome: Either.Either<UnitOutcome, Failure> =
        control.cancelled === undefined
          ? yield* fetching
          : yield* Effect.raceFirst(
              fetching,
              Effect.as(Deferred.await(control.cancelled), Either.left<Failure>({ _tag: "Cancelled" }))
            ).pipe(Effect.ensuring(Effect.sync(control.unitDone)))
      const at = DateTime.toDate(yield* DateTime.now)
      if (Either.isLeft(outcome)) {
        const e = outcome.left
        const source = e._tag === "UpstreamFailed" ? e.source : upstream.sourceFor(p.op.platform, p.op.name)
        const detail =
          e._tag === "Timeout"
            ? `no answer within ${Duration.format(unitTimeout)}`
            : e._tag === "Defect"
              ? "the upstream adapter failed"
              : e._tag === "Cancelled"
                ? "the call was cancelled while this unit was fetched"
                : e.detail
        const omitted =
          e._tag === "Timeout" ? "upstream_timeout" : e._tag === "Cancelled" ? "cancelled" : "upstream_failed"
        return { unit: u, omitted, detail, source } as const
      }
      const o = outcome.right
      if (o._tag === "NotFound") return { unit: u, omitted: "not_found", detail: o.detail, source: o.source } as const
      if (o._tag === "InvalidSubject")
        return { unit: u, omitted: "invalid_subject", detail: o.detail, source: o.source } as const
      return { unit: u, outcome: { ...o, rows: steps.kept(o.rows, u.asked) }, at } as const
    })

  /** Fetches in flight, by freshness key and rows asked: identical concurrent fetches share one (D2). */
  const inflight = new Map<string, Deferred.Deferred<Fetched>>()

  /**
   * A unit's fetch, shared with an identical one in flight when its op's kind allows it (results kept for everyone:
   * not a reveal, which is per org, nor a run, which keeps nothing).
   */
  const fetchShared = (p: Plan, u: Unit): Effect.Effect<FetchResult> =>
    Effect.suspend(() => {
      const own = Effect.map(fetchUnit(p, u), (f) => ({ f, shared: false }))
      if (!Kinds.fetching(p.op).shares) return own
      const key = `${u.freshnessKey}#${u.asked}`
      const running = inflight.get(key)
      if (running !== undefined) {
        return Deferred.await(running).pipe(
          // a fetch its own call cancelled is not this call's answer: fetch it here
          Effect.flatMap((f) =>
            "omitted" in f && f.omitted === "cancelled" ? own : Effect.succeed({ f: { ...f, unit: u }, shared: true })
          ),
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

  /** Fetches these units of a plan, `concurrency` at a time; no fiber is forked for none or one. */
  const fetchAll = (p: Plan, units: ReadonlyArray<Unit>, concurrency: number) =>
    units.length === 0
      ? Effect.succeed<ReadonlyArray<FetchResult>>([])
      : units.length === 1
        ? Effect.map(fetchShared(p, units[0]!), (r) => [r])
        : Effect.forEach(units, (u) => fetchShared(p, u), { concurrency })

  /** The source an omitted unit names when its failure names none: the one routed for the plan's op. */
  const sourceOf = (p: Plan) => upstream.sourceFor(p.op.platform, p.op.name)

  return { fetchUnit, fetchShared, fetchAll, sourceOf } as const
}
