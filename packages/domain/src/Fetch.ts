/**
 * Fetching the units of a plan (D8 step 3, D2): each unit's upstream fetch with its timeout, a failure or a defect
 * as an omitted unit with its reason, and identical concurrent fetches of stored ops shared by one upstream call.
 */
import {
  Cause,
  Clock,
  Context,
  DateTime,
  DefaultServices,
  Deferred,
  Duration,
  Effect,
  Either,
  Exit,
  Fiber,
  FiberId,
  Option
} from "effect"
import { CallSettings } from "./CallSettings.js"
import { measurementOf } from "./kinds/Measure.js"
import { CallControl, isCancelled } from "./LongCalls.js"
import * as OpKind from "./OpKind.js"
import type { Fetched, Plan, Unit } from "./Plan.js"
import type { FetchLeases } from "./ports/FetchLeases.js"
import type { Measurement, Measurements } from "./ports/Measurements.js"
import type { UnitOutcome, Upstream, UpstreamFailed } from "./ports/Upstream.js"

/** A fetched unit, and whether its fetch was another call's, shared (then it is served as stored, free). */
export interface FetchResult {
  readonly f: Fetched
  readonly shared: boolean
  /** Another instance's fetch of the unit, stored meanwhile (issue 22): served as stored, free. */
  readonly stored?: Measurement
  /** The cross-instance lease this call's fetch holds: released once the call's settle has stored the result. */
  readonly lease?: HeldLease
}

/** A lease this process holds: renewed by its fetcher's one renewal loop until it is given back or its deadline. */
export interface HeldLease {
  readonly key: string
  readonly token: string
  /** When it was taken or last renewed (the clock's epoch ms). */
  renewedAt: number
  /** After this (epoch ms) it is renewed no more: a call that never gives it back lets it run out. */
  readonly until: number
}

/** What `fetcherOf` needs to share fetches with other instances (issue 22); without it, sharing is per process. */
export interface CrossInstance {
  readonly leases: Context.Tag.Service<FetchLeases>
  readonly measurements: Context.Tag.Service<Measurements>
  /** How often a waiting call looks again. */
  readonly pollMs: number
  /**
   * How long a lease holds unless renewed: it is renewed every third of this while its call runs, so a holder that
   * died (its process killed) delays the others by at most this.
   */
  readonly leaseMs: number
}

/** The measurement a delivered unit records. */
export const asMeasurement: (p: Plan, f: OpKind.Delivered) => Measurement = measurementOf

type Failure =
  | UpstreamFailed
  | { readonly _tag: "Timeout" }
  | { readonly _tag: "Defect" }
  | { readonly _tag: "Cancelled" }

const timedOut: Failure = { _tag: "Timeout" }

/** The live clock (the one every fiber has unless a test or the app gives it another). */
const liveClock = Context.get(DefaultServices.liveServices, Clock.Clock)

/**
 * The host's timers, which the live clock's `sleep` sets (every JavaScript host has them; the domain names only these
 * two), and the longest delay they take: the live clock never wakes a sleep longer than that.
 */
const timers = globalThis as unknown as {
  readonly setTimeout: (f: () => void, ms: number) => unknown
  readonly clearTimeout: (handle: unknown) => void
}
const maxTimerMillis = 2 ** 31 - 1

/**
 * `Effect.timeoutFail` with one fiber instead of two (issue 22: the race forks the effect and a sleeping fiber, then
 * interrupts the sleeper: about a tenth of a paid call's Effect work). Under the live clock the effect is forked and
 * the timer the live clock's own `sleep` would set interrupts it; the outcome is the race's: the effect's exit (its
 * fiber refs inherited when it succeeds), or, past `duration`, the effect interrupted (and awaited) and `onTimeout`.
 * An interruption of the caller interrupts the effect. Under any other clock (a test's) it is `Effect.timeoutFail`.
 */
