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
 *
 * With `isolate`, a write whose key (an account) another session keeps locked does not hold up the others: a statement
 * that waited its lock timeout (the store's functions set one) fails, and every key of it is isolated: its writes run
 * alone, one at a time per key (one connection waits on a lock, not the pool), tried again every 50 ms while they time
 * out, outside the batches, whose other writes go on; a key leaves isolation once a write of it runs without timing out
 * (its writes still waiting join the batches again). Before (stop 52's probe), an account's row locked by a session left
 * open for 5 s stopped every paid call of every account for those 5 s: each batch waited for the lock.
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
  /** Writes whose key waits on a lock held elsewhere run apart from the batches (above). */
  readonly isolate?: {
    readonly keyOf: (ask: A) => string
    /** Whether a statement failed because it waited its lock timeout (nothing of it happened). */
    readonly lockTimedOut: (cause: Cause.Cause<unknown>) => boolean
    /** Told once when a key's write times out alone: its key is locked elsewhere (not by a batch of this process). */
    readonly onLocked?: (key: string) => Effect.Effect<void>
  }
}

/** How long an isolated write waits before it is tried again after its lock timeout. */
export const isolatedRetryMs = 50

// the keys set apart now, in every group commit of this process (a key set apart by several counted once)
const setApartNow = new Map<string, number>()

/** The keys (accounts) whose writes wait apart now in this process: the gauge `pdr_accounts_locked_elsewhere`. */
export const keysSetApart = (): number => setApartNow.size

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
    const isolate = options.isolate
    // isolated keys: their writes waiting, run one at a time (`pump`); `warned` once one timed out alone
    type Pending = { readonly ask: A; readonly resume: (exit: Exit.Exit<R, E>) => void }
    const isolated = new Map<string, { running: boolean; warned: boolean; readonly queue: Array<Pending> }>()

    const answer = (resume: (exit: Exit.Exit<R, E>) => void, exit: Exit.Exit<R, E>) => resume(exit)

    /** Sets `key` apart (if it is not already) with these writes. */
    const isolateKey = (key: string, pending: ReadonlyArray<Pending>) => {
      let entry = isolated.get(key)
      if (entry === undefined) {
        entry = { running: false, warned: false, queue: [] }
        isolated.set(key, entry)
        setApartNow.set(key, (setApartNow.get(key) ?? 0) + 1)
      }
      entry.queue.push(...pending)
      pump(key)
    }

    /** Runs the next write of an isolated key alone, unless one runs. */
    const pump = (key: string) => {
      const entry = isolated.get(key)
      if (entry === undefined || entry.running) return
      const next = entry.queue.shift()
      if (next === undefined) return
      entry.running = true
      fork(
        Effect.flatMap(Effect.exit(Effect.suspend(() => options.alone(next.ask))), (exit) =>
          Effect.sync(() => {
            entry.running = false
            if (Exit.isFailure(exit) && isolate!.lockTimedOut(exit.cause)) {
              // still locked elsewhere: tried again, first in its key's line
              entry.queue.unshift(next)
              if (!entry.warned) {
                entry.warned = true
                if (isolate!.onLocked !== undefined) fork(isolate!.onLocked(key))
              }
              setTimeout(() => pump(key), isolatedRetryMs)
              return
            }
            answer(next.resume, exit)
            // the key takes its locks again: its waiting writes join the batches
            isolated.delete(key)
            const left = (setApartNow.get(key) ?? 1) - 1
            if (left > 0) setApartNow.set(key, left)
            else setApartNow.delete(key)
            for (const p of entry.queue) {
              asks.push(p.ask)
              waiting.push(p.resume)
            }
            if (asks.length > 0 && !scheduled && inFlight < options.maxInFlight) schedule()
          })
        )
      )
    }

    const settled = () => {
      inFlight--
      if (asks.length > 0 && !scheduled) schedule()
    }

    const schedule = () => {
      scheduled = true
      setImmediate(flush)
    }

    /** The writes of isolated keys taken out of the line, to their keys' own. */
    const setApart = () => {
      const keep: Array<A> = []
      const keepWaiting: Array<(exit: Exit.Exit<R, E>) => void> = []
      for (let i = 0; i < asks.length; i++) {
        const key = isolate!.keyOf(asks[i]!)
        if (isolated.has(key)) isolateKey(key, [{ ask: asks[i]!, resume: waiting[i]! }])
        else {
          keep.push(asks[i]!)
          keepWaiting.push(waiting[i]!)
        }
      }
      asks = keep
      waiting = keepWaiting
    }

    /** A statement of these writes waited its lock timeout: each key set apart with its writes. */
    const lockedOut = (batch: ReadonlyArray<A>, answers: ReadonlyArray<(exit: Exit.Exit<R, E>) => void>) => {
      const byKey = new Map<string, Array<Pending>>()
      batch.forEach((ask, i) => {
        const key = isolate!.keyOf(ask)
        const list = byKey.get(key)
        const p = { ask, resume: answers[i]! }
        if (list === undefined) byKey.set(key, [p])
        else list.push(p)
      })
      for (const [key, pending] of byKey) isolateKey(key, pending)
    }

    const flush = () => {
      scheduled = false
      if (isolated.size > 0) setApart()
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
                  if (isolate !== undefined && Exit.isFailure(exit) && isolate.lockTimedOut(exit.cause))
                    lockedOut(batch, answers)
                  else answer(answers[0]!, exit)
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
                isolate?.lockTimedOut(failure)
                  ? Effect.sync(() => {
                      lockedOut(batch, answers)
                      settled()
                    })
                  : // the batch is done at the database (failed): the next one may go while its writes are retried
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
