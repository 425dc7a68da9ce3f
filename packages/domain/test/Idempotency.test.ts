// Idempotency.run over a recording store (D16): the key is checked before the store is asked; the claim's bounds come
// from the clock and the call's settings; a kept answer (< 500) is completed, unless the settle kept it; a 5xx, a
// failure or a defect abandons the claim; what the store finds (replay, mismatch, in flight) is answered as it is.
import { assert, describe, it } from "@effect/vitest"
import { Clock, Deferred, Duration, Effect, Exit, Layer, TestClock } from "effect"
import { CallSettings } from "../src/CallSettings.js"
import { Ends, Idempotency, IdempotencyStore, Ledger } from "../src/index.js"
import { crypto } from "./fakes.js"

type Begin = IdempotencyStore.Begin

const recording = (found: Begin) => {
  const seen: Array<string> = []
  const claims: Array<{ now: number; staleBefore: number; expiresAt: number; claimant: string }> = []
  const layer = Idempotency.Idempotency.Default.pipe(
    Layer.provide(
      Layer.succeed(IdempotencyStore.IdempotencyStore, {
        begin: (input) =>
          Effect.sync(() => {
            seen.push("begin")
            claims.push({
              now: input.now.getTime(),
              staleBefore: input.staleBefore.getTime(),
              expiresAt: input.expiresAt.getTime(),
              claimant: input.claimant
            })
            return found
          }),
        complete: (c) => Effect.sync(() => void seen.push(`complete ${c.status} ${String(c.body)} ${c.claimant}`)),
        abandon: (c) => Effect.sync(() => void seen.push(`abandon ${c.claimant}`)),
        renew: () => Effect.succeed(true),
        purgeExpired: () => Effect.succeed(0)
      })
    ),
    Layer.provide(crypto)
  )
  return { seen, claims, layer }
}

const input = { accountId: "acc_1", key: "key-1", fingerprint: "f" }

