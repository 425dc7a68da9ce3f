// D16 idempotency claims, group-committed (issue 19: the refresh claims one key per entity): the claims of one turn
// share a statement and each is answered as if alone, on both storage targets. Concurrent claims of one key: exactly
// one is Started, the others InFlight (or Mismatch for another fingerprint); a completed key replays; an expired record
// or a stale in-flight claim is claimed again, in a batch with others too; quotes and backslashes are one key.
import { SqlClient } from "@effect/sql"
import { assert, describe, layer } from "@effect/vitest"
import { IdempotencyStore } from "@pdr/domain"
import { Effect, Layer } from "effect"
import { Database, PgIdempotencyStore } from "../src/index.js"
import * as Testing from "../src/Testing.js"

const targets = await Testing.targets()

/** The account the keys belong to. */
const withAccount = Effect.flatMap(
  SqlClient.SqlClient,
  (sql) => sql`INSERT INTO accounts (id, name) VALUES ('acct_idem', 'idempotency') ON CONFLICT DO NOTHING`
)

let asked = 0
const ask = (
  key: string,
  fingerprint: string,
  at: number,
  options: { staleMs?: number; ttlMs?: number; claimant?: string } = {}
) => ({
  accountId: "acct_idem",
  key,
  // each ask its own claimant unless named
  claimant: options.claimant ?? `clm_${++asked}`,
  fingerprint,
  now: new Date(at),
  staleBefore: new Date(at - (options.staleMs ?? 60_000)),
  expiresAt: new Date(at + (options.ttlMs ?? 86_400_000))
})

