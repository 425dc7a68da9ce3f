// Keys' usage buffer: calls are counted in memory and written by flushes (D6). A page that flushes before it reads
// must see every call counted before it, even while another flush is writing (stop 40's CI: the dashboard showed
// "last used: never" for a key just used); a write that fails keeps its counts for the next flush.

import { assert, describe, it } from "@effect/vitest"
import { Deferred, Effect, Fiber, Layer } from "effect"
import { KeyStore, Keys, Ledger } from "../src/index.js"
import * as fakes from "./fakes.js"

type Written = { keys: ReadonlyArray<KeyStore.KeyUsage>; daily: ReadonlyArray<KeyStore.DailyUsage> }

const withStore = (recordUsage: KeyStore.KeyStore["Type"]["recordUsage"]) =>
  Keys.Keys.Default.pipe(
    Layer.provide(fakes.crypto),
    Layer.provide(Layer.succeed(KeyStore.KeyStore, { recordUsage } as unknown as KeyStore.KeyStore["Type"])),
    Layer.provide(Layer.succeed(Ledger.Ledger, {} as unknown as Ledger.Ledger["Type"]))
  )

describe("Keys' usage flush", () => {
  it.live("a flush that finds the buffer taken waits for the write in progress", () =>
    Effect.gen(function* () {
      const started = yield* Deferred.make<void>()
      const release = yield* Deferred.make<void>()
      const written: Array<Written> = []
      const layer = withStore((keys, daily) =>
        Effect.gen(function* () {
          yield* Deferred.succeed(started, undefined)
          yield* Deferred.await(release)
          written.push({ keys, daily: daily ?? [] })
        })
      )
      yield* Effect.gen(function* () {
        const k = yield* Keys.Keys
        yield* k.recordCall("kid_a")
        yield* k.recordOp("kid_a", "maps", "places")
        const periodic = yield* Effect.fork(k.flushUsage())
        yield* Deferred.await(started)
        // the page's flush: nothing left to write, but it must not return before the periodic write is done
        const page = yield* Effect.fork(Effect.map(k.flushUsage(), () => written.length))
        yield* Effect.sleep("50 millis")
        assert.strictEqual(written.length, 0)
        yield* Deferred.succeed(release, undefined)
        assert.strictEqual(yield* Fiber.join(periodic), 1)
        assert.strictEqual(yield* Fiber.join(page), 1, "the page read after the periodic write")
        assert.strictEqual(written[0]!.keys[0]!.calls, 1)
      }).pipe(Effect.provide(layer))
    })
  )

  it.live("a failed write keeps its counts: the next flush writes them with the calls since", () =>
    Effect.gen(function* () {
      let fail = true
      const written: Array<Written> = []
      const layer = withStore((keys, daily) =>
        Effect.suspend(() => {
          if (fail) {
            fail = false
            return Effect.die(new Error("connection lost"))
          }
          written.push({ keys, daily: daily ?? [] })
          return Effect.void
        })
      )
      yield* Effect.gen(function* () {
        const k = yield* Keys.Keys
        yield* k.recordCall("kid_a")
        yield* k.recordOp("kid_a", "maps", "places")
        const exit = yield* Effect.exit(k.flushUsage())
        assert.isTrue(exit._tag === "Failure")
        yield* k.recordCall("kid_a")
        yield* k.recordCall("kid_b")
        yield* k.recordOp("kid_a", "maps", "places")
        assert.strictEqual(yield* k.flushUsage(), 2)
        assert.deepStrictEqual(
          written[0]!.keys.map((u) => [u.keyId, u.calls]),
          [
            ["kid_a", 2],
            ["kid_b", 1]
          ]
        )
        assert.deepStrictEqual(
          written[0]!.daily.map((d) => [d.keyId, d.platform, d.op, d.calls]),
          [["kid_a", "maps", "places", 2]]
        )
        // nothing is written twice
        assert.strictEqual(yield* k.flushUsage(), 0)
        assert.strictEqual(written.length, 1)
      }).pipe(Effect.provide(layer))
    })
  )
})
