/**
 * Ends that did not reach the store: an idempotency claim dropped or its answer kept (D16), a failed call's hold
 * released (D8). Each is tried once where it happens, before the answer is written, as before; one the store refused
 * or never got (the database out of reach a moment) no longer changes the answer and is not left to the stale bound or
 * the expiry sweep (HOLD_TTL_MS, 5 minutes): it is tried again in the background, 100 ms later, then after 200 ms and
 * twice as long each time but at least every 5 s, until it is written or the bound has passed (then the store's own
 * rule takes over: a stale claim is taken over, an expired hold swept; the last try is the one decided before it).
 * A retry with the same key after a 5xx therefore runs the call again once the database answers, instead of meeting
 * `idempotency_in_flight`, and a failed call's credits are spendable again then, not five minutes later.
 */
import { Cause, Duration, Effect, FiberSet, Schedule } from "effect"

/** The first try again, after the one that failed. */
export const firstRetry = Duration.millis(100)
/** The tries after it: 200 ms, doubling, at least every 5 s. */
export const retry = Schedule.exponential(Duration.millis(200)).pipe(Schedule.union(Schedule.spaced("5 seconds")))
/** Ends waiting to be tried again, at most; beyond, an end is left to its bound. */
export const waitingMax = 10_000

/** Ends tried again in the background, for the life of the service's scope. */
export class Ends extends Effect.Service<Ends>()("@pdr/domain/Ends", {
  scoped: Effect.gen(function* () {
    const waiting = yield* FiberSet.make<void, never>()
    /**
     * Runs `action`; if it fails or dies (an adapter's `orDie` of a lost connection), logs `what` and tries it again in
     * the background until it succeeds or `bound` has passed. Never fails: the caller's answer stays its own.
     */
    const end = (what: string, action: Effect.Effect<void>, bound: Duration.Duration): Effect.Effect<void> =>
      Effect.catchAllCause(action, (cause) =>
        Cause.isInterruptedOnly(cause)
          ? Effect.void
          : Effect.flatMap(FiberSet.size(waiting), (n) =>
              n >= waitingMax
                ? Effect.logWarning(
                    `${what} was not written (the store was not reached) and ${n} ends wait already: left to its bound`
                  )
                : Effect.zipRight(
                    Effect.logWarning(
                      `${what} was not written (the store was not reached): tried again until it is`,
                      Cause.squash(cause)
                    ),
                    FiberSet.run(
                      waiting,
                      Effect.sandbox(action).pipe(
                        Effect.retry(retry.pipe(Schedule.upTo(bound))),
                        Effect.delay(firstRetry),
                        Effect.catchAll(() => Effect.logWarning(`${what} was not written before its bound`))
                      )
                    ).pipe(Effect.asVoid)
                  )
            )
      )
    return { end } as const
  })
}) {}
