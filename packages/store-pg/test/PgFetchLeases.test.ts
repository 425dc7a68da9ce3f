// Issue 22: fetch leases across instances. A taken lease refuses a second take until it is released or runs out; the
// takes of one turn share a statement and each is answered as if alone (a key asked twice in one batch is taken
// once); keys with quotes, backslashes and control characters are the same key in a batch and alone.
import { assert, describe, layer } from "@effect/vitest"
import { FetchLeases } from "@pdr/domain"
import { Effect, Layer, Option } from "effect"
import { Database, PgFetchLeases } from "../src/index.js"
import * as Testing from "../src/Testing.js"

const targets = await Testing.targets()

for (const t of targets) {
  describe.skipIf(!t.enabled)(`FetchLeases on ${t.name}`, () => {
    const leasesLayer = PgFetchLeases.layer.pipe(
      Layer.provideMerge(Layer.unwrapScoped(Effect.map(t.target, Database.layer)))
    )
    layer(leasesLayer, { timeout: "60 seconds" })((it) => {
      it.effect("a taken lease refuses another take until it is released or runs out", () =>
        Effect.gen(function* () {
          const leases = yield* FetchLeases.FetchLeases
          const key = `maps/places/"odd\\key\n\u0001'/{}#1`
          const first = yield* leases.take(key, 60_000)
          assert.isTrue(Option.isSome(first) && first.value !== "")
          assert.isTrue(Option.isNone(yield* leases.take(key, 60_000)))
          // a release with another token gives nothing back
          yield* leases.release(key, "not-the-token")
          assert.isTrue(Option.isNone(yield* leases.take(key, 60_000)))
          yield* leases.release(key, Option.getOrThrow(first))
          const again = yield* leases.take(key, 150)
          assert.isTrue(Option.isSome(again))
          // never released: taken again once it runs out
          assert.isTrue(Option.isNone(yield* leases.take(key, 150)))
          yield* Effect.promise(() => new Promise((r) => setTimeout(r, 300)))
          assert.isTrue(Option.isSome(yield* leases.take(key, 60_000)))
        })
      )

      it.effect(
        "the takes of one turn share a statement, each answered as alone; a key asked twice is taken once",
        () =>
          Effect.gen(function* () {
            const leases = yield* FetchLeases.FetchLeases
            const keys = Array.from({ length: 40 }, (_, i) => `batch/"${i % 20}"\\\t\u0002`)
            const taken = yield* Effect.all(
              keys.map((k) => leases.take(k, 60_000)),
              { concurrency: "unbounded" }
            )
            const won = new Map<string, number>()
            for (const [i, k] of keys.entries()) if (Option.isSome(taken[i]!)) won.set(k, (won.get(k) ?? 0) + 1)
            // 20 distinct keys, each taken exactly once
            assert.strictEqual(won.size, 20)
            assert.isTrue([...won.values()].every((n) => n === 1))
            // alone, the same keys are held
            for (const k of keys.slice(0, 20)) assert.isTrue(Option.isNone(yield* leases.take(k, 60_000)))
            // released together, they can be taken again
            yield* Effect.all(
              keys.flatMap((k, i) => {
                const token = taken[i]!
                return Option.isSome(token) ? [leases.release(k, token.value)] : []
              }),
              { concurrency: "unbounded" }
            )
            for (const k of keys.slice(0, 20)) assert.isTrue(Option.isSome(yield* leases.take(k, 60_000)))
          })
      )
    })
  })
}