const timeoutFail = <A, E, E1, R>(
  self: Effect.Effect<A, E, R>,
  duration: Duration.Duration,
  onTimeout: () => E1
): Effect.Effect<A, E | E1, R> =>
  Effect.withFiberRuntime((parent) => {
    if (Context.get(parent.currentDefaultServices, Clock.Clock) !== liveClock)
      return Effect.timeoutFail(self, { duration, onTimeout })
    return Effect.flatMap(Effect.fork(self), (child) =>
      Effect.async<A, E | E1>((resume) => {
        let settled = false
        const millis = Duration.toMillis(duration)
        const timer =
          millis > maxTimerMillis
            ? undefined
            : timers.setTimeout(() => {
                if (settled) return
                settled = true
                resume(Effect.zipRight(Fiber.interrupt(child), Effect.failSync(onTimeout)))
              }, millis)
        const cancel = () => {
          if (timer !== undefined) timers.clearTimeout(timer)
        }
        child.addObserver((exit) => {
          if (settled) return
          settled = true
          cancel()
          resume(Exit.isSuccess(exit) ? Effect.as(child.inheritAll, exit.value) : exit)
        })
        return Effect.suspend(() => {
          settled = true
          cancel()
          return Fiber.interrupt(child)
        })
      })
    )
  })