for (const t of targets) {
  describe.skipIf(!t.enabled)(`IdempotencyStore on ${t.name}`, () => {
    const storeLayer = PgIdempotencyStore.layer.pipe(
      Layer.provideMerge(Layer.unwrapScoped(Effect.map(t.target, Database.layer)))
    )
    layer(storeLayer, { timeout: "60 seconds" })((it) => {
      it.effect("concurrent claims: each distinct key started once; one key asked 20 times started once", () =>
        Effect.gen(function* () {
          yield* withAccount
          const store = yield* IdempotencyStore.IdempotencyStore
          const now = Date.now()
          const distinct = yield* Effect.all(
            Array.from({ length: 50 }, (_, i) => store.begin(ask(`k-${i}-"q'\\`, "f", now))),
            { concurrency: "unbounded" }
          )
          assert.deepStrictEqual(new Set(distinct.map((b) => b._tag)), new Set(["Started"]))
          const same = yield* Effect.all(
            Array.from({ length: 20 }, () => store.begin(ask("one-key", "f", now))),
            { concurrency: "unbounded" }
          )
          assert.strictEqual(same.filter((b) => b._tag === "Started").length, 1)
          assert.strictEqual(same.filter((b) => b._tag === "InFlight").length, 19)
          // another fingerprint on a claimed key: a mismatch, in a batch or alone
          const other = yield* Effect.all(
            [
              store.begin(ask("one-key", "g", now)),
              store.begin(ask("k-0-\"q'\\", "g", now)),
              store.begin(ask("k-1-\"q'\\", "f", now))
            ],
            { concurrency: "unbounded" }
          )
          assert.deepStrictEqual(
            other.map((b) => b._tag),
            ["Mismatch", "Mismatch", "InFlight"]
          )
        })
      )

      it.effect("a renewed in-flight claim is not stale: its key stays in flight; a completed one is not renewed", () =>
        Effect.gen(function* () {
          yield* withAccount
          const store = yield* IdempotencyStore.IdempotencyStore
          const now = Date.now()
          // begun two minutes ago (past a 60 s stale bound), renewed now: the same key asked again is in flight
          assert.strictEqual((yield* store.begin(ask("renewed", "f", now - 120_000)))._tag, "Started")
          assert.isTrue(yield* store.renew({ accountId: "acct_idem", key: "renewed", now: new Date(now) }))
          assert.strictEqual((yield* store.begin(ask("renewed", "f", now)))._tag, "InFlight")
          // not renewed: the stale claim is taken by the next ask (what a long call's key met before)
          assert.strictEqual((yield* store.begin(ask("left", "f", now - 120_000)))._tag, "Started")
          assert.strictEqual((yield* store.begin(ask("left", "f", now)))._tag, "Started")
          // completed: nothing to renew, and it replays
          yield* store.complete({ accountId: "acct_idem", key: "renewed", status: 200, body: { ok: 1 } })
          assert.isFalse(yield* store.renew({ accountId: "acct_idem", key: "renewed", now: new Date(now) }))
          assert.strictEqual((yield* store.begin(ask("renewed", "f", now)))._tag, "Replay")
          assert.isFalse(yield* store.renew({ accountId: "acct_idem", key: "never", now: new Date(now) }))
        })
      )

      it.effect("a stale claim's claimant, once its key is taken over, neither drops nor completes the new claim", () =>
        Effect.gen(function* () {
          yield* withAccount
          const store = yield* IdempotencyStore.IdempotencyStore
          const now = Date.now()
          const id = "acct_idem"
          // a run that stalled past the stale bound; the same key asked again takes its claim over
          assert.strictEqual(
            (yield* store.begin(ask("taken", "f", now - 120_000, { claimant: "clm_old" })))._tag,
            "Started"
          )
          assert.strictEqual((yield* store.begin(ask("taken", "f", now, { claimant: "clm_new" })))._tag, "Started")
          // the stalled run wakes and ends: its abandon and its complete leave the new claim in flight
          yield* store.abandon({ accountId: id, key: "taken", claimant: "clm_old" })
          assert.strictEqual((yield* store.begin(ask("taken", "f", now)))._tag, "InFlight")
          yield* store.complete({ accountId: id, key: "taken", claimant: "clm_old", status: 200, body: { run: "old" } })
          assert.strictEqual((yield* store.begin(ask("taken", "f", now)))._tag, "InFlight")
          // the new claimant's end is kept; replayed as its answer
          yield* store.complete({ accountId: id, key: "taken", claimant: "clm_new", status: 200, body: { run: "new" } })
          const replay = yield* store.begin(ask("taken", "f", now))
          assert.deepStrictEqual(replay, { _tag: "Replay", status: 200, body: { run: "new" } })
          // its own abandon drops its own claim; one without a claimant (a takeover of a dead call) drops any
          assert.strictEqual((yield* store.begin(ask("mine", "f", now, { claimant: "clm_a" })))._tag, "Started")
          yield* store.abandon({ accountId: id, key: "mine", claimant: "clm_a" })
          assert.strictEqual((yield* store.begin(ask("mine", "f", now, { claimant: "clm_b" })))._tag, "Started")
          yield* store.abandon({ accountId: id, key: "mine" })
          assert.strictEqual((yield* store.begin(ask("mine", "f", now)))._tag, "Started")
        })
      )

      it.effect("a completed key replays; an expired record and a stale in-flight claim are claimed again", () =>
        Effect.gen(function* () {
          yield* withAccount
          const store = yield* IdempotencyStore.IdempotencyStore
          const now = Date.now()
          const begun = yield* Effect.all(
            [
              store.begin(ask("done", "f", now)),
              store.begin(ask("short", "f", now, { ttlMs: 1 })),
              store.begin(ask("stuck", "f", now - 120_000))
            ],
            { concurrency: "unbounded" }
          )
          assert.deepStrictEqual(
            begun.map((b) => b._tag),
            ["Started", "Started", "Started"]
          )
          yield* store.complete({ accountId: "acct_idem", key: "done", status: 201, body: { ok: true } })
          yield* store.complete({ accountId: "acct_idem", key: "short", status: 200, body: {} })
          const later = now + 10
          const again = yield* Effect.all(
            [
              store.begin(ask("done", "f", later)),
              store.begin(ask("short", "f", later)),
              // started two minutes ago, never completed: its caller died (stale after a minute)
              store.begin(ask("stuck", "f", later)),
              store.begin(ask("fresh-one", "f", later))
            ],
            { concurrency: "unbounded" }
          )
          assert.deepStrictEqual(again, [
            { _tag: "Replay", status: 201, body: { ok: true } },
            { _tag: "Started" },
            { _tag: "Started" },
            { _tag: "Started" }
          ])
        })
      )
    })
  })
}
