/**
 * Reads coalesced per turn of the event loop: every read asked while the loop is busy (by the requests one poll of
 * the sockets delivered) waits until node's check phase, and one statement answers them all. Each read still reaches
 * the database after it was asked, so nothing is answered from before it (a key revoked before a request arrived is
 * read as revoked); it only shares the round trip with its neighbours.
 *
 * When a turn's statement fails because its connection was cut under it, or the database refused it (an ask it
 * cannot take), each of its asks is read again alone, concurrently, as `GroupCommit` retries a failed batch (issue 22,
 * D24): one ask's refusal, or one connection cut under a shared statement, fails only the asks that fail alone, not
 * every request of the turn. A lone ask whose connection was cut (`Failures.cutUnder`) is read again too: the pool's
 * other connections answer it (an idle one the same cut broke may be handed out first). An ask is read at most three
 * times on its own (a lone ask three times in all), 10 ms apart, and only while its connection is cut. A turn that
 * could not have a connection, or had no answer in `DATABASE_ANSWER_TIMEOUT_MS` (its asks waited their bound already),
 * fails as it is: a statement of its own would meet the same.
 */
import { Cause, Duration, Effect, Exit, Runtime } from "effect"
import { cutUnder, refusedWrite } from "./Failures.js"

/** The wait before an ask is read again on its own after its connection was cut. */
const againAfter = Duration.millis(10)

/** Answers `asks` in one statement, one answer per ask, in the same order. */
export type Run<A, R> = (asks: ReadonlyArray<A>) => Effect.Effect<ReadonlyArray<R>>

/** A coalescing read, run on the runtime it is made in. */
export const make = <A, R>(run: Run<A, R>) =>
  Effect.map(Effect.runtime<never>(), (runtime) => {
    const fork = Runtime.runFork(runtime)
    let asks: Array<A> = []
    // each read's waiting fiber, resumed with its answer (issue 22: a bare callback, as GroupCommit's)
    let waiting: Array<(exit: Exit.Exit<R>) => void> = []

    // one ask's own statement, run again (up to `more` times, 10 ms apart: the pool meanwhile drops the idle
    // connections the same cut broke) while its connection is cut
    const alone = (ask: A, more: number): Effect.Effect<R> =>
      Effect.suspend(() => run([ask])).pipe(
        Effect.map((values) => values[0]!),
        Effect.catchAllCause((cause) =>
          more > 0 && cutUnder(cause)
            ? Effect.zipRight(Effect.sleep(againAfter), alone(ask, more - 1))
            : Effect.failCause(cause)
        )
      )

    const flush = () => {
      const batch = asks
      const answers = waiting
      asks = []
      waiting = []
      fork(
        Effect.suspend(() => run(batch)).pipe(
          Effect.matchCauseEffect({
            onSuccess: (values) =>
              Effect.sync(() => {
                for (let i = 0; i < answers.length; i++) answers[i]!(Exit.succeed(values[i]!))
              }),
            onFailure: (cause) =>
              // as it is: nothing another statement would answer (a connection not to be had, no answer in time, an
              // interruption); a lone ask the database refused
              (batch.length === 1 ? !cutUnder(cause) : !cutUnder(cause) && !refusedWrite(cause))
                ? Effect.sync(() => {
                    for (const answer of answers) answer(Exit.failCause(cause as Cause.Cause<never>))
                  })
                : // each ask alone: its own statement, its own answer (or failure); a lone ask's is its second
                  Effect.forEach(
                    batch,
                    (ask, i) =>
                      Effect.exit(alone(ask, batch.length === 1 ? 1 : 2)).pipe(Effect.map((exit) => answers[i]!(exit))),
                    { concurrency: "unbounded", discard: true }
                  )
          })
        )
      )
    }

    return (ask: A): Effect.Effect<R> =>
      Effect.async<R>((resume) => {
        if (asks.length === 0) setImmediate(flush)
        asks.push(ask)
        waiting.push(resume)
      })
  })
