// The nightly refresh replays the watch list through the same core: stale entries are billed and add history
// points, fresh ones are free, and a bad entry is reported without stopping the run.
import { assert, describe, layer } from "@effect/vitest"
import { Accounts, Calls, Ledger } from "@pdr/domain"
import { Database, NodeCrypto, PgKeyStore, PgLedger, PgMeasurements } from "@pdr/store-pg"
import * as Testing from "@pdr/store-pg/Testing"
import { SyntheticUpstream } from "@pdr/upstream-synthetic"
import { Effect, Layer, Option, TestClock } from "effect"
import * as Refresh from "../src/Refresh.js"

const targets = await Testing.targets()
const start = Date.parse("2026-11-21T03:00:00Z")

const watchList = [
  { platform: "short_video", request: { op: "profiles", subjects: ["jane.doe", "@Some.One"] } },
  { platform: "maps", request: { op: "places", subjects: ["ChIJabcdefghijk"] } },
  { platform: "maps", request: { op: "places", subjects: ["not a place"] } }
]

for (const t of targets) {
  describe.skipIf(!t.enabled)(`Refresh on ${t.name}`, () => {
    const services = Layer.mergeAll(Calls.Calls.Default, Accounts.Accounts.Default).pipe(
      Layer.provideMerge(
        Layer.mergeAll(
          PgLedger.layer,
          PgKeyStore.layer,
          PgMeasurements.layer,
          NodeCrypto.layer,
          SyntheticUpstream.layer()
        )
      ),
      Layer.provideMerge(Layer.unwrapScoped(Effect.map(t.target, Database.layer)))
    )
    layer(services, { timeout: "60 seconds" })((it) => {
      it.effect(
        "a nightly run bills stale entries, serves fresh ones free, and grows the history by one point a night",
        () =>
          Effect.gen(function* () {
            yield* TestClock.setTime(start)
            const accounts = yield* Accounts.Accounts
            const ledger = yield* Ledger.Ledger
            const calls = yield* Calls.Calls
            const account = yield* accounts.create({ name: "refresh", credits: 1000 })
            const first = yield* Refresh.run(account.id, watchList)
            assert.deepStrictEqual(
              [first.fetched, first.stored, first.failed, first.creditsCharged],
              [3, 0, 1, 2 * 2 + 4]
            )
            assert.strictEqual(first.errors[0]!.code, "InvalidRequest")
            const again = yield* Refresh.run(account.id, watchList)
            assert.deepStrictEqual([again.fetched, again.stored, again.creditsCharged], [0, 3, 0])
            yield* TestClock.adjust("7 days")
            const nextWeek = yield* Refresh.run(account.id, watchList)
            assert.deepStrictEqual([nextWeek.fetched, nextWeek.creditsCharged], [3, 8])
            const caller = { accountId: account.id, keyId: "k", prefix: "p" }
            const history = yield* calls.call(caller, "short_video", {
              request: { op: "history", subjects: ["jane.doe"] }
            })
            assert.strictEqual((history.data[0]!["points"] as ReadonlyArray<unknown>).length, 2)
            const balance = Option.getOrThrow(yield* ledger.findAccount(account.id)).balance
            assert.strictEqual(balance, 1000 - 16)
          })
      )
    })
  })
}
