// D7, D8: holds are placed atomically, captures never exceed holds, expired holds come back, the ledger balances.

import { SqlClient, SqlError } from "@effect/sql"
import { PgClient } from "@effect/sql-pg"
import { assert, describe, it, layer } from "@effect/vitest"
import { Accounts, Answers, Ledger } from "@pdr/domain"
import { Deferred, Effect, Either, Fiber, FastCheck as fc, Option, Redacted, Schedule } from "effect"
import { PgLedger } from "../src/index.js"
import * as Testing from "../src/Testing.js"
import { services } from "./layers.js"

const targets = await Testing.targets()

/** The error node-postgres gives when the connection closes before the answer comes, as the store wraps it. */
const socketError = Effect.flatMap(Effect.promise(Testing.droppedConnection), (cause) =>
  Effect.fail(new SqlError.SqlError({ cause, message: "lost" }))
)

let counter = 0
const holdId = () => `hold_test_${Date.now()}_${counter++}`
const later = (ms: number) => new Date(Date.now() + ms)

const audit = (accountId: string) =>
  Effect.gen(function* () {
    const ledger = yield* Ledger.Ledger
    const account = (yield* ledger.findAccount(accountId)).pipe((o) => (o._tag === "Some" ? o.value : undefined))!
    const totals = yield* ledger.totals(accountId)
    const holds = yield* ledger.holds(accountId)
    return { account, totals, heldSum: holds.reduce((n, h) => n + h.amount, 0) }
  })