/** The fetching of units over the Upstream port; fetches in flight are shared per process (and across, with leases). */
export const fetcherOf = (upstream: Context.Tag.Service<Upstream>, cross?: CrossInstance) => {
  /** One unit's fetch: delivered (rows kept as asked), or omitted with its reason; never fails. */
  const fetchUnit = (p: Plan, u: Unit) =>
    Effect.withFiberRuntime<Fetched>((fiber) =>
      fetchUnitWith(
        p,
        u,
        Context.get(fiber.currentContext, CallSettings),
        Context.get(fiber.currentContext, CallControl)
      )
    )

  /** `fetchUnit` with the call's settings and control already read (issue 22: read once per unit, in one step). */
  const fetchUnitWith = (
    p: Plan,
    u: Unit,
    settings: CallSettings["Type"],
    control: CallControl["Type"]
  ): Effect.Effect<Fetched> =>
    Effect.suspend(() => {
      const steps = OpKind.fetching(p.op)
      // issue 21: a cancelled call fetches no more units and cuts the ones in flight; a long call has its own budget
      if (isCancelled(control)) {
        const source = upstream.sourceFor(p.op.platform, p.op.name)
        return Effect.succeed<Fetched>({
          unit: u,
          omitted: "cancelled",
          detail: "the call was cancelled before this unit was fetched",
          source
        })
      }
      // issue 21: only a run (a provider actor) of a long call gets the run budget; a per-request adapter keeps its
      // request timeout, long call or not
      const unitTimeout =
        control.long && upstream.runs?.(p.op.platform, p.op.name) === true
          ? settings.longUnitTimeout
          : settings.unitTimeout
      const upstreamFetch = upstream.fetch({
        platform: p.op.platform,
        op: p.op.name,
        request: p.request,
        subject: "subject" in u.label ? u.label.subject : undefined,
        rows: u.asked,
        store: p.store,
        parts: steps.fetchParts(u),
        // issue 21: a long call keeps the runs its units start, so a process that takes it over polls them again
        ...(control.long
          ? {
              run: {
                resume: control.runs?.get(u.freshnessKey),
                started: (runId: string) => control.runStarted(u.freshnessKey, runId),
                budgetMs: Duration.toMillis(unitTimeout)
              }
            }
          : {})
      })
      const fetching: Effect.Effect<Either.Either<UnitOutcome, Failure>> = timeoutFail(
        upstreamFetch,
        unitTimeout,
        (): Failure => timedOut
      ).pipe(
        Effect.either,
        Effect.catchAllDefect((defect) =>
          Effect.logWarning("upstream defect", defect).pipe(Effect.as(Either.left<Failure>({ _tag: "Defect" })))
        )
      )
      // the outcome and the clock read in one step (issue 22: `DateTime.now` is four)
      const outcome =
        control.cancelled === undefined
          ? fetching
          : Effect.raceFirst(
              fetching,
              Effect.as(Deferred.await(control.cancelled), Either.left<Failure>({ _tag: "Cancelled" }))
            ).pipe(Effect.ensuring(Effect.sync(control.unitDone)))
      return Effect.flatMap(outcome, (outcome) =>
        Effect.clockWith((clock) => Effect.succeed(settle(p, u, steps, unitTimeout, outcome, clock)))
      )
    })

  /** A unit's fetch outcome as the unit fetched (delivered, or omitted with its reason), measured now. */
  const settle = (
    p: Plan,
    u: Unit,
    steps: OpKind.Fetches,
    unitTimeout: Duration.Duration,
    outcome: Either.Either<UnitOutcome, Failure>,
    clock: Clock.Clock
  ): Fetched => {
    const at = new Date(clock.unsafeCurrentTimeMillis())
    {
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
        return e._tag === "UpstreamFailed" && e.retryInMs !== undefined
          ? ({ unit: u, omitted, detail, source, retryInMs: e.retryInMs } as const)
          : ({ unit: u, omitted, detail, source } as const)
      }
      const o = outcome.right
      if (o._tag === "NotFound") return { unit: u, omitted: "not_found", detail: o.detail, source: o.source } as const
      if (o._tag === "InvalidSubject")
        return { unit: u, omitted: "invalid_subject", detail: o.detail, source: o.source } as const
      return { unit: u, outcome: { ...o, rows: steps.kept(o.rows, u.asked) }, at } as const
    }
  }

  /** Fetches in flight, by freshness key and rows asked: identical concurrent fetches share one (D2). */
  const inflight = new Map<string, Deferred.Deferred<FetchResult>>()

  /**
   * The leases this process holds (issue 22), renewed by one loop rather than one fiber and two timers per call: it
   * runs while any is held, every third of a lease's time, and renews each lease not renewed for half of that (so
   * every lease is renewed at most half a period after a third of its time: well before it runs out); a call shorter
   * than that renews nothing. A lease the store no longer gives this token (it ran out and was taken) or past its
   * deadline leaves the loop.
   */
  const held = new Set<HeldLease>()
  let renewing = false
  const renewals =
    cross === undefined
      ? Effect.void
      : Effect.gen(function* () {
          const period = cross.leaseMs / 3
          while (true) {
            yield* Effect.sleep(Duration.millis(period))
            const now = yield* Clock.currentTimeMillis
            const due: Array<HeldLease> = []
            for (const lease of held) {
              if (now > lease.until) held.delete(lease)
              else if (now - lease.renewedAt >= period / 2) due.push(lease)
            }
            yield* Effect.forEach(
              due,
              (lease) =>
                Effect.map(cross.leases.renew(lease.key, lease.token, cross.leaseMs), (kept) => {
                  if (kept) lease.renewedAt = now
                  else held.delete(lease)
                }),
              { concurrency: "unbounded", discard: true }
            )
            // checked and cleared in one step: a lease added after it starts the loop again
            if (held.size === 0) {
              renewing = false
              return
            }
          }
        }).pipe(
          // a loop that ended otherwise (interrupted) is started again by the next lease
          Effect.onExit((exit) =>
            Exit.isSuccess(exit)
              ? Effect.void
              : Effect.sync(() => {
                  renewing = false
                })
          )
        )

  /** Adds a taken lease to the renewals; true when their loop is not running (the caller starts it). */
  const startHolding = (lease: HeldLease): boolean => {
    held.add(lease)
    if (renewing) return false
    renewing = true
    return true
  }

  /**
   * The fetch of a unit under a cross-instance lease (issue 22): with the lease taken, fetched here (the lease goes with
   * the result, released after the settle); while another instance holds it, this call waits for its stored result
   * and serves it as stored, free; a lease given back with nothing stored (that fetch failed) is taken here. A lease
   * store that does not answer never blocks a call: it fetches as it would alone.
   */
  const leased = (p: Plan, u: Unit, key: string, taken: { lease?: HeldLease }): Effect.Effect<FetchResult> =>
    // the call's settings, control and clock read in one step (issue 22)
    Effect.withFiberRuntime((fiber) => {
      const settings = Context.get(fiber.currentContext, CallSettings)
      const control = Context.get(fiber.currentContext, CallControl)
      const fetched = Effect.map(fetchUnitWith(p, u, settings, control), (f): FetchResult => ({ f, shared: false }))
      if (cross === undefined) return fetched
      const { leases, measurements, pollMs, leaseMs } = cross
      const clock = Context.get(fiber.currentDefaultServices, Clock.Clock)
      // the longest a holder may have been fetching: what it stores is measured at most this long before a wait began
      const fetchMs =
        Duration.toMillis(
          control.long && upstream.runs?.(p.op.platform, p.op.name) === true
            ? settings.longUnitTimeout
            : settings.unitTimeout
        ) + leaseMs
      const take = leases.take(key, leaseMs).pipe(Effect.orElseSucceed(() => Option.some("")))
      const own = (token: string): Effect.Effect<FetchResult> => {
        if (token === "") return fetched
        // renewed until the call gives it back (after its settle), or its fetch is interrupted; bounded: a call
        // that never gives it back (interrupted before its settle) lets it run out
        const now = clock.unsafeCurrentTimeMillis()
        const lease: HeldLease = { key, token, renewedAt: now, until: now + fetchMs + 30_000 }
        // an interrupted fetch's lease is renewed no more (`fetchShared`, which knows it by `taken`)
        taken.lease = lease
        const fetchedHere = Effect.map(
          fetchUnitWith(p, u, settings, control),
          (f): FetchResult => ({
            f,
            shared: false,
            lease
          })
        )
        return startHolding(lease) ? Effect.zipRight(Effect.forkDaemon(renewals), fetchedHere) : fetchedHere
      }
      const storedSince = (since: Date) =>
        measurements
          .fresh({ keys: [u.freshnessKey], since, minRows: u.asked })
          .pipe(Effect.map((found) => Option.fromNullable(found.get(u.freshnessKey))))
      return Effect.flatMap(take, (first) => {
        if (Option.isSome(first)) return own(first.value)
        return Effect.gen(function* () {
          // the holder measured after it took the lease, at most `fetchMs` before this call began to wait
          const since = new Date((yield* DateTime.now).epochMillis - fetchMs)
          while (true) {
            yield* Effect.sleep(Duration.millis(pollMs))
            const next = yield* take
            if (Option.isNone(next)) continue
            const stored = yield* storedSince(since).pipe(Effect.orElseSucceed(() => Option.none()))
            if (Option.isNone(stored)) return yield* own(next.value)
            if (next.value !== "") yield* leases.release(key, next.value)
            const m = stored.value
            return {
              f: {
                unit: u,
                outcome: { _tag: "Delivered", rows: m.rows, exhaustive: m.exhaustive, points: [], source: m.source },
                at: m.measuredAt
              },
              shared: true,
              stored: m
            } satisfies FetchResult
          }
        })
      })
    })

  /**
   * A unit's fetch, shared with an identical one in flight when its op's kind allows it (results kept for everyone:
   * not a reveal, which is per org, nor a run, which keeps nothing).
   */
  const fetchShared = (p: Plan, u: Unit): Effect.Effect<FetchResult> =>
    Effect.suspend(() => {
      const own = () => Effect.map(fetchUnit(p, u), (f): FetchResult => ({ f, shared: false }))
      if (!OpKind.fetching(p.op).shares) return own()
      const key = `${u.freshnessKey}#${u.asked}`
      const running = inflight.get(key)
      if (running !== undefined) {
        return Deferred.await(running).pipe(
          // a fetch its own call cancelled is not this call's answer: fetch it here
          Effect.flatMap((r) =>
            "omitted" in r.f && r.f.omitted === "cancelled"
              ? own()
              : Effect.succeed<FetchResult>(
                  r.stored === undefined
                    ? { f: { ...r.f, unit: u }, shared: true }
                    : { f: { ...r.f, unit: u }, shared: true, stored: r.stored }
                )
          ),
          Effect.catchAllCause(() => own())
        )
      }
      const deferred = Deferred.unsafeMake<FetchResult>(FiberId.none)
      inflight.set(key, deferred)
      const taken: { lease?: HeldLease } = {}
      // its result given to the calls waiting on it, then no longer in flight, in one step (issue 22); interrupted, its
      // lease (when it took one) is renewed no more
      return Effect.onExit(leased(p, u, key, taken), (exit) => {
        if (Exit.isSuccess(exit))
          return Effect.sync(() => {
            Deferred.unsafeDone(deferred, exit)
            if (inflight.get(key) === deferred) inflight.delete(key)
          })
        if (taken.lease !== undefined && Cause.isInterruptedOnly(exit.cause)) held.delete(taken.lease)
        return Effect.zipRight(
          Deferred.interrupt(deferred),
          Effect.sync(() => {
            if (inflight.get(key) === deferred) inflight.delete(key)
          })
        )
      })
    })

  /** Gives back the cross-instance leases of these results (after their call's settle stored what they fetched). */
  const release = (results: ReadonlyArray<FetchResult>) =>
    cross === undefined
      ? Effect.void
      : Effect.forEach(
          results,
          (r) => {
            if (r.lease === undefined) return Effect.void
            held.delete(r.lease)
            return cross.leases.release(r.lease.key, r.lease.token)
          },
          { discard: true }
        )

  /** Stops renewing the cross-instance leases of these results, given back by their call's settle (issue 22). */
  const forget = (results: ReadonlyArray<FetchResult>) =>
    Effect.sync(() => {
      for (const r of results) if (r.lease !== undefined) held.delete(r.lease)
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

  return { fetchUnit, fetchShared, fetchAll, release, forget, sourceOf } as const
}
