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
import { Cause, Context, Deferred, Duration, Effect, FiberSet, Schedule } from "effect"

/** The first try again, after the one that failed. */
export const firstRetry = Duration.millis(100)
/** The tries after it: 200 ms, doubling, at least every 5 s. */
export const retry = Schedule.exponential(Duration.millis(200)).pipe(Schedule.union(Schedule.spaced("5 seconds")))
/**
 * When an end whose target's writing lost its answer (a claim, a hold: the statement may still be running at the
 * database) is written again, after the first time.
 */
export const lostAgain = [Duration.seconds(1), Duration.seconds(5)]

/** Ends waiting to be tried again, at most; beyond, an end is left to its bound. */
export const waitingMax = 10_000

/**
 * A call's fence (D16, D8): done once the call's own hold is released after a failure. A settle is written only while
 * its hold is held, so from then on a settle of the call whose answer was lost can no longer commit late (a statement
 * held in the network, arriving after the process gave up on it): its idempotency claim can be dropped safely. Given
 * by `Idempotency.run` to the call it runs, completed by `Settle.holding`'s release; a call without a hold of its own
 * (a refresh's draw from its batch's hold) has none.
 */
export class Fence extends Context.Tag("@pdr/domain/Ends/Fence")<
  Fence,
  {
    /** The call placed a hold of its own (set by `Settle.holding`): a fence will come once it is released. */
    ownHold: boolean
    readonly released: Deferred.Deferred<void>
    /**
     * The idempotency claim's claimant: a draw from a shared hold keeps its answer only while the claim is still this
     * run's and in flight, and otherwise charges nothing (D115: the fence of a call without a hold of its own).
     */
    readonly claimant: string
  }
>() {}

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
                    `${what} was not written (the store did not take it) and ${n} ends wait already: left to its bound`
                  )
                : Effect.zipRight(
                    Effect.logWarning(
                      `${what} was not written (the store did not take it): tried again until it is`,
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
    /**
     * `end`, once `fence` is done: at once when it is, else in the background when it is (while `bound` has not
     * passed; then the end is left to its bound, logged).
     */
    const endAfter = (
      what: string,
      fence: Deferred.Deferred<void>,
      action: Effect.Effect<void>,
      bound: Duration.Duration
    ): Effect.Effect<void> =>
      Effect.flatMap(Deferred.isDone(fence), (done) =>
        done
          ? end(what, action, bound)
          : Effect.flatMap(FiberSet.size(waiting), (n) =>
              n >= waitingMax
                ? Effect.logWarning(`${what} waits for its fence and ${n} ends wait already: left to its bound`)
                : FiberSet.run(
                    waiting,
                    Deferred.await(fence).pipe(
                      Effect.timeout(bound),
                      Effect.matchEffect({
                        onFailure: () => Effect.logWarning(`${what} was left to its bound: its fence was not done`),
                        onSuccess: () => end(what, action, bound)
                      })
                    )
                  ).pipe(Effect.asVoid)
            )
      )
    /**
     * `action` again after each of `delays` (from now), in the background; a failure is logged and not tried again.
     * For an end whose target may be written after it: a statement whose answer was lost may still be running at the
     * database (the connection cut under it, the statement already there), and an end that ran first found nothing.
     */
    const again = (what: string, action: Effect.Effect<void>, delays: ReadonlyArray<Duration.Duration>) =>
      Effect.flatMap(FiberSet.size(waiting), (n) =>
        n >= waitingMax
          ? Effect.void
          : FiberSet.run(
              waiting,
              Effect.forEach(
                delays.map((d, i) => Duration.subtract(d, i === 0 ? Duration.zero : delays[i - 1]!)),
                (d) =>
                  Effect.sleep(d).pipe(
                    Effect.zipRight(action),
                    Effect.catchAllCause((cause) =>
                      Cause.isInterruptedOnly(cause)
                        ? Effect.interrupt
                        : Effect.logWarning(`${what} was not written again`, cause)
                    )
                  ),
                { discard: true }
              )
            ).pipe(Effect.asVoid)
      )
    return { end, endAfter, again } as const
  })
}) {}
