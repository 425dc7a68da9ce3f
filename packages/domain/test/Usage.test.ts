// Keys' usage buffer: calls are counted in memory and written by flushes (D6). A page that flushes before it reads
// must see every call counted before it, even while another flush is writing (stop 40's CI: the dashboard showed
// "last used: never" for a key just used); a write that fails keeps its counts for the next flush, as a batch under
// its id, so a write that committed though its answer was lost is not counted twice (D104).

import { assert, describe, it } from "@effect/vitest"
import { Deferred, Effect, Fiber, Layer } from "effect"
import { KeyStore, Keys, Ledger } from "../src/index.js"
import * as fakes from "./fakes.js"

type Written = { keys: ReadonlyArray<KeyStore.KeyUsage>; daily: ReadonlyArray<KeyStore.DailyUsage> }

/** The batches as one write: the counts of every batch, in order. */
const flat = (batches: ReadonlyArray<KeyStore.UsageBatch>): Written => ({
  keys: batches.flatMap((b) => b.usage),
  daily: batches.flatMap((b) => b.daily)
})

/** Calls per key over what was written. */
const totals = (written: ReadonlyArray<Written>) => {
  const out: Record<string, number> = {}
  for (const w of written) for (const u of w.keys) out[u.keyId] = (out[u.keyId] ?? 0) + u.calls
  return out
}

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
      const layer = withStore((batches) =>
        Effect.gen(function* () {
          yield* Deferred.succeed(started, undefined)
          yield* Deferred.await(release)
          written.push(flat(batches))
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

  it.live("a failed write keeps its batch: the next flush sends it again, as it was, with the calls since", () =>
    Effect.gen(function* () {
      let fail = true
      const sent: Array<ReadonlyArray<KeyStore.UsageBatch>> = []
      const written: Array<Written> = []
      const layer = withStore((batches) =>
        Effect.suspend(() => {
          sent.push(batches)
          if (fail) {
            fail = false
            return Effect.die(new Error("connection lost"))
          }
          written.push(flat(batches))
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
        // the failed batch again, under its id, then the new one under another
        assert.strictEqual(sent[1]!.length, 2)
        assert.deepStrictEqual(sent[1]![0], sent[0]![0])
        assert.notStrictEqual(sent[1]![1]!.id, sent[0]![0]!.id)
        assert.deepStrictEqual(totals(written), { kid_a: 2, kid_b: 1 })
        assert.deepStrictEqual(
          written[0]!.daily.map((d) => [d.keyId, d.platform, d.op, d.calls]),
          [
            ["kid_a", "maps", "places", 1],
            ["kid_a", "maps", "places", 1]
          ]
        )
        // nothing is sent twice once written
        assert.strictEqual(yield* k.flushUsage(), 0)
        assert.strictEqual(sent.length, 2)
      }).pipe(Effect.provide(layer))
    })
  )

  it.live(
    "a write that committed though its answer was lost is not counted twice (a store that adds a batch once per id)",
    () =>
      Effect.gen(function* () {
        // the store's contract (PgKeyStore: key_usage_flushes): a batch id written before adds nothing
        const seen = new Set<string>()
        const written: Array<Written> = []
        let loseAnswer = true
        const layer = withStore((batches) =>
          Effect.suspend(() => {
            const fresh = batches.filter((b) => !seen.has(b.id))
            for (const b of fresh) seen.add(b.id)
            written.push(flat(fresh))
            if (loseAnswer) {
              loseAnswer = false
              return Effect.die(new Error("Connection terminated unexpectedly"))
            }
            return Effect.void
          })
        )
        yield* Effect.gen(function* () {
          const k = yield* Keys.Keys
          for (let i = 0; i < 3; i++) yield* k.recordCall("kid_a")
          assert.isTrue((yield* Effect.exit(k.flushUsage()))._tag === "Failure")
          yield* k.recordCall("kid_a")
          yield* k.flushUsage()
          assert.deepStrictEqual(totals(written), { kid_a: 4 })
        }).pipe(Effect.provide(layer))
      })
  )

  it.live("an interrupted write keeps its batch for the next flush (its statement may have committed, or not)", () =>
    Effect.gen(function* () {
      const started = yield* Deferred.make<void>()
      const sent: Array<ReadonlyArray<KeyStore.UsageBatch>> = []
      let hang = true
      const layer = withStore((batches) =>
        Effect.suspend(() => {
          sent.push(batches)
          if (!hang) return Effect.void
          hang = false
          return Effect.zipRight(Deferred.succeed(started, undefined), Effect.never)
        })
      )
      yield* Effect.gen(function* () {
        const k = yield* Keys.Keys
        yield* k.recordCall("kid_a")
        const flush = yield* Effect.fork(k.flushUsage())
        yield* Deferred.await(started)
        yield* Fiber.interrupt(flush)
        yield* k.flushUsage()
        assert.strictEqual(sent.length, 2)
        assert.deepStrictEqual(sent[1], sent[0])
      }).pipe(Effect.provide(layer))
    })
  )
})
