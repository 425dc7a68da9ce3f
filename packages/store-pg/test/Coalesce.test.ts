// Coalesced reads: one statement per turn of the event loop, each ask its own answer, a failure confined to its turn.

import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit } from "effect"
import * as Coalesce from "../src/Coalesce.js"

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

  it.effect("a run that fails, or throws, fails the asks of its turn only", () =>
    Effect.gen(function* () {
      const read = yield* Coalesce.make((asks: ReadonlyArray<string>) =>
        asks.includes("boom")
          ? Effect.die(new Error("the statement failed"))
          : asks.includes("throw")
            ? (() => {
                throw new Error("thrown while building the statement")
              })()
            : Effect.succeed(asks.map((a) => a.toUpperCase()))
      )
      const failed = yield* Effect.all([read("a").pipe(Effect.exit), read("boom").pipe(Effect.exit)], {
        concurrency: "unbounded"
      })
      assert.isTrue(failed.every(Exit.isFailure))
      const thrown = yield* Effect.exit(read("throw"))
      assert.isTrue(Exit.isFailure(thrown))
      assert.strictEqual(yield* read("b"), "B")
    })
  )
})