for (const t of targets) {
  describe.skipIf(!t.enabled)(`Ledger on ${t.name}`, () => {
    layer(services(t.target), { timeout: "60 seconds" })((it) => {
      it.effect(
        "D16: a settle with an answer to keep completes its idempotency record in the same statement; a refused one keeps nothing",
        () =>
          Effect.gen(function* () {
            const accounts = yield* Accounts.Accounts
            const ledger = yield* Ledger.Ledger
            const sql = yield* SqlClient.SqlClient
            const account = yield* accounts.create({ name: "kept", credits: 50 })
            for (const key of ["k1", "k2"])
              yield* sql`INSERT INTO idempotency (account_id, key, fingerprint, state, started_at, expires_at)
                         VALUES (${account.id}, ${key}, 'f', 'in_flight', now(), now() + interval '1 day')`
            const hold = yield* ledger.placeHold({
              id: holdId(),
              accountId: account.id,
              keyId: null,
              amount: 9,
              expiresAt: later(60_000)
            })
            const kept = (key: string) => ({
              key,
              status: 200,
              answer: '{"data":[{"subject":"\u00e9"}],"coverage":[],"requestId":"req_1"}'
            })
            const empty = { measurements: [], points: [], reveals: [] }
            const settled = yield* ledger.settle({
              holdId: hold.id,
              accountId: account.id,
              capture: 4,
              reason: "kept",
              records: empty,
              kept: kept("k1")
            })
            // the kept record: the answer as it was given (its text, keys in order) and the cost this settle computed
            const text = settled.kept!
            const record = Answers.keptOf(text)!
            assert.deepStrictEqual(record, {
              answer: { data: [{ subject: "\u00e9" }], coverage: [], requestId: "req_1" },
              cost: { creditsCharged: 4, creditsRemaining: 46 }
            })
            // rendered as the live answer is: the cost after data
            assert.strictEqual(
              Answers.renderKept(record),
              '{"data":[{"subject":"\u00e9"}],"cost":{"creditsCharged":4,"creditsRemaining":46},"coverage":[],"requestId":"req_1"}'
            )
            // the hold is no longer held: the settle is refused and the other key's record stays in flight
            const refused = yield* Effect.either(
              ledger.settle({
                holdId: hold.id,
                accountId: account.id,
                capture: 4,
                reason: "x",
                records: empty,
                kept: kept("k2")
              })
            )
            assert.isTrue(Either.isLeft(refused))
            const rows =
              yield* sql`SELECT key, state, status, body FROM idempotency WHERE account_id = ${account.id} ORDER BY key`
            assert.deepStrictEqual(
              rows.map((r) => [r["key"], r["state"], r["status"], r["body"]]),
              [
                ["k1", "done", 200, text],
                ["k2", "in_flight", null, null]
              ]
            )
            assert.deepStrictEqual(JSON.parse(text).cost, { creditsCharged: 4, creditsRemaining: 46 })
          })
      )

      it.effect(
        "issue 19: a shared hold: several settles draw their exact charges from it (one above what is left is refused and writes nothing), its close captures them in one entry and releases the rest",
        () =>
          Effect.gen(function* () {
            const accounts = yield* Accounts.Accounts
            const ledger = yield* Ledger.Ledger
            const sql = yield* SqlClient.SqlClient
            const account = yield* accounts.create({ name: "shared", credits: 100 })
            for (const key of ["s1", "s2", "s3", "s4"])
              yield* sql`INSERT INTO idempotency (account_id, key, fingerprint, state, started_at, expires_at)
                         VALUES (${account.id}, ${key}, 'f', 'in_flight', now(), now() + interval '1 day')`
            const hold = yield* ledger.placeHold({
              id: holdId(),
              accountId: account.id,
              keyId: "batch-key",
              amount: 30,
              expiresAt: later(60_000)
            })
            const empty = { measurements: [], points: [], reveals: [] }
            const draw = (capture: number, key: string) =>
              Effect.either(
                ledger.settle({
                  holdId: hold.id,
                  accountId: account.id,
                  capture,
                  reason: "shared op",
                  records: empty,
                  kept: { key, status: 200, answer: '{"data":[],"coverage":[]}' },
                  draw: true
                })
              )
            // three entities drawn at once (group commit), then one above what is left (30 - 7 - 9 - 0 = 14)
            const drawn = yield* Effect.all([draw(7, "s1"), draw(9, "s2"), draw(0, "s3")], { concurrency: "unbounded" })
            const charged = drawn.map((d) => (Either.isRight(d) ? Answers.keptOf(d.right.kept!)!.cost : undefined))
            // each answer kept with its own charge; spendable (100 - 30 held) is exact while the hold is open
            assert.deepStrictEqual(charged, [
              { creditsCharged: 7, creditsRemaining: 70 },
              { creditsCharged: 9, creditsRemaining: 70 },
              { creditsCharged: 0, creditsRemaining: 70 }
            ])
            const over = yield* draw(15, "s4")
            assert.isTrue(Either.isLeft(over) && over.left._tag === "HoldNotHeld")
            const s4 = yield* sql`SELECT state FROM idempotency WHERE account_id = ${account.id} AND key = 's4'`
            assert.strictEqual(s4[0]?.["state"], "in_flight")
            // still held: the account's row was not written by a draw
            const during = yield* audit(account.id)
            assert.deepStrictEqual([during.account.balance, during.account.held, during.heldSum], [100, 30, 30])
            const closed = yield* ledger.close(hold.id)
            assert.deepStrictEqual(Option.getOrThrow(closed), { captured: 16, released: 14 })
            // closed once: a second close (a takeover after the runner closed it) and a later draw find it not held
            assert.isTrue(Option.isNone(yield* ledger.close(hold.id)))
            const late = yield* draw(1, "s4")
            assert.isTrue(Either.isLeft(late))
            const after = yield* audit(account.id)
            assert.deepStrictEqual(
              [after.account.balance, after.account.held, after.heldSum, after.totals.captures],
              [84, 0, 0, 16]
            )
            assert.strictEqual(after.account.balance, after.totals.grants - after.totals.captures)
            const entries = yield* ledger.entries(account.id, 10)
            const captures = entries.filter((e) => e.kind === "capture")
            assert.deepStrictEqual(
              captures.map((e) => [e.credits, e.reason, e.keyId, e.holdId]),
              [[-16, "shared op", "batch-key", hold.id]]
            )
          })
      )

      it.effect(
        "D115: a draw keeps its answer only under its own claim in flight: one whose claim was dropped, taken over by another run or already done draws and writes nothing",
        () =>
          Effect.gen(function* () {
            const accounts = yield* Accounts.Accounts
            const ledger = yield* Ledger.Ledger
            const sql = yield* SqlClient.SqlClient
            const account = yield* accounts.create({ name: "fenced", credits: 100 })
            const claim = (key: string, claimant: string, state = "in_flight") =>
              sql`INSERT INTO idempotency (account_id, key, fingerprint, state, started_at, expires_at, claimant)
                  VALUES (${account.id}, ${key}, 'f', ${state}, now(), now() + interval '1 day', ${claimant})`
            yield* claim("mine", "clm_a")
            yield* claim("dropped", "clm_b")
            yield* sql`DELETE FROM idempotency WHERE account_id = ${account.id} AND key = 'dropped'`
            yield* claim("taken", "clm_other")
            yield* claim("done", "clm_d", "done")
            const hold = yield* ledger.placeHold({
              id: holdId(),
              accountId: account.id,
              keyId: null,
              amount: 40,
              expiresAt: later(60_000)
            })
            const draw = (key: string, claimant: string, reveals = false) =>
              Effect.either(
                ledger.settle({
                  holdId: hold.id,
                  accountId: account.id,
                  capture: 5,
                  reason: "fenced op",
                  records: {
                    measurements: [],
                    points: [],
                    // a draw with reveals is drawn by its own statement (pdr_draw_keep), the others by the batch's loop
                    reveals: reveals
                      ? [
                          {
                            accountId: account.id,
                            person: `p-${key}`,
                            part: "email" as const,
                            status: "nothing_on_file" as const,
                            value: null,
                            at: new Date(),
                            source: "test"
                          }
                        ]
                      : []
                  },
                  kept: { key, status: 200, answer: '{"data":[],"coverage":[]}', claimant },
                  draw: true
                })
              )
            // in one batch (group commit) and alone, with and without reveals
            const refused = yield* Effect.all(
              [
                draw("dropped", "clm_b"),
                draw("taken", "clm_b"),
                draw("done", "clm_d"),
                draw("dropped", "clm_b", true),
                draw("taken", "clm_b", true)
              ],
              { concurrency: "unbounded" }
            )
            refused.forEach((r, i) =>
              assert.isTrue(Either.isLeft(r) && r.left._tag === "HoldNotHeld", `draw ${i}: ${JSON.stringify(r)}`)
            )
            const alone = yield* draw("taken", "clm_b")
            assert.isTrue(Either.isLeft(alone) && alone.left._tag === "HoldNotHeld")
            const reveals = yield* sql`SELECT count(*)::int AS n FROM contact_reveals WHERE account_id = ${account.id}`
            assert.strictEqual(reveals[0]!["n"], 0)
            // its own claim in flight: drawn, kept
            const mine = yield* draw("mine", "clm_a")
            assert.isTrue(Either.isRight(mine))
            const rows =
              yield* sql`SELECT key, state, claimant FROM idempotency WHERE account_id = ${account.id} ORDER BY key`
            assert.deepStrictEqual(
              rows.map((r) => [r["key"], r["state"], r["claimant"]]),
              [
                ["done", "done", "clm_d"],
                ["mine", "done", "clm_a"],
                ["taken", "in_flight", "clm_other"]
              ]
            )
            assert.deepStrictEqual(Option.getOrThrow(yield* ledger.close(hold.id)), { captured: 5, released: 35 })
            const after = yield* audit(account.id)
            assert.deepStrictEqual([after.account.balance, after.account.held, after.totals.captures], [95, 0, 5])
          })
      )

      it.effect.skipIf(t.name !== "postgres")(
        "D115: a draw whose statement waited at the database while its claim was dropped (a retry may run the call again) draws nothing when it runs",
        () =>
          Effect.gen(function* () {
            const accounts = yield* Accounts.Accounts
            const ledger = yield* Ledger.Ledger
            const sql = yield* SqlClient.SqlClient
            const account = yield* accounts.create({ name: "late", credits: 100 })
            yield* sql`INSERT INTO idempotency (account_id, key, fingerprint, state, started_at, expires_at, claimant)
                  VALUES (${account.id}, 'late', 'f', 'in_flight', now(), now() + interval '1 day', 'clm_late')`
            const hold = yield* ledger.placeHold({
              id: holdId(),
              accountId: account.id,
              keyId: null,
              amount: 40,
              expiresAt: later(60_000)
            })
            const realSleep = (ms: number) => Effect.promise(() => new Promise((r) => setTimeout(r, ms)))
            // another transaction holds the hold's row: the draw's statement reaches the database and waits there
            const locked = yield* Deferred.make<void>()
            const go = yield* Deferred.make<void>()
            const locker = yield* Effect.fork(
              sql.withTransaction(
                Effect.gen(function* () {
                  yield* sql`SELECT 1 FROM holds WHERE id = ${hold.id} FOR UPDATE`
                  yield* Deferred.succeed(locked, undefined)
                  yield* Deferred.await(go)
                })
              )
            )
            yield* Deferred.await(locked)
            const drawing = yield* Effect.fork(
              ledger.settle({
                holdId: hold.id,
                accountId: account.id,
                capture: 7,
                reason: "late op",
                records: { measurements: [], points: [], reveals: [] },
                kept: { key: "late", status: 200, answer: '{"data":[],"coverage":[]}', claimant: "clm_late" },
                draw: true
              })
            )
            let waiting = 0
            for (let i = 0; i < 200 && waiting === 0; i++) {
              yield* realSleep(10)
              // a draw's statement waiting on a lock (pg_locks alone would count the other suites' waits too)
              const w = yield* sql`SELECT count(*)::int AS n FROM pg_stat_activity
                WHERE wait_event_type = 'Lock' AND query LIKE '%pdr_draw%' AND pid <> pg_backend_pid()`
              waiting = w[0]!["n"] as number
            }
            assert.isAbove(waiting, 0, "the draw waits at the database")
            // its run gave up on it (its connection lost, say) and dropped its claim: a retry may now run the call
            yield* sql`DELETE FROM idempotency WHERE account_id = ${account.id} AND key = 'late'
                       AND state = 'in_flight' AND claimant = 'clm_late'`
            yield* Deferred.succeed(go, undefined)
            yield* Fiber.join(locker)
            const late = yield* Effect.either(Fiber.join(drawing))
            assert.isTrue(Either.isLeft(late) && late.left._tag === "HoldNotHeld", JSON.stringify(late))
            assert.deepStrictEqual(Option.getOrThrow(yield* ledger.close(hold.id)), { captured: 0, released: 40 })
            const after = yield* audit(account.id)
            assert.deepStrictEqual([after.account.balance, after.totals.captures], [100, 0])
          })
      )

      it.effect(
        "issue 19: a shared hold left by a stopped holder is swept at its expiry with its draws captured; a hold closed with nothing drawn captures nothing",
        () =>
          Effect.gen(function* () {
            const accounts = yield* Accounts.Accounts
            const ledger = yield* Ledger.Ledger
            const account = yield* accounts.create({ name: "swept", credits: 50 })
            const expiresAt = later(30_000)
            const stale = yield* ledger.placeHold({
              id: holdId(),
              accountId: account.id,
              keyId: null,
              amount: 20,
              expiresAt
            })
            const idle = yield* ledger.placeHold({
              id: holdId(),
              accountId: account.id,
              keyId: null,
              amount: 5,
              expiresAt
            })
            yield* ledger.settle({
              holdId: stale.id,
              accountId: account.id,
              capture: 6,
              reason: "drawn",
              records: { measurements: [], points: [], reveals: [] },
              draw: true
            })
            assert.deepStrictEqual(Option.getOrThrow(yield* ledger.close(idle.id)), { captured: 0, released: 5 })
            assert.strictEqual(yield* ledger.releaseExpired(new Date(expiresAt.getTime() + 1)), 1)
            const a = yield* audit(account.id)
            assert.deepStrictEqual([a.account.balance, a.account.held, a.heldSum, a.totals.captures], [44, 0, 0, 6])
            assert.isTrue(Option.isNone(yield* ledger.close(stale.id)))
          })
      )

      it.effect(
        "issue 19: expiry sweeps run concurrently with grouped settles and draws of the same holds on several accounts: no deadlock, every hold ends once, the ledger balances",
        () =>
          Effect.gen(function* () {
            const accounts = yield* Accounts.Accounts
            const ledger = yield* Ledger.Ledger
            const owners = yield* Effect.forEach([1, 2, 3], (i) =>
              accounts.create({ name: `sweep-${i}`, credits: 10_000 })
            )
            const empty = { measurements: [], points: [], reveals: [] }
            for (let round = 0; round < 8; round++) {
              // every hold already past its expiry for the sweeps (the settles do not look at it)
              const holds = yield* Effect.forEach(
                Array.from({ length: 400 }, (_, i) => i),
                (i) =>
                  ledger.placeHold({
                    id: holdId(),
                    accountId: owners[i % 3]!.id,
                    keyId: null,
                    amount: 10,
                    expiresAt: later(1_000)
                  }),
                { concurrency: "unbounded" }
              )
              const work = [
                ...holds.map((h, i) =>
                  Effect.ignore(
                    ledger.settle({
                      holdId: h.id,
                      accountId: h.accountId,
                      capture: 1 + (i % 9),
                      reason: "race",
                      records: empty,
                      draw: i % 2 === 0
                    })
                  )
                ),
                ...Array.from({ length: 12 }, (_, k) =>
                  Effect.zipRight(
                    Effect.promise(() => new Promise((r) => setTimeout(r, k * 2))),
                    Effect.asVoid(ledger.releaseExpired(later(60_000)))
                  )
                )
              ]
              // interleaved: sweeps between the settles, started a few ms apart (real timers: the TestClock does not
              // move) so they meet the group-committed statements. A deadlock here is retried by `againOnDeadlock`
              // after a sleep the TestClock never ends, so it shows as this test's timeout: with the statements of
              // main (a sweep locking holds before accounts, a lone settle its hold before its account) it failed on
              // a deadlock in 1.4 s; that is also how the D8 invariant property timed out once in 13 runs
              const order = work.map((w, i) => ({ w, k: (i * 7919) % work.length })).sort((x, y) => x.k - y.k)
              yield* Effect.all(
                order.map((o) => o.w),
                { concurrency: "unbounded", discard: true }
              )
              // the draws' holds still held are closed, as their holder would (together: group-committed closes);
              // each hold is closed once at most
              const closed = yield* Effect.forEach(holds, (h) => ledger.close(h.id), { concurrency: "unbounded" })
              const again = yield* Effect.forEach(holds, (h) => ledger.close(h.id), { concurrency: "unbounded" })
              assert.isTrue(again.every(Option.isNone))
              assert.isAtMost(closed.filter(Option.isSome).length, 200)
              for (const o of owners) {
                const a = yield* audit(o.id)
                assert.isAtLeast(a.account.balance, 0)
                assert.strictEqual(a.account.held, 0)
                assert.strictEqual(a.heldSum, 0)
                assert.strictEqual(a.account.balance, a.totals.grants - a.totals.captures)
              }
            }
          }),
        { timeout: 60_000 }
      )

      it.effect("D8: 200 concurrent holds on an account that can afford 37 place exactly 37", () =>
        Effect.gen(function* () {
          const accounts = yield* Accounts.Accounts
          const ledger = yield* Ledger.Ledger
          const account = yield* accounts.create({ name: "race", credits: 37 })
          const results = yield* Effect.all(
            Array.from({ length: 200 }, () =>
              Effect.either(
                ledger.placeHold({
                  id: holdId(),
                  accountId: account.id,
                  keyId: null,
                  amount: 1,
                  expiresAt: later(60_000)
                })
              )
            ),
            { concurrency: "unbounded" }
          )
          const placed = results.filter(Either.isRight).length
          const refused = results.filter(Either.isLeft)
          assert.strictEqual(placed, 37)
          assert.strictEqual(refused.length, 163)
          assert.strictEqual(refused[0]!.left._tag, "HoldRefused")
          const after = yield* audit(account.id)
          assert.strictEqual(after.account.balance, 37)
          assert.strictEqual(after.account.held, 37)
          assert.strictEqual(after.account.spendable, 0)
          assert.strictEqual(after.heldSum, 37)
        })
      )

      it.effect(
        "D8: a crashed caller's hold is released after its expiry, not before, and cannot be captured after",
        () =>
          Effect.gen(function* () {
            const accounts = yield* Accounts.Accounts
            const ledger = yield* Ledger.Ledger
            const account = yield* accounts.create({ name: "crash", credits: 50 })
            const expiresAt = later(3_600_000)
            const hold = yield* ledger.placeHold({
              id: holdId(),
              accountId: account.id,
              keyId: null,
              amount: 30,
              expiresAt
            })
            assert.strictEqual((yield* audit(account.id)).account.spendable, 20)
            yield* ledger.releaseExpired(new Date(expiresAt.getTime() - 1))
            assert.strictEqual((yield* audit(account.id)).account.spendable, 20)
            assert.strictEqual((yield* audit(account.id)).heldSum, 30)
            assert.isAtLeast(yield* ledger.releaseExpired(new Date(expiresAt.getTime() + 1)), 1)
            const after = yield* audit(account.id)
            assert.strictEqual(after.account.spendable, 50)
            assert.strictEqual(after.account.held, 0)
            const late = yield* Effect.either(
              ledger.settle({
                holdId: hold.id,
                accountId: account.id,
                capture: 10,
                reason: "late",
                records: { measurements: [], points: [], reveals: [] }
              })
            )
            assert.isTrue(Either.isLeft(late))
            assert.strictEqual((yield* audit(account.id)).account.balance, 50)
          })
      )

      it.effect("D8: a capture above its hold is refused and changes nothing", () =>
        Effect.gen(function* () {
          const accounts = yield* Accounts.Accounts
          const ledger = yield* Ledger.Ledger
          const account = yield* accounts.create({ name: "over", credits: 100 })
          const hold = yield* ledger.placeHold({
            id: holdId(),
            accountId: account.id,
            keyId: null,
            amount: 10,
            expiresAt: later(60_000)
          })
          const over = yield* Effect.either(
            ledger.settle({
              holdId: hold.id,
              accountId: account.id,
              capture: 11,
              reason: "over",
              records: { measurements: [], points: [], reveals: [] }
            })
          )
          assert.isTrue(Either.isLeft(over))
          const { account: ok } = yield* ledger.settle({
            holdId: hold.id,
            accountId: account.id,
            capture: 7,
            reason: "ok",
            records: { measurements: [], points: [], reveals: [] }
          })
          assert.strictEqual(ok.balance, 93)
          assert.strictEqual(ok.held, 0)
          const totals = yield* ledger.totals(account.id)
          assert.deepStrictEqual(totals, { grants: 100, captures: 7 })
        })
      )

      it.effect(
        "D8: a settle writes its records with the capture, one history value per metric; without a hold it captures nothing",
        () =>
          Effect.gen(function* () {
            const accounts = yield* Accounts.Accounts
            const ledger = yield* Ledger.Ledger
            const sql = yield* SqlClient.SqlClient
            const account = yield* accounts.create({ name: "records", credits: 50 })
            const at = new Date("2026-11-21T10:00:00.000Z")
            const records = (entity: string) => ({
              measurements: [
                {
                  platform: "maps",
                  op: "places",
                  entity,
                  freshnessKey: `maps/places/${entity}/{}`,
                  measuredAt: at,
                  rows: [{ a: 1 }],
                  rowsAsked: 1,
                  exhaustive: true,
                  found: true,
                  source: "test"
                }
              ],
              points: [
                {
                  platform: "maps",
                  entity,
                  store: "",
                  stay: null,
                  measuredAt: at,
                  metrics: { rating: 4.5, reviews: 10 },
                  source: "test"
                }
              ],
              reveals: [
                {
                  accountId: account.id,
                  person: entity,
                  part: "email" as const,
                  status: "nothing_on_file" as const,
                  value: null,
                  at,
                  source: "test"
                }
              ]
            })
            const hold = yield* ledger.placeHold({
              id: holdId(),
              accountId: account.id,
              keyId: "kid_x",
              amount: 9,
              expiresAt: later(60_000)
            })
            const { account: settled, captured } = yield* ledger.settle({
              holdId: hold.id,
              accountId: account.id,
              capture: 4,
              reason: "maps places",
              records: records("held-1")
            })
            assert.deepStrictEqual([settled.balance, settled.held, captured], [46, 0, 4])
            const { account: free } = yield* ledger.settle({
              holdId: null,
              accountId: account.id,
              capture: 0,
              reason: "free",
              records: records("free-1")
            })
            assert.strictEqual(free.balance, 46)
            const m =
              yield* sql`SELECT entity, hold_id FROM measurements WHERE entity IN ('held-1', 'free-1') ORDER BY entity`
            assert.deepStrictEqual(
              m.map((r) => [r["entity"], r["hold_id"]]),
              [
                ["free-1", null],
                ["held-1", hold.id]
              ]
            )
            const v =
              yield* sql`SELECT entity, metric, value FROM history_values WHERE entity IN ('held-1', 'free-1') ORDER BY entity, metric`
            assert.deepStrictEqual(
              v.map((r) => [r["entity"], r["metric"], Number(r["value"])]),
              [
                ["free-1", "rating", 4.5],
                ["free-1", "reviews", 10],
                ["held-1", "rating", 4.5],
                ["held-1", "reviews", 10]
              ]
            )
            const r = yield* sql`SELECT count(*)::int AS n FROM contact_reveals WHERE account_id = ${account.id}`
            assert.strictEqual(r[0]!["n"], 2)
            const refused = yield* Effect.exit(
              ledger.settle({ holdId: null, accountId: account.id, capture: 1, reason: "x", records: records("bad") })
            )
            assert.isTrue(refused._tag === "Failure")
            const none = yield* sql`SELECT count(*)::int AS n FROM measurements WHERE entity = 'bad'`
            assert.strictEqual(none[0]!["n"], 0)
          })
      )

      it.effect(
        "a failure the database answered rolled the settle back (a defect); a lost connection leaves it unknown (typed)",
        () =>
          Effect.gen(function* () {
            const sql = yield* SqlClient.SqlClient
            const answered = yield* Effect.flip(sql`SELECT 1 / 0`)
            assert.isTrue(PgLedger.refusedByDatabase(answered), "a division by zero is the database's own answer")
            const lost = yield* Effect.flip(socketError)
            assert.isFalse(PgLedger.refusedByDatabase(lost), lost.message)
            const epipe = new SqlError.SqlError({ cause: Object.assign(new Error("write EPIPE"), { code: "EPIPE" }) })
            assert.isFalse(PgLedger.refusedByDatabase(epipe), "a socket code that looks like a SQLSTATE")
            assert.match(new Ledger.SettleOutcomeUnknown({ detail: "x" }).message, /may have been billed once/)
          })
      )

      it.effect("D7: grants are whole positive credits with a reason; an unknown account is refused", () =>
        Effect.gen(function* () {
          const accounts = yield* Accounts.Accounts
          const account = yield* accounts.create({ name: "grants" })
          for (const credits of [0, -5, 1.5, Number.NaN]) {
            const r = yield* Effect.either(accounts.grant({ accountId: account.id, credits, reason: "x" }))
            assert.isTrue(Either.isLeft(r) && r.left._tag === "InvalidInput")
          }
          const blank = yield* Effect.either(accounts.grant({ accountId: account.id, credits: 5, reason: "  " }))
          assert.isTrue(Either.isLeft(blank) && blank.left._tag === "InvalidInput")
          const unknown = yield* Effect.either(accounts.grant({ accountId: "acct_nope", credits: 5, reason: "x" }))
          assert.isTrue(Either.isLeft(unknown) && unknown.left._tag === "AccountNotFound")
          const granted = yield* accounts.grant({ accountId: account.id, credits: 25, reason: "top-up" })
          assert.strictEqual(granted.balance, 25)
        })
      )

      type Step =
        | { readonly kind: "grant"; readonly credits: number }
        | { readonly kind: "hold"; readonly amount: number }
        | { readonly kind: "capture"; readonly fraction: number; readonly over: boolean }
        | { readonly kind: "release" }
        | { readonly kind: "expire" }
      const step: fc.Arbitrary<Step> = fc.oneof(
        fc.record({ kind: fc.constant("grant" as const), credits: fc.integer({ min: 1, max: 40 }) }),
        fc.record({ kind: fc.constant("hold" as const), amount: fc.integer({ min: 1, max: 30 }) }),
        fc.record({
          kind: fc.constant("capture" as const),
          fraction: fc.double({ min: 0, max: 1, noNaN: true }),
          over: fc.boolean()
        }),
        fc.record({ kind: fc.constant("release" as const) }),
        fc.record({ kind: fc.constant("expire" as const) })
      )

      it.effect.prop(
        "D8 invariant: under any interleaving of grants, holds, captures, releases and expiries, balance >= 0, no capture exceeds its hold, balance == grants - captures",
        [fc.array(fc.array(step, { minLength: 1, maxLength: 6 }), { minLength: 1, maxLength: 6 })],
        ([rounds]) =>
          Effect.gen(function* () {
            const accounts = yield* Accounts.Accounts
            const ledger = yield* Ledger.Ledger
            const account = yield* accounts.create({ name: "prop", credits: 20 })
            const open: Array<{ id: string; amount: number }> = []
            for (const round of rounds) {
              yield* Effect.all(
                round.map((s) => {
                  switch (s.kind) {
                    case "grant":
                      return Effect.asVoid(ledger.grant({ accountId: account.id, credits: s.credits, reason: "prop" }))
                    case "hold": {
                      const id = holdId()
                      return ledger
                        .placeHold({
                          id,
                          accountId: account.id,
                          keyId: null,
                          amount: s.amount,
                          expiresAt: later(60_000)
                        })
                        .pipe(
                          Effect.tap(() => Effect.sync(() => open.push({ id, amount: s.amount }))),
                          Effect.ignore
                        )
                    }
                    case "capture": {
                      const h = open.shift()
                      if (!h) return Effect.void
                      const capture = s.over ? h.amount + 1 : Math.floor(h.amount * s.fraction)
                      return Effect.either(
                        ledger.settle({
                          holdId: h.id,
                          accountId: account.id,
                          capture,
                          reason: "prop",
                          records: { measurements: [], points: [], reveals: [] }
                        })
                      ).pipe(
                        Effect.map((r) => {
                          if (s.over) assert.isTrue(Either.isLeft(r), "a capture above its hold was accepted")
                        })
                      )
                    }
                    case "release": {
                      const h = open.shift()
                      return h ? ledger.release(h.id) : Effect.void
                    }
                    case "expire":
                      return Effect.asVoid(ledger.releaseExpired(later(120_000)))
                  }
                }),
                { concurrency: "unbounded" }
              )
              const a = yield* audit(account.id)
              assert.isAtLeast(a.account.balance, 0)
              assert.isAtLeast(a.account.spendable, 0)
              assert.strictEqual(a.account.balance, a.totals.grants - a.totals.captures)
              assert.strictEqual(a.account.held, a.heldSum)
            }
          }),
        { fastCheck: { numRuns: 15 } }
      )
    })
  })
}

