/**
 * Group commit (issue 22): the writes of concurrent calls gathered into shared statements. Every write asked while the
 * loop is busy waits until node's check phase (as `Coalesce`), or, when `maxInFlight` batches are already at the
 * database, until one of them is answered; then up to `maxBatch` of them go in one statement (one transaction, one
 * commit). A write never waits for more than the batches ahead of it.
 *
 * A lone write runs `alone`, its statement as it always was. When a batch's statement fails, nothing of it happened
 * (or, after a lost connection, maybe all of it): each of its writes is then run by `retry`, concurrently, with the
 * batch's failure, so one write's failure (a refused write, a lost connection) is answered to that write as it would
 * have been alone and only delays the others by their retry; the next batch goes on.
 */
import type { Cause } from "effect"
import { Effect, Either, Exit, Runtime } from "effect"

/** How a batch is answered and how a write runs alone. */
export interface Options<A, R, E, F> {
  /** One statement for `asks` (at least two), one answer (or error) per ask, in the same order. */
  readonly run: (asks: ReadonlyArray<A>) => Effect.Effect<ReadonlyArray<Either.Either<R, E>>, F>
  /** One write alone, as it runs when nothing else is asked with it. */
  readonly alone: (ask: A) => Effect.Effect<R, E>
  /** One write of a failed batch, knowing why the batch failed. */
  readonly retry: (ask: A, failure: Cause.Cause<F>) => Effect.Effect<R, E>
  readonly maxBatch: number
  readonly maxInFlight: number
}

/** A group-committing write, run on the runtime it is made in. */
export const make = <A, R, E, F>(options: Options<A, R, E, F>) =>
  Effect.map(Effect.runtime<never>(), (runtime) => {
    const fork = Runtime.runFork(runtime)
    let asks: Array<A> = []
    // each write's waiting fiber, resumed with its answer (issue 22: a bare callback, not a Deferred: awaiting one is
    // an interruptible async with a canceler, about eight steps of the fiber's runtime; an interrupted write's late
    // answer is dropped by its fiber, as a Deferred's would be)
    let waiting: Array<(exit: Exit.Exit<R, E>) => void> = []
    let inFlight = 0
    let scheduled = false

    const answer = (resume: (exit: Exit.Exit<R, E>) => void, exit: Exit.Exit<R, E>) => resume(exit)

    const settled = () => {
      inFlight--
      if (asks.length > 0 && !scheduled) schedule()
    }

    const schedule = () => {
      scheduled = true
      setImmediate(flush)
    }

    const flush = () => {
      scheduled = false
      while (asks.length > 0 && inFlight < options.maxInFlight) {
        const batch = asks.slice(0, options.maxBatch)
        const answers = waiting.slice(0, options.maxBatch)
        asks = asks.slice(batch.length)
        waiting = waiting.slice(answers.length)
        inFlight++
        if (batch.length === 1) {
          fork(
            Effect.onExit(
              Effect.suspend(() => options.alone(batch[0]!)),
              (exit) =>
                Effect.sync(() => {
                  answer(answers[0]!, exit)
                  settled()
                })
            )
          )
          continue
        }
        fork(
          Effect.suspend(() => options.run(batch)).pipe(
            Effect.matchCauseEffect({
              onSuccess: (results) =>
                Effect.sync(() => {
                  for (let i = 0; i < answers.length; i++) {
                    const result = results[i]!
                    answer(answers[i]!, Either.isRight(result) ? Exit.succeed(result.right) : Exit.fail(result.left))
                  }
                  settled()
                }),
              onFailure: (failure) =>
                // the batch is done at the database (failed): the next one may go while its writes are retried
                Effect.sync(settled).pipe(
                  Effect.zipRight(
                    Effect.forEach(
                      batch,
                      (ask, i) =>
                        Effect.exit(Effect.suspend(() => options.retry(ask, failure))).pipe(
                          Effect.map((exit) => answer(answers[i]!, exit))
                        ),
                      { concurrency: "unbounded", discard: true }
                    )
                  )
                )
            })
          )
        )
      }
    }

    return (ask: A): Effect.Effect<R, E> =>
      Effect.async<R, E>((resume) => {
        asks.push(ask)
        waiting.push(resume)
        if (!scheduled && inFlight < options.maxInFlight) schedule()
      })
  })
