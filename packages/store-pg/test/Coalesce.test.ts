// Coalesced reads: one statement per turn of the event loop, each ask its own answer; a failed turn read ask by ask.

import { SqlError } from "@effect/sql/SqlError"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit } from "effect"
import * as Coalesce from "../src/Coalesce.js"
import * as PgLedger from "../src/PgLedger.js"

describe("Coalesce", () => {
  it.effect("asks of one turn share one run and each gets its own answer, in order", () =>
    Effect.gen(function* () {
      const runs: Array<ReadonlyArray<number>> = []
      const read = yield* Coalesce.make((asks: ReadonlyArray<number>) =>
        Effect.sync(() => {
          runs.push(asks)
          return asks.map((n) => n * 10)
        })
      )
      const first = yield* Effect.all([read(1), read(2), read(2), read(3)], { concurrency: "unbounded" })
      const second = yield* read(4)
      assert.deepStrictEqual(first, [10, 20, 20, 30])
      assert.strictEqual(second, 40)
      assert.deepStrictEqual(runs, [[1, 2, 2, 3], [4]])
    })
  )

  it.effect("a turn whose run fails, or throws, is read again ask by ask: only the asks that fail alone fail", () =>
    Effect.gen(function* () {
      const runs: Array<ReadonlyArray<string>> = []
      const read = yield* Coalesce.make((asks: ReadonlyArray<string>) => {
        runs.push(asks)
        return asks.includes("boom")
          ? Effect.die(new Error("the statement failed"))
          : asks.includes("throw")
            ? (() => {
                throw new Error("thrown while building the statement")
              })()
            : Effect.succeed(asks.map((a) => a.toUpperCase()))
      })
      const turn = yield* Effect.all(
        ["a", "boom", "b", "throw", "c"].map((a) => read(a).pipe(Effect.exit)),
        { concurrency: "unbounded" }
      )
      assert.deepStrictEqual(
        turn.map((e) => (Exit.isSuccess(e) ? e.value : "failed")),
        ["A", "failed", "B", "failed", "C"]
      )
      // the turn's statement, then each ask alone
      assert.deepStrictEqual(runs[0], ["a", "boom", "b", "throw", "c"])
      assert.deepStrictEqual([...runs.slice(1)].sort(), [["a"], ["b"], ["boom"], ["c"], ["throw"]])
      // a lone ask the statement refuses (here: not a failure of the database at all) is not run twice
      runs.length = 0
      assert.isTrue(Exit.isFailure(yield* Effect.exit(read("boom"))))
      assert.deepStrictEqual(runs, [["boom"]])
      assert.strictEqual(yield* read("d"), "D")
    })
  )

  it.live("a connection lost under a turn's statement fails none of its asks that read alone", () =>
    Effect.gen(function* () {
      // node-postgres' error for a connection cut under a statement (no SQLSTATE, no severity), as @effect/sql wraps it
      const lost = Effect.die(
        new SqlError({ cause: new Error("Connection terminated unexpectedly"), message: "Failed to execute statement" })
      )
      // the first statement's connection is cut (its answer never comes back); the asks read again alone succeed
      let statements = 0
      const read = yield* Coalesce.make((asks: ReadonlyArray<number>) =>
        Effect.suspend(() => (++statements === 1 || statements === 10 ? lost : Effect.succeed(asks.map((n) => n + 1))))
      )
      const answers = yield* Effect.all(
        Array.from({ length: 8 }, (_, i) => read(i)),
        { concurrency: "unbounded" }
      )
      assert.deepStrictEqual(answers, [1, 2, 3, 4, 5, 6, 7, 8])
      assert.strictEqual(statements, 9)
      // a lone ask whose connection was lost is read once more (the 10th statement is cut, the 11th answers)
      assert.strictEqual(yield* read(41), 42)
      assert.strictEqual(statements, 11)
      // cut every time: it fails after three statements (read at most three times alone, 10 ms apart)
      const cut = yield* Coalesce.make((_: ReadonlyArray<number>) =>
        Effect.zipRight(
          Effect.sync(() => statements++),
          lost
        )
      )
      statements = 0
      assert.isTrue(Exit.isFailure(yield* Effect.exit(cut(1))))
      assert.strictEqual(statements, 3)
      // a statement without an answer in DATABASE_ANSWER_TIMEOUT_MS (the watch closed its connection): its turn fails
      // as it is, every ask having waited its bound already
      const unanswered = yield* Coalesce.make((_: ReadonlyArray<number>) =>
        Effect.zipRight(
          Effect.sync(() => statements++),
          Effect.die(
            new SqlError({ cause: new Error(PgLedger.unansweredMessage(2000)), message: "Failed to execute statement" })
          )
        )
      )
      statements = 0
      const turn = yield* Effect.all(
        [1, 2, 3].map((n) => Effect.exit(unanswered(n))),
        { concurrency: "unbounded" }
      )
      assert.isTrue(turn.every(Exit.isFailure))
      assert.strictEqual(statements, 1)
      statements = 0
      assert.isTrue(Exit.isFailure(yield* Effect.exit(unanswered(4))))
      assert.strictEqual(statements, 1)
    })
  )
})
