// Issue 22 ("one call's failure never fails or delays another's beyond the retry"), D131: an account whose row another
// session keeps locked (a transaction left open in psql, a process cut off in the middle of one: PostgreSQL keeps its
// locks until it notices) does not hold up the other accounts' holds and settles. Before, every group-committed batch
// that held one of that account's writes waited for the lock, and with them every other account's writes of the batch,
// then every batch after it: a row locked for 5 s stopped every paid call of every account for 5 s (stop 52's probe),
// and the call records' insert deadlocked with the settles (the accounts were locked FOR UPDATE, which waits for the
// key-share locks of rows inserted with a reference to the account).
import { SqlClient } from "@effect/sql"
import { assert, describe, layer } from "@effect/vitest"
import { Accounts, Ledger } from "@pdr/domain"
import { Clock, Effect, Fiber } from "effect"
import pg from "pg"
import { GroupCommit } from "../src/index.js"
import * as Testing from "../src/Testing.js"
import { services } from "./layers.js"

const targets = await Testing.targets()
const postgres = targets[0]

let counter = 0
const holdId = () => `hold_lk_${Date.now()}_${counter++}`
const later = (ms: number) => new Date(Date.now() + ms)
const empty = { measurements: [], points: [], reveals: [] }

/**
 * A session of its own that keeps `accountId`'s row locked until `release` (a ROLLBACK): as an UPDATE does, or with a
 * key-share lock, as an insert of a row that references the account does (a call record, an idempotency claim).
 */
const lockElsewhere = (schema: string, accountId: string, how: "update" | "key share" = "update") =>
  Effect.promise(async () => {
    const c = new pg.Client({ connectionString: Testing.serverUrl })
    await c.connect()
    await c.query("BEGIN")
    await c.query(
      how === "update"
        ? `UPDATE "${schema}".accounts SET name = name WHERE id = $1`
        : `SELECT 1 FROM "${schema}".accounts WHERE id = $1 FOR KEY SHARE`,
      [accountId]
    )
    let open = true
    return {
      release: Effect.promise(async () => {
        if (!open) return
        open = false
        await c.query("ROLLBACK")
        await c.end()
      })
    }
  })

