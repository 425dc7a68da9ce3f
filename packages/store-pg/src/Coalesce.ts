/**
 * Reads coalesced per turn of the event loop: every read asked while the loop is busy (by the requests one poll of
 * the sockets delivered) waits until node's check phase, and one statement answers them all. Each read still reaches
 * the database after it was asked, so nothing is answered from before it (a key revoked before a request arrived is
 * read as revoked); it only shares the round trip with its neighbours.
 */
import { type Cause, Effect, Exit, Runtime } from "effect"

/** Answers `asks` in one statement, one answer per ask, in the same order. */
export type Run<A, R> = (asks: ReadonlyArray<A>) => Effect.Effect<ReadonlyArray<R>>

/** A coalescing read, run on the runtime it is made in. */
export const make = <A, R>(run: Run<A, R>) =>
  Effect.map(Effect.runtime<never>(), (runtime) => {
    const fork = Runtime.runFork(runtime)
    let asks: Array<A> = []
    // each read's waiting fiber, resumed with its answer (issue 22: a bare callback, as GroupCommit's)
    let waiting: Array<(exit: Exit.Exit<R>) => void> = []

    const flush = () => {
      const batch = asks
      const answers = waiting
      asks = []
      waiting = []
      fork(
        Effect.onExit(
          Effect.suspend(() => run(batch)),
          (exit) =>
            Effect.sync(() => {
              for (let i = 0; i < answers.length; i++) {
                answers[i]!(
                  Exit.isSuccess(exit) ? Exit.succeed(exit.value[i]!) : Exit.failCause(exit.cause as Cause.Cause<never>)
                )
              }
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