describe("Idempotency.run", () => {
  it.effect("checks the key before the store; claims with the clock's bounds; completes what it keeps", () =>
    Effect.gen(function* () {
      const r = recording({ _tag: "Started" })
      yield* TestClock.setTime(1_000_000)
      const bad = yield* Effect.exit(
        Effect.flatMap(Idempotency.Idempotency, (i) =>
          i.run({ ...input, key: "with space" }, Effect.succeed({ status: 200, body: "x" }))
        ).pipe(Effect.provide(r.layer))
      )
      assert.isTrue(Exit.isFailure(bad) && JSON.stringify(bad.cause).includes("IdempotencyKeyInvalid"))
      assert.deepStrictEqual(r.seen, [])
      const settings = { ...CallSettings.defaultValue(), holdTtl: Duration.minutes(7) }
      const ok = yield* Effect.flatMap(Idempotency.Idempotency, (i) =>
        i.run(input, Effect.succeed({ status: 201, body: "kept" }))
      ).pipe(Effect.provide(r.layer), Effect.provideService(CallSettings, settings))
      assert.deepStrictEqual(ok, { status: 201, body: "kept", replayed: false })
      const claim = r.claims[0]!
      assert.strictEqual(claim.now, 1_000_000)
      assert.strictEqual(claim.now - claim.staleBefore, Duration.toMillis(Duration.minutes(7)))
      assert.strictEqual(claim.expiresAt - claim.now, Duration.toMillis(Idempotency.retention))
      assert.isTrue(claim.claimant.startsWith("clm_"))
      assert.deepStrictEqual(r.seen, ["begin", `complete 201 kept ${claim.claimant}`])
    })
  )

  it.effect(
    "abandons on a 5xx, a failure and a defect; leaves what the settle kept; answers what the store found",
    () =>
      Effect.gen(function* () {
        const run = (found: Begin, answer: Effect.Effect<Idempotency.Kept, string>) => {
          const r = recording(found)
          return Effect.map(
            Effect.exit(
              Effect.flatMap(Idempotency.Idempotency, (i) => i.run(input, answer)).pipe(Effect.provide(r.layer))
            ),
            (exit) => ({ exit, seen: r.seen.map((s) => s.replace(/clm_\w+/, "clm")) })
          )
        }
        const started = { _tag: "Started" } as const
        const a = yield* run(started, Effect.succeed({ status: 503, body: "busy" }))
        assert.deepStrictEqual(a.seen, ["begin", "abandon clm"])
        assert.deepStrictEqual(a.exit, Exit.succeed({ status: 503, body: "busy", replayed: false }))
        const b = yield* run(started, Effect.fail("no"))
        assert.deepStrictEqual(b.seen, ["begin", "abandon clm"])
        assert.deepStrictEqual(b.exit, Exit.fail("no"))
        const c = yield* run(started, Effect.die("boom"))
        assert.deepStrictEqual(c.seen, ["begin", "abandon clm"])
        assert.isTrue(Exit.isFailure(c.exit))
        const d = yield* run(started, Effect.succeed({ status: 200, body: "k", keptBySettle: true }))
        assert.deepStrictEqual(d.seen, ["begin"])
        assert.deepStrictEqual(d.exit, Exit.succeed({ status: 200, body: "k", keptBySettle: true, replayed: false }))
        const e = yield* run({ _tag: "Replay", status: 402, body: "was" }, Effect.die("not run"))
        assert.deepStrictEqual(e.exit, Exit.succeed({ status: 402, body: "was", replayed: true }))
        const f = yield* run({ _tag: "Mismatch" }, Effect.die("not run"))
        assert.isTrue(Exit.isFailure(f.exit) && JSON.stringify(f.exit.cause).includes("IdempotencyMismatch"))
        const g = yield* run({ _tag: "InFlight" }, Effect.die("not run"))
        assert.isTrue(Exit.isFailure(g.exit) && JSON.stringify(g.exit.cause).includes("IdempotencyInFlight"))
        assert.deepStrictEqual([e.seen, f.seen, g.seen], [["begin"], ["begin"], ["begin"]])
      })
  )

  it.effect(
    "an end the store did not get changes no answer and is tried again until it is written, within the stale bound",
    () =>
      Effect.gen(function* () {
        // a store that loses its connection: `complete` and `abandon` die (as the adapters' orDie does) `lost` times
        const flaky = (lost: number) => {
          const attempts: Array<string> = []
          let left = lost
          const layer = Idempotency.Idempotency.Default.pipe(
            Layer.provide(
              Layer.succeed(IdempotencyStore.IdempotencyStore, {
                begin: () => Effect.succeed({ _tag: "Started" } as const),
                complete: (c) =>
                  Effect.flatMap(Clock.currentTimeMillis, (t) => {
                    attempts.push(`complete ${c.status} at ${t}`)
                    return left-- > 0 ? Effect.die(new Error("Connection terminated unexpectedly")) : Effect.void
                  }),
                abandon: () =>
                  Effect.flatMap(Clock.currentTimeMillis, (t) => {
                    attempts.push(`abandon at ${t}`)
                    return left-- > 0 ? Effect.die(new Error("Connection terminated unexpectedly")) : Effect.void
                  }),
                renew: () => Effect.succeed(true),
                purgeExpired: () => Effect.succeed(0)
              })
            ),
            Layer.provide(crypto)
          )
          return { attempts, layer }
        }
        const run = (answer: Effect.Effect<Idempotency.Kept, string>) =>
          Effect.exit(Effect.flatMap(Idempotency.Idempotency, (i) => i.run(input, answer)))

        // a 5xx: answered as it is at once, the claim dropped on the third try (100 ms, then 200 ms later)
        const a = flaky(2)
        yield* Effect.gen(function* () {
          const exit = yield* run(Effect.succeed({ status: 500, body: "lost" }))
          assert.deepStrictEqual(exit, Exit.succeed({ status: 500, body: "lost", replayed: false }))
          assert.deepStrictEqual(a.attempts, ["abandon at 0"])
          yield* TestClock.adjust(Duration.millis(100))
          yield* TestClock.adjust(Duration.millis(200))
          yield* TestClock.adjust(Duration.seconds(60))
          assert.deepStrictEqual(a.attempts, ["abandon at 0", "abandon at 100", "abandon at 300"])
        }).pipe(Effect.provide(a.layer))

        // a 4xx failure: the failure itself, not a defect; a kept answer: answered, then written on the second try
        const b = flaky(2)
        yield* Effect.gen(function* () {
          yield* TestClock.setTime(0)
          const failed = yield* run(Effect.fail("insufficient"))
          assert.deepStrictEqual(failed, Exit.fail("insufficient"))
          const kept = yield* run(Effect.succeed({ status: 201, body: "kept" }))
          assert.deepStrictEqual(kept, Exit.succeed({ status: 201, body: "kept", replayed: false }))
          yield* TestClock.adjust(Duration.millis(100))
          assert.deepStrictEqual(b.attempts.sort(), [
            "abandon at 0",
            "abandon at 100",
            "complete 201 at 0",
            "complete 201 at 100"
          ])
        }).pipe(Effect.provide(b.layer))

        // D115: a draw from a shared hold whose outcome is unknown (its statement sent, its answer lost: it may commit
        // late) is fenced by its claim (it keeps its answer only while the claim is this run's and in flight), so the
        // claim is dropped now and, when the store was not reached, tried again as any end; the settle is given the
        // claimant to be fenced by
        const u = flaky(1)
        yield* Effect.gen(function* () {
          yield* TestClock.setTime(0)
          const unknown = new Ledger.SettleOutcomeUnknown({ detail: "connection lost" })
          let claimant: string | undefined
          const exit = yield* run(
            Effect.flatMap(Ends.Fence, (f) => {
              claimant = f.claimant
              return Effect.fail(unknown)
            }) as unknown as Effect.Effect<Idempotency.Kept, string>
          )
          assert.isTrue(Exit.isFailure(exit) && JSON.stringify(exit.cause).includes("SettleOutcomeUnknown"))
          assert.match(claimant ?? "", /^clm_/)
          yield* TestClock.adjust(Duration.seconds(60))
          assert.deepStrictEqual(u.attempts, ["abandon at 0", "abandon at 100"])
        }).pipe(Effect.provide(u.layer))

        // the same with a hold of its own (Settle.holding marks it): the claim is dropped once the hold is released
        // (its fence: a settle needs its hold held, so none can commit after), not before, however late
        const fenced = flaky(0)
        yield* Effect.gen(function* () {
          yield* TestClock.setTime(0)
          const unknown = new Ledger.SettleOutcomeUnknown({ detail: "connection lost" })
          let released: Deferred.Deferred<void> | undefined
          yield* run(
            Effect.flatMap(Ends.Fence, (f) => {
              f.ownHold = true
              released = f.released
              return Effect.fail(unknown)
            }) as unknown as Effect.Effect<Idempotency.Kept, string>
          )
          yield* TestClock.adjust(Duration.seconds(10))
          assert.deepStrictEqual(fenced.attempts, [], "not dropped while the hold may still be settled")
          yield* Deferred.succeed(released!, undefined)
          yield* TestClock.adjust(Duration.millis(1))
          assert.deepStrictEqual(fenced.attempts, ["abandon at 10000"])
        }).pipe(Effect.provide(fenced.layer))

        // a store never reached: tried at least every 5 s, and not once the stale bound (here 30 s) has passed: the
        // last try is the one decided before it, at most one spacing later
        const c = flaky(1_000)
        const settings = { ...CallSettings.defaultValue(), holdTtl: Duration.seconds(30) }
        yield* Effect.gen(function* () {
          yield* TestClock.setTime(0)
          yield* run(Effect.succeed({ status: 502, body: "down" }))
          for (let s = 0; s < 120; s++) yield* TestClock.adjust(Duration.seconds(1))
          const at = c.attempts.map((x) => Number(x.split(" at ")[1]))
          assert.deepStrictEqual(at.slice(0, 6), [0, 100, 300, 700, 1_500, 3_100])
          assert.isTrue(
            at.every((t, i) => i === 0 || t - at[i - 1]! <= 5_000),
            at.join(" ")
          )
          assert.isAtLeast(at.at(-1)!, 30_000)
          assert.isAtMost(at.at(-1)!, 30_000 + 100 + 5_000)
          const tries = c.attempts.length
          for (let s = 0; s < 60; s++) yield* TestClock.adjust(Duration.seconds(1))
          assert.strictEqual(c.attempts.length, tries, "no try after the stale bound")
        }).pipe(Effect.provide(c.layer), Effect.provideService(CallSettings, settings))
      })
  )
})