describe.skipIf(!postgres.enabled)("an account whose row another session keeps locked (postgres)", () => {
  layer(services(postgres.target), { timeout: "60 seconds" })((it) => {
    it.scoped("the other accounts' holds and settles go on at once; its own wait for the lock, each exact", () =>
      Effect.gen(function* () {
        const accounts = yield* Accounts.Accounts
        const ledger = yield* Ledger.Ledger
        const sql = yield* SqlClient.SqlClient
        const schema = String((yield* sql`SELECT current_schema() AS s`)[0]!["s"])
        const locked = yield* accounts.create({ name: "locked", credits: 1_000 })
        const other = yield* accounts.create({ name: "other", credits: 1_000 })
        const hold = (accountId: string) =>
          ledger.placeHold({ id: holdId(), accountId, keyId: "kid_lk", amount: 10, expiresAt: later(60_000) })
        const settle = (h: Ledger.Hold, capture: number) =>
          ledger.settle({ holdId: h.id, accountId: h.accountId, capture, reason: "lk", records: empty })
        // holds of the locked account to settle while it is locked
        const earlier = yield* Effect.all(
          Array.from({ length: 4 }, () => hold(locked.id)),
          { concurrency: "unbounded" }
        )

        const lock = yield* Effect.acquireRelease(lockElsewhere(schema, locked.id), (l) => l.release)
        // the locked account's writes and the other's asked together: they meet in the same batches
        const lockedFiber = yield* Effect.fork(
          Effect.all(
            [
              Effect.all(
                earlier.map((h) => settle(h, 7)),
                { concurrency: "unbounded" }
              ),
              Effect.all(
                Array.from({ length: 4 }, () => hold(locked.id)),
                { concurrency: "unbounded" }
              )
            ],
            { concurrency: "unbounded" }
          )
        )
        const t0 = Date.now()
        // (bounded: before, they waited for the lock, here for ever)
        yield* Effect.gen(function* () {
          const others = yield* Effect.all(
            Array.from({ length: 30 }, () => hold(other.id)),
            { concurrency: "unbounded" }
          )
          yield* Effect.all(
            others.map((h) => settle(h, 3)),
            { concurrency: "unbounded" }
          )
        }).pipe(
          Effect.timeoutFail({ duration: "10 seconds", onTimeout: () => new Error("the other account waited") }),
          Effect.withClock(Clock.make())
        )
        // the hold batch that met the lock waited its timeout (1 s), and so may the settles' first batch
        const otherMs = Date.now() - t0
        assert.isBelow(otherMs, 3_500, "the other account's 30 holds and settles while the row is locked")
        assert.isNull(yield* Fiber.poll(lockedFiber).pipe(Effect.map((o) => (o._tag === "Some" ? "done" : null))))
        // the gauge pdr_accounts_locked_elsewhere: the locked account, once (its holds and its settles set apart)
        assert.strictEqual(GroupCommit.keysSetApart(), 1)
        const o =
          (yield* sql`SELECT balance::int AS balance, held::int AS held FROM accounts WHERE id = ${other.id}`)[0]!
        assert.deepStrictEqual([o["balance"], o["held"]], [1_000 - 30 * 3, 0])

        // the lock given up: the locked account's writes end, each once and exact
        yield* lock.release
        const [settles, holds] = yield* Fiber.join(lockedFiber)
        assert.deepStrictEqual(
          settles.map((s) => s.captured),
          [7, 7, 7, 7]
        )
        assert.strictEqual(holds.length, 4)
        assert.strictEqual(GroupCommit.keysSetApart(), 0)
        const l =
          (yield* sql`SELECT balance::int AS balance, held::int AS held FROM accounts WHERE id = ${locked.id}`)[0]!
        assert.deepStrictEqual([l["balance"], l["held"]], [1_000 - 4 * 7, 4 * 10])
        const captures = yield* sql`SELECT account_id, count(*)::int AS n, (-sum(credits))::int AS credits FROM ledger
            WHERE kind = 'capture' AND account_id IN (${locked.id}, ${other.id}) GROUP BY account_id ORDER BY account_id`
        assert.deepStrictEqual(
          Object.fromEntries(captures.map((r) => [String(r["account_id"]), [r["n"], r["credits"]]])),
          { [locked.id]: [4, 28], [other.id]: [30, 90] }
        )
      })
    )

    it.scoped(
      "a key-share lock elsewhere (a row inserted with a reference to the account) holds up none of its writes",
      () =>
        Effect.gen(function* () {
          const accounts = yield* Accounts.Accounts
          const ledger = yield* Ledger.Ledger
          const sql = yield* SqlClient.SqlClient
          const schema = String((yield* sql`SELECT current_schema() AS s`)[0]!["s"])
          const account = yield* accounts.create({ name: "referenced", credits: 1_000 })
          yield* Effect.acquireRelease(lockElsewhere(schema, account.id, "key share"), (l) => l.release)
          const t0 = Date.now()
          yield* Effect.gen(function* () {
            const holds = yield* Effect.all(
              Array.from({ length: 20 }, () =>
                ledger.placeHold({
                  id: holdId(),
                  accountId: account.id,
                  keyId: "kid_lk",
                  amount: 10,
                  expiresAt: later(60_000)
                })
              ),
              { concurrency: "unbounded" }
            )
            yield* Effect.all(
              holds.map((h) =>
                ledger.settle({ holdId: h.id, accountId: h.accountId, capture: 2, reason: "lk", records: empty })
              ),
              { concurrency: "unbounded" }
            )
          }).pipe(
            Effect.timeoutFail({ duration: "10 seconds", onTimeout: () => new Error("the writes waited") }),
            Effect.withClock(Clock.make())
          )
          // not even the lock timeout: an account's row is locked FOR NO KEY UPDATE, which a key-share lock lets by
          assert.isBelow(Date.now() - t0, 900)
          const a =
            (yield* sql`SELECT balance::int AS balance, held::int AS held FROM accounts WHERE id = ${account.id}`)[0]!
          assert.deepStrictEqual([a["balance"], a["held"]], [1_000 - 40, 0])
        })
    )
  })
})
