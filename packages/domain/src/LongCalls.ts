/**
 * Long calls (issue 21): a call's control while it runs (cancel signal, its quote once planned, units done), the
 * `Prefer` request header (RFC 7240: `respond-async`, `wait=N`), call lifetime, and the errors of the calls paths.
 */
import { Context, Deferred, Duration, Effect, FiberId, Schema } from "effect"
import { WireId, wire } from "./ErrorCodes.js"

/** How long a call's record and answer are kept after it started (collected free during that time). */
export const retention = Duration.hours(24)

/** The job engine's queue long calls are jobs of (JobQueue): the one the nightly refresh runs on, another queue name. */
export const queue = "calls"

/** How many times a call is run again after its process stopped under it before it ends failed (nothing billed). */
export const maxAttempts = 5

/** How many calls whose process stopped one process takes over at once (its own calls are not counted against it). */
export const takeovers = 16

/** The largest `Prefer: wait=N` honoured (seconds); above it is a 400 naming the header. */
export const maxWaitSeconds = 600

/** What a long call reports while it runs. */
export interface Progress {
  readonly quote: number | null
  readonly unitsDone: number
  readonly unitsTotal: number | null
}

/**
 * A call's control, read by the call as it runs: `cancelled` completes when the call is asked to stop (units not yet
 * fetched are then not fetched, fetches in flight are interrupted, what was delivered is settled); `planned` and
 * `unitDone` report progress. The default controls nothing (a synchronous call).
 */
export class CallControl extends Context.Reference<CallControl>()("@pdr/domain/CallControl", {
  defaultValue: (): {
    readonly cancelled: Deferred.Deferred<void> | undefined
    /** Whether `cancelled` is done (read without an effect on the unit's path). */
    readonly isCancelled: () => boolean
    readonly long: boolean
    readonly planned: (quote: number, units: number, stored: number) => void
    readonly unitDone: () => void
    /** The call placed its hold (a long call records it, so a takeover can release it at once). */
    readonly held: (holdId: string) => void
    /** The run a unit (by freshness key) started, kept with the call; an earlier attempt's, when taken over. */
    readonly runs: ReadonlyMap<string, string> | undefined
    readonly runStarted: (unitKey: string, runId: string) => void
  } => ({
    cancelled: undefined,
    isCancelled: () => false,
    long: false,
    planned: () => {},
    unitDone: () => {},
    held: () => {},
    runs: undefined,
    runStarted: () => {}
  })
}) {}

/** A control for one call, with its progress kept in memory. */
export const makeControl = (long: boolean, earlierRuns: Readonly<Record<string, string>> = {}) =>
  Effect.map(Deferred.make<void>(), (cancelled) => {
    const progress: { quote: number | null; unitsDone: number; unitsTotal: number | null } = {
      quote: null,
      unitsDone: 0,
      unitsTotal: null
    }
    const plannedSignal = Deferred.unsafeMake<void>(FiberId.none)
    const heldSignal = Deferred.unsafeMake<string>(FiberId.none)
    const runs = new Map(Object.entries(earlierRuns))
    // the runner is told of each new run (it records them with the call); a fresh signal after each
    let runSignal = Deferred.unsafeMake<void>(FiberId.none)
    let stopped = false
    const control: CallControl["Type"] = {
      cancelled,
      isCancelled: () => stopped,
      long,
      planned: (quote, units, stored) => {
        progress.quote = quote
        progress.unitsTotal = units
        progress.unitsDone = stored
        Deferred.unsafeDone(plannedSignal, Effect.void)
      },
      unitDone: () => {
        progress.unitsDone++
      },
      held: (holdId) => {
        Deferred.unsafeDone(heldSignal, Effect.succeed(holdId))
      },
      runs,
      runStarted: (unitKey, runId) => {
        runs.set(unitKey, runId)
        Deferred.unsafeDone(runSignal, Effect.void)
      }
    }
    /** Waits for a run started since the last wait (the runner records them). */
    const nextRun = Effect.suspend(() => {
      const current = runSignal
      return Effect.zipRight(
        Deferred.await(current),
        Effect.sync(() => {
          if (runSignal === current) runSignal = Deferred.unsafeMake<void>(FiberId.none)
        })
      )
    })
    /** Asks the call to stop (once). */
    const cancel = Effect.suspend(() => {
      stopped = true
      return Deferred.succeed(cancelled, undefined)
    })
    const view: Progress = progress
    return { control, progress: view, plannedSignal, heldSignal, runs, nextRun, cancel }
  })

/** A call's control as made by `makeControl`. */
export type Made = Effect.Effect.Success<ReturnType<typeof makeControl>>

/** Whether a unit's fetch is to be skipped: the call was cancelled. */
export const isCancelled = (control: CallControl["Type"]): boolean => control.isCancelled()

/** What `Prefer` asks: nothing (a synchronous call), or to be answered 202 after `waitMs` if the call is not done. */
export type Preference = { readonly async: false } | { readonly async: true; readonly waitMs: number }

/**
 * The `Prefer` header (RFC 7240 §4.1 respond-async, §4.3 wait): `respond-async` alone waits for nothing but the
 * quote; `wait=N` waits up to N seconds (0..maxWaitSeconds, else a problem naming it). Other preferences are ignored.
 */
export const preference = (header: string | undefined): Preference | { readonly problem: string } => {
  if (header === undefined) return { async: false }
  let async = false
  let waitMs: number | undefined
  for (const raw of header.split(/[,;]/)) {
    const token = raw.trim()
    const eq = token.indexOf("=")
    const name = (eq < 0 ? token : token.slice(0, eq)).trim().toLowerCase()
    if (name === "respond-async") async = true
    else if (name === "wait") {
      const value =
        eq < 0
          ? ""
          : token
              .slice(eq + 1)
              .trim()
              .replace(/^"(.*)"$/, "$1")
      if (!/^\d{1,6}$/.test(value) || Number(value) > maxWaitSeconds)
        return { problem: `wait must be a whole number of seconds from 0 to ${maxWaitSeconds} (Prefer: wait=N)` }
      waitMs = Number(value) * 1000
    }
  }
  if (!async && waitMs === undefined) return { async: false }
  return { async: true, waitMs: waitMs ?? 0 }
}

/** 404 `not_found`: no call of this account has this id (unknown, another account's, or past its retention). */
export class CallNotFound extends Schema.TaggedError<CallNotFound>()("CallNotFound", {}) {
  override get message() {
    return "no call of this account has this id (calls are kept 24 hours)"
  }
  get [WireId]() {
    return wire("not_found")
  }
}

/** 409 `call_finished`: the call already ended; cancelling it changes nothing. */
export class CallFinished extends Schema.TaggedError<CallFinished>()("CallFinished", {
  status: Schema.String,
  httpStatus: Schema.Number
}) {
  override get message() {
    return `the call already ended (${this.status}, answered ${this.httpStatus}); nothing was changed`
  }
}
