// A statement chosen as a deadlock victim (40P01) or refused for serialization (40001) was rolled back whole by the
// server: the ledger runs it again. Any other refusal is answered at once (never retried).
import { SqlError } from "@effect/sql/SqlError"
import { assert, describe, it } from "@effect/vitest"
import { Clock, Duration, Effect, Either, Fiber, TestClock } from "effect"
import { PgLedger } from "../src/index.js"

const refusal = (code: string) =>
  new SqlError({ cause: Object.assign(new Error(code), { code, severity: "ERROR" }), message: "Failed to execute" })

describe("a statement chosen as a deadlock victim", () => {
  it.live("is run again (40P01, 40001) until it goes through; another refusal is not retried", () =>
    Effect.gen(function* () {
      for (const code of ["40P01", "40001"]) {
        let runs = 0
        const statement = Effect.suspend(() => (++runs < 3 ? Effect.fail(refusal(code)) : Effect.succeed("done")))
        assert.strictEqual(yield* PgLedger.againOnDeadlock(statement), "done")
        assert.strictEqual(runs, 3)
      }
      let runs = 0
      const refused = Effect.suspend(() => {
        runs++
        return Effect.fail(refusal("23505"))
      })
      const outcome = yield* Effect.either(PgLedger.againOnDeadlock(refused))
      assert.isTrue(Either.isLeft(outcome))
      assert.strictEqual(runs, 1)
    })
  )

  // issue 22: the retry is set up only after a first failure; the runs and their delays stay those of the schedule
  it.effect("is run at most five times, after 10, 20, 40 and 80 ms, then answered with its last refusal", () =>
    Effect.gen(function* () {
      const at: Array<number> = []
      const victim = Effect.flatMap(Clock.currentTimeMillis, (now) => {
        at.push(now)
        return Effect.fail(refusal(`40P01`))
      })
      const fiber = yield* Effect.fork(Effect.either(PgLedger.againOnDeadlock(victim)))
      yield* TestClock.adjust(Duration.seconds(1))
      const outcome = yield* Fiber.join(fiber)
      assert.isTrue(Either.isLeft(outcome))
      assert.deepStrictEqual(
        at.map((t) => t - at[0]!),
        [0, 10, 30, 70, 150]
      )
    })
  )
})
