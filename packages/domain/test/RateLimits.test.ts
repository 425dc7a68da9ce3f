// D12: token buckets refill at their rate up to the burst, report remaining and reset, and survive a clock step back.
import { assert, describe, it } from "@effect/vitest"
import { Effect, TestClock } from "effect"
import { RateLimits } from "../src/index.js"

describe("RateLimits", () => {
  it.effect("a bucket allows its burst, then one token per 1/rate seconds", () =>
    Effect.gen(function* () {
      const b = RateLimits.buckets({ name: "t", perSecond: 2, burst: 3 })
      const first = yield* Effect.forEach([1, 2, 3, 4], () => b.take("k"))
      assert.deepStrictEqual(
        first.map((d) => [d.allowed, d.remaining]),
        [
          [true, 2],
          [true, 1],
          [true, 0],
          [false, 0]
        ]
      )
      assert.strictEqual(first[3]!.resetSeconds, 1)
      yield* TestClock.adjust("500 millis")
      assert.isTrue((yield* b.take("k")).allowed)
      assert.isFalse((yield* b.take("k")).allowed)
      assert.isTrue((yield* b.take("other")).allowed, "buckets are per key")
      yield* TestClock.adjust("1 hour")
      assert.strictEqual((yield* b.peek("k")).remaining, 3, "never above the burst")
    })
  )

  it.effect("a clock that steps back neither refills nor drains", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(10_000_000)
      const b = RateLimits.buckets({ name: "t", perSecond: 1, burst: 2 })
      yield* b.take("k")
      yield* TestClock.setTime(5_000_000)
      assert.deepStrictEqual(yield* b.peek("k"), { allowed: true, remaining: 1, resetSeconds: 0 })
    })
  )

  it("headers follow the draft-10 structured form", () => {
    const p = { name: "default", perSecond: 20, burst: 40 }
    assert.strictEqual(RateLimits.policyHeader(p), '"default";q=40;w=2')
    assert.strictEqual(
      RateLimits.stateHeader(p, { allowed: true, remaining: 12, resetSeconds: 0 }),
      '"default";r=12;t=0'
    )
  })
})