describe.skipIf(!(await Testing.serverAvailable()))("PgLedger.neverSent (PostgreSQL server)", () => {
  it.live(
    "a statement that never left (no connection could be had) did nothing: neverSent, so a settle is not unknown",
    () =>
      Effect.gen(function* () {
        // a pool reached through a proxy that then refuses every connection (the database restarting)
        const url = new URL(Testing.serverUrl)
        const tcp = Testing.tcpProxy({ host: url.hostname, port: Number(url.port || 5432) })
        const through = Testing.throughPort(url.toString(), yield* Effect.promise(() => tcp.up()))
        const [alone, inTransaction, executed] = yield* Effect.gen(function* () {
          const sql = yield* SqlClient.SqlClient
          yield* sql`SELECT 1`
          yield* Effect.promise(() => tcp.down())
          yield* Effect.sleep("200 millis")
          const a = yield* Effect.flip(sql`SELECT 1`)
          const t = yield* Effect.flip(sql.withTransaction(sql`SELECT 1`))
          return [a, t, yield* Effect.flip(socketError)] as const
        }).pipe(
          Effect.provide(PgClient.layer({ url: Redacted.make(through), maxConnections: 2 })),
          // the pool's first connection may meet a server at its connection limit while other suites run beside
          // this one ("too many clients": the layer fails before the test's body runs, the proxy still up)
          Effect.retry({
            schedule: Schedule.spaced("1 second"),
            times: 10,
            while: (e) => e instanceof SqlError.SqlError && e.message === "PgClient: Failed to connect"
          }),
          Effect.ensuring(Effect.promise(() => tcp.down()))
        )
        assert.isTrue(PgLedger.neverSent(alone), alone.message)
        assert.isTrue(PgLedger.neverSent(inTransaction), inTransaction.message)
        assert.isFalse(PgLedger.refusedByDatabase(alone))
        // a statement sent whose connection was lost is not this: it may have happened
        assert.isFalse(PgLedger.neverSent(executed), executed.message)
      })
  )
})
