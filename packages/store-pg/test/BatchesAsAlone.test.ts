// Issue 22: a group-committed batch of holds or settles answers and writes what the same asks do one by one. Each batch
// here runs on one copy of a world, and the same asks run one by one (pdr_place_hold, pdr_settle, pdr_settle_keep: the
// statements of a call alone) on an identical copy: the answers, the accounts, the holds, the ledger, the kept answers
// and the records must be the same. And a grouped settle gives back the fetch leases of the calls it settled.

import { SqlClient } from "@effect/sql"
import { assert, describe, layer } from "@effect/vitest"
import { Accounts, FetchLeases, Ledger } from "@pdr/domain"
import { Effect, Either, Layer, Option } from "effect"
import { PgFetchLeases } from "../src/index.js"
import * as Testing from "../src/Testing.js"
import { services } from "./layers.js"

const targets = await Testing.targets()

let world = 0
const expires = new Date(Date.now() + 600_000)

/** Accounts of these credits and holds on them (ids suffixed by the world), with in-flight idempotency records. */
const seed = (
  w: string,
  credits: Record<string, number>,
  holds: ReadonlyArray<readonly [string, string, number]>,
  keys: ReadonlyArray<readonly [string, string]>
) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    for (const [a, c] of Object.entries(credits))
      yield* sql`INSERT INTO accounts (id, name, balance) VALUES (${a + w}, ${a}, ${c})`
    for (const [h, a, amount] of holds) {
      yield* sql`INSERT INTO holds (id, account_id, key_id, amount, expires_at)
                 VALUES (${h + w}, ${a + w}, ${`key_${a}`}, ${amount}, ${expires})`
      yield* sql`UPDATE accounts SET held = held + ${amount} WHERE id = ${a + w}`
    }
    for (const [a, k] of keys)
      yield* sql`INSERT INTO idempotency (account_id, key, fingerprint, state, started_at, expires_at)
                 VALUES (${a + w}, ${k}, 'f', 'in_flight', now(), ${expires})`
  })

/** What a world holds, its ids without the world's suffix. */
const snapshot = (w: string, accounts: ReadonlyArray<string>) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const ids = accounts.map((a) => a + w)
    const strip = (x: unknown) => (typeof x === "string" ? x.split(w).join("") : x)
    const rows = (rs: ReadonlyArray<Record<string, unknown>>) =>
      rs.map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, strip(v)])))
    return {
      accounts: rows(
        yield* sql`SELECT id, balance::int AS balance, held::int AS held FROM accounts WHERE id IN ${sql.in(ids)} ORDER BY id`
      ),
      holds: rows(
        yield* sql`SELECT id, status, captured::int AS captured, settled_at IS NOT NULL AS settled FROM holds
                   WHERE account_id IN ${sql.in(ids)} ORDER BY id`
      ),
      ledger: rows(
        yield* sql`SELECT account_id, kind, credits::int AS credits, reason, key_id, hold_id FROM ledger
                   WHERE account_id IN ${sql.in(ids)} ORDER BY id`
      ),
      idempotency: rows(
        yield* sql`SELECT account_id, key, state, status, body FROM idempotency WHERE account_id IN ${sql.in(ids)}
                   ORDER BY account_id, key`
      ),
      measurements: rows(
        yield* sql`SELECT entity, freshness_key, rows, hold_id FROM measurements WHERE entity LIKE ${`%${w}`}
                   ORDER BY id`
      ),
      points: rows(
        yield* sql`SELECT entity, metric, value, store FROM history_values WHERE entity LIKE ${`%${w}`}
                   ORDER BY entity, metric`
      )
    }
  })

interface Settle {
  readonly hold: string
  readonly account: string
  readonly capture: number
  readonly key?: string
  readonly entity?: string
  /** More subjects of the same call: one measurement and one point each, after the entity's */
  readonly more?: ReadonlyArray<string>
  readonly reveals?: (w: string) => string
}

const entitiesOf = (s: Settle) => (s.entity === undefined ? [] : [s.entity, ...(s.more ?? [])])

const recordsOf = (s: Settle, w: string) => ({
  measurements: JSON.stringify(
    entitiesOf(s).map((entity) => ({
      platform: "maps",
      op: "places",
      entity: entity + w,
      freshness_key: `maps/places/${entity + w}/{}`,
      measured_at: "2026-11-26T01:00:00.000Z",
      rows: [{ subject: entity, n: 1 }],
      rows_asked: 1,
      exhaustive: true,
      found: true,
      source: "test",
      hold_id: s.hold + w
    }))
  ),
  points: JSON.stringify(
    entitiesOf(s).map((entity) => ({
      platform: "maps",
      entity: entity + w,
      store: "",
      stay: null,
      measured_at: "2026-11-26T01:00:00.000Z",
      metrics: { rating: 4.5, reviews: 12 },
      source: "test"
    }))
  ),
  reveals: s.reveals?.(w) ?? "[]"
})

const answerOf = (s: Settle) => (s.key === undefined ? null : JSON.stringify({ data: [{ id: s.hold }], coverage: [] }))

/** The settles as one batch (world w), answered by ask number. */
const settleBatch = (w: string, asks: ReadonlyArray<Settle>) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const json = asks.map((a) => recordsOf(a, w))
    const rows = yield* sql`SELECT ord, balance::int AS balance, held::int AS held, captured::int AS captured, kept
      FROM pdr_settle_batch_keep(${asks.map((a) => a.hold + w)}::text[], ${asks.map((a) => a.account + w)}::text[],
        ${asks.map((a) => a.capture)}::bigint[], ${asks.map(() => "maps places")}::text[],
        ${json.map((j) => j.measurements)}::text[], ${json.map((j) => j.points)}::text[],
        ${json.map((j) => j.reveals)}::text[], ${asks.map((a) => a.key ?? null)}::text[],
        ${asks.map((a) => (a.key === undefined ? null : 200))}::integer[], ${asks.map(answerOf)}::text[])`
    return asks.map((_, i) => {
      const r = rows.find((x) => Number(x["ord"]) === i + 1)
      return r === undefined
        ? null
        : { balance: r["balance"], held: r["held"], captured: r["captured"], kept: r["kept"] }
    })
  })

/** The same settles one by one, as each runs alone (world w). */
const settleAlone = (w: string, asks: ReadonlyArray<Settle>) =>
  Effect.forEach(asks, (a) =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const j = recordsOf(a, w)
      const rows =
        a.key === undefined
          ? yield* sql`SELECT balance::int AS balance, held::int AS held, captured::int AS captured, NULL::text AS kept
              FROM pdr_settle(${a.hold + w}, ${a.account + w}, ${a.capture}, 'maps places', ${j.measurements}::jsonb,
                ${j.points}::jsonb, ${j.reveals}::jsonb)`
          : yield* sql`SELECT balance::int AS balance, held::int AS held, captured::int AS captured, kept
              FROM pdr_settle_keep(${a.hold + w}, ${a.account + w}, ${a.capture}, 'maps places',
                ${j.measurements}::jsonb, ${j.points}::jsonb, ${j.reveals}::jsonb, ${a.key}, 200, ${answerOf(a)})`
      const r = rows[0]
      return r === undefined
        ? null
        : { balance: r["balance"], held: r["held"], captured: r["captured"], kept: r["kept"] }
    })
  )

const sameSettles = (
  credits: Record<string, number>,
  holds: ReadonlyArray<readonly [string, string, number]>,
  asks: ReadonlyArray<Settle>,
  before?: (w: string) => Effect.Effect<unknown, unknown, SqlClient.SqlClient>
) =>
  Effect.gen(function* () {
    const n = world++
    const batchWorld = `_b${n}_${Date.now()}`
    const aloneWorld = `_a${n}_${Date.now()}`
    const keys = asks.filter((a) => a.key !== undefined).map((a) => [a.account, a.key!] as const)
    for (const w of [batchWorld, aloneWorld]) {
      yield* seed(w, credits, holds, keys)
      if (before !== undefined) yield* before(w)
    }
    const batch = yield* settleBatch(batchWorld, asks)
    const alone = yield* settleAlone(aloneWorld, asks)
    assert.deepStrictEqual(batch, alone)
    assert.deepStrictEqual(
      yield* snapshot(batchWorld, Object.keys(credits)),
      yield* snapshot(aloneWorld, Object.keys(credits))
    )
    return batch
  })

/** The same asks as draws from shared holds (issue 19: a refresh batch's entities), as one batch (world w). */
const drawBatch = (w: string, asks: ReadonlyArray<Settle>) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const json = asks.map((a) => recordsOf(a, w))
    const rows = yield* sql`SELECT ord, balance::int AS balance, held::int AS held, captured::int AS captured, kept
      FROM pdr_draw_batch_keep(${asks.map((a) => a.hold + w)}::text[], ${asks.map((a) => a.account + w)}::text[],
        ${asks.map((a) => a.capture)}::bigint[], ${asks.map((a) => `refresh ${a.entity ?? a.hold}`)}::text[],
        ${json.map((j) => j.measurements)}::text[], ${json.map((j) => j.points)}::text[],
        ${json.map((j) => j.reveals)}::text[], ${asks.map((a) => a.key ?? null)}::text[],
        ${asks.map((a) => (a.key === undefined ? null : 200))}::integer[], ${asks.map(answerOf)}::text[])`
    return asks.map((_, i) => {
      const r = rows.find((x) => Number(x["ord"]) === i + 1)
      return r === undefined
        ? null
        : { balance: r["balance"], held: r["held"], captured: r["captured"], kept: r["kept"] }
    })
  })

/** The same draws one by one (pdr_draw, pdr_draw_keep: a draw alone), world w. */
const drawAlone = (w: string, asks: ReadonlyArray<Settle>) =>
  Effect.forEach(asks, (a) =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const j = recordsOf(a, w)
      const reason = `refresh ${a.entity ?? a.hold}`
      const rows =
        a.key === undefined
          ? yield* sql`SELECT balance::int AS balance, held::int AS held, captured::int AS captured, NULL::text AS kept
              FROM pdr_draw(${a.hold + w}, ${a.account + w}, ${a.capture}, ${reason}, ${j.measurements}::jsonb,
                ${j.points}::jsonb, ${j.reveals}::jsonb)`
          : yield* sql`SELECT balance::int AS balance, held::int AS held, captured::int AS captured, kept
              FROM pdr_draw_keep(${a.hold + w}, ${a.account + w}, ${a.capture}, ${reason},
                ${j.measurements}::jsonb, ${j.points}::jsonb, ${j.reveals}::jsonb, ${a.key}, 200, ${answerOf(a)})`
      const r = rows[0]
      return r === undefined
        ? null
        : { balance: r["balance"], held: r["held"], captured: r["captured"], kept: r["kept"] }
    })
  )

/** A batch of draws answers and writes what the same draws do one by one (the holds' captures and reasons too). */
const sameDraws = (
  credits: Record<string, number>,
  holds: ReadonlyArray<readonly [string, string, number]>,
  asks: ReadonlyArray<Settle>,
  before?: (w: string) => Effect.Effect<unknown, unknown, SqlClient.SqlClient>
) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const n = world++
    const batchWorld = `_db${n}_${Date.now()}`
    const aloneWorld = `_da${n}_${Date.now()}`
    // each (account, key) once: a key asked twice has one record
    const keys = [...new Set(asks.filter((a) => a.key !== undefined).map((a) => `${a.account}\t${a.key}`))].map(
      (k) => k.split("\t") as [string, string]
    )
    for (const w of [batchWorld, aloneWorld]) {
      yield* seed(w, credits, holds, keys)
      if (before !== undefined) yield* before(w)
    }
    const batch = yield* drawBatch(batchWorld, asks)
    const alone = yield* drawAlone(aloneWorld, asks)
    assert.deepStrictEqual(batch, alone)
    const holdsOf = (w: string) =>
      Effect.map(
        sql`SELECT id, status, captured::int AS captured, reason FROM holds WHERE id LIKE ${`%${w}`} ORDER BY id`,
        (rs) => rs.map((r) => ({ ...r, id: String(r["id"]).split(w)[0] }))
      )
    assert.deepStrictEqual(yield* holdsOf(batchWorld), yield* holdsOf(aloneWorld))
    assert.deepStrictEqual(
      yield* snapshot(batchWorld, Object.keys(credits)),
      yield* snapshot(aloneWorld, Object.keys(credits))
    )
    return batch
  })

interface Place {
  readonly hold: string
  readonly account: string
  readonly amount: number
}

const samePlaces = (credits: Record<string, number>, asks: ReadonlyArray<Place>) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const n = world++
    const batchWorld = `_pb${n}_${Date.now()}`
    const aloneWorld = `_pa${n}_${Date.now()}`
    for (const w of [batchWorld, aloneWorld]) yield* seed(w, credits, [], [])
    const refused = yield* sql`SELECT ord, available::int AS available FROM pdr_place_holds(
      ${asks.map((a) => a.hold + batchWorld)}::text[], ${asks.map((a) => a.account + batchWorld)}::text[],
      ${asks.map((a) => `key_${a.account}`)}::text[], ${asks.map((a) => a.amount)}::bigint[],
      ${asks.map(() => expires.toISOString())}::timestamptz[])`
    const batch = asks.map((_, i) => {
      const r = refused.find((x) => Number(x["ord"]) === i + 1)
      return r === undefined ? "placed" : { available: r["available"] }
    })
    const alone = yield* Effect.forEach(asks, (a) =>
      Effect.gen(function* () {
        const rows = yield* sql`SELECT id FROM pdr_place_hold(${a.hold + aloneWorld}, ${a.account + aloneWorld},
          ${`key_${a.account}`}, ${a.amount}, ${expires})`
        if (rows.length > 0) return "placed"
        const s = yield* sql`SELECT balance - held AS s FROM accounts WHERE id = ${a.account + aloneWorld}`
        return { available: s.length === 0 ? 0 : Number(s[0]!["s"]) }
      })
    )
    assert.deepStrictEqual(batch, alone)
    const ofWorld = (w: string) =>
      Effect.map(
        sql`SELECT h.id, h.account_id, h.key_id, h.amount::int AS amount, h.status FROM holds h
            WHERE h.id LIKE ${`%${w}`} ORDER BY h.id`,
        (rs) =>
          rs.map((r) => ({ ...r, id: String(r["id"]).split(w)[0], account_id: String(r["account_id"]).split(w)[0] }))
      )
    assert.deepStrictEqual(yield* ofWorld(batchWorld), yield* ofWorld(aloneWorld))
    assert.deepStrictEqual(
      yield* snapshot(batchWorld, Object.keys(credits)),
      yield* snapshot(aloneWorld, Object.keys(credits))
    )
    return batch
  })

for (const t of targets) {
  describe.skipIf(!t.enabled)(`batches as alone on ${t.name}`, () => {
    layer(Layer.provideMerge(PgFetchLeases.layer, services(t.target)), { timeout: "120 seconds" })((it) => {
      it.effect("a batch of settles answers and writes what the same settles write one by one", () =>
        Effect.gen(function* () {
          const answers = yield* sameSettles(
            { acA: 1000, acB: 500 },
            [
              ["h1", "acA", 100],
              ["h2", "acA", 50],
              ["h3", "acA", 30],
              ["h4", "acB", 40],
              ["h5", "acB", 20],
              ["h6", "acB", 10]
            ],
            [
              { hold: "h1", account: "acA", capture: 60, key: "k1", entity: "e1" },
              { hold: "h4", account: "acB", capture: 0, entity: "e2" },
              { hold: "h2", account: "acA", capture: 50, entity: "e3" },
              { hold: "h5", account: "acB", capture: 5, key: "k2" },
              { hold: "h3", account: "acA", capture: 10, key: "k3", entity: "e4" },
              { hold: "h6", account: "acB", capture: 15 }
            ],
            // h5 is no longer held when the batch runs
            (w) =>
              Effect.flatMap(SqlClient.SqlClient, (sql) => sql`SELECT * FROM pdr_close_hold(${`h5${w}`}, 'released')`)
          )
          // each answer is the account after its own settle: h1, then h2, then h3 on acA
          assert.deepStrictEqual(
            answers.map((a) => a && [a.balance, a.held, a.captured]),
            [[940, 80, 60], [500, 10, 0], [890, 30, 50], null, [880, 0, 10], null]
          )
        })
      )

      it.effect("a batch with a hold asked twice, or a reveal, answers as one by one", () =>
        Effect.gen(function* () {
          yield* sameSettles(
            { acC: 300 },
            [
              ["h1", "acC", 100],
              ["h2", "acC", 50]
            ],
            [
              { hold: "h1", account: "acC", capture: 60, entity: "e1" },
              { hold: "h1", account: "acC", capture: 10, entity: "e2" },
              { hold: "h2", account: "acC", capture: 5, key: "k1" }
            ]
          )
          yield* sameSettles(
            { acD: 300 },
            [
              ["h1", "acD", 100],
              ["h2", "acD", 50]
            ],
            [
              { hold: "h1", account: "acD", capture: 60, entity: "e1" },
              {
                hold: "h2",
                account: "acD",
                capture: 5,
                reveals: (w) =>
                  JSON.stringify([
                    {
                      account_id: `acD${w}`,
                      person: "p1",
                      part: "email",
                      status: "revealed",
                      value: "a@b.c",
                      revealed_at: "2026-11-26T01:00:00.000Z",
                      source: "test",
                      credits: 3
                    }
                  ])
              }
            ]
          )
        })
      )

      // issue 22: a settle without reveals is one statement in the batch's loop and its rows are written with the other
      // such settles' (pdr_settle_batch_write, migration 0036); a settle with reveals writes its own between them
      it.effect("a batch of settles written together answers and writes, in ask order, what one by one does", () =>
        Effect.gen(function* () {
          const reveal = (w: string) =>
            JSON.stringify([
              {
                account_id: `acE${w}`,
                person: "p1",
                part: "phone",
                status: "revealed",
                value: "+1-555-0100",
                revealed_at: "2026-11-26T01:00:00.000Z",
                source: "test",
                credits: 2
              }
            ])
          const holds = [
            ["h1", "acE", 100],
            ["h2", "acF", 50],
            ["h3", "acE", 30],
            ["h4", "acE", 20],
            ["h5", "acF", 40],
            ["h6", "acE", 10],
            ["h7", "acF", 10]
          ] as const
          const asks = (withReveal: boolean): ReadonlyArray<Settle> => [
            // several subjects: their measurements in their order
            { hold: "h1", account: "acE", capture: 60, key: "k1", entity: "e1", more: ["e1b", "e1c"] },
            // the whole hold captured, asked with another account than the hold's (the hold's is charged)
            { hold: "h2", account: "acE", capture: 50, entity: "e2" },
            {
              hold: "h3",
              account: "acE",
              capture: 5,
              key: "k2",
              entity: "e3",
              ...(withReveal ? { reveals: reveal } : {})
            },
            // above its hold: refused, nothing written, the hold still held for the next ask of it
            { hold: "h4", account: "acE", capture: 21, key: "k3", entity: "e4" },
            { hold: "h5", account: "acF", capture: 0, key: "k4", entity: "e5", more: ["e5b"] },
            { hold: "h4", account: "acE", capture: 20, entity: "e4b" },
            { hold: "h6", account: "acE", capture: 10, entity: "e6" },
            // its hold settled above in this batch: not held
            { hold: "h1", account: "acE", capture: 1, entity: "e7" },
            { hold: "h7", account: "acF", capture: 3, key: "k5" }
          ]
          // with a reveal, the batch's loop; without, the batch at once (both as one by one)
          const answered = (answers: ReadonlyArray<{ readonly captured: unknown } | null>) =>
            answers.map((a) => (a === null ? null : a.captured))
          assert.deepStrictEqual(answered(yield* sameSettles({ acE: 1000, acF: 300 }, holds, asks(true))), [
            60,
            50,
            7,
            null,
            0,
            20,
            10,
            null,
            3
          ])
          assert.deepStrictEqual(answered(yield* sameSettles({ acE: 1000, acF: 300 }, holds, asks(false))), [
            60,
            50,
            5,
            null,
            0,
            20,
            10,
            null,
            3
          ])
        })
      )

      // issue 19: a draw without reveals is two reads in the batch's loop and its rows are written with the other such
      // draws' (pdr_draw_batch_write, migration 0040); a draw with reveals is drawn alone between them
      it.effect("a batch of draws from shared holds answers and writes, in ask order, what one by one does", () =>
        Effect.gen(function* () {
          const reveal = (w: string) =>
            JSON.stringify([
              {
                account_id: `acG${w}`,
                person: "p1",
                part: "phone",
                status: "revealed",
                value: "+1-555-0100",
                revealed_at: "2026-11-26T01:00:00.000Z",
                source: "test",
                credits: 2
              }
            ])
          const holds = [
            ["h1", "acG", 30],
            ["h2", "acH", 10],
            ["h3", "acG", 5],
            ["h4", "acG", 8]
          ] as const
          const asks = (withReveal: boolean): ReadonlyArray<Settle> => [
            // one hold drawn by several entities: each within what is left after the ones before
            { hold: "h1", account: "acG", capture: 10, key: "k1", entity: "e1", more: ["e1b"] },
            { hold: "h1", account: "acG", capture: 15, entity: "e2" },
            // above what is left of h1 (30 - 25): refused, nothing written
            { hold: "h1", account: "acG", capture: 6, key: "k2", entity: "e3" },
            { hold: "h2", account: "acH", capture: 0, key: "k3", entity: "e4" },
            {
              hold: "h3",
              account: "acG",
              capture: 2,
              key: "k4",
              entity: "e5",
              ...(withReveal ? { reveals: reveal } : {})
            },
            // what is left of h1 exactly
            { hold: "h1", account: "acG", capture: 5, entity: "e6" },
            // closed before the batch: not held
            { hold: "h4", account: "acG", capture: 1, key: "k5", entity: "e7" },
            // h3 after the draw above (with its reveal: 5 - 4 = 1 left; without: 5 - 2 = 3)
            { hold: "h3", account: "acG", capture: 2, entity: "e8" },
            // the same idempotency key again: the later answer kept
            { hold: "h2", account: "acH", capture: 3, key: "k3", entity: "e9" }
          ]
          const closeH4 = (w: string) =>
            Effect.flatMap(SqlClient.SqlClient, (sql) => sql`SELECT * FROM pdr_close_hold(${`h4${w}`}, 'released')`)
          const answered = (answers: ReadonlyArray<{ readonly captured: unknown } | null>) =>
            answers.map((a) => (a === null ? null : a.captured))
          assert.deepStrictEqual(answered(yield* sameDraws({ acG: 1000, acH: 300 }, holds, asks(true), closeH4)), [
            10,
            15,
            null,
            0,
            4,
            5,
            null,
            null,
            3
          ])
          assert.deepStrictEqual(answered(yield* sameDraws({ acG: 1000, acH: 300 }, holds, asks(false), closeH4)), [
            10,
            15,
            null,
            0,
            2,
            5,
            null,
            2,
            3
          ])
        })
      )

      it.effect("a batch of holds places and refuses what the same holds do one by one", () =>
        Effect.gen(function* () {
          // every account covers its asks: placed together
          assert.deepStrictEqual(
            yield* samePlaces({ acA: 100, acB: 10 }, [
              { hold: "h1", account: "acA", amount: 40 },
              { hold: "h2", account: "acB", amount: 10 },
              { hold: "h3", account: "acA", amount: 60 }
            ]),
            ["placed", "placed", "placed"]
          )
          // one account does not cover its asks, another does not exist: in turn
          assert.deepStrictEqual(
            yield* samePlaces({ acA: 100, acB: 10 }, [
              { hold: "h1", account: "acA", amount: 40 },
              { hold: "h2", account: "acA", amount: 70 },
              { hold: "h3", account: "acZ", amount: 5 },
              { hold: "h4", account: "acA", amount: 60 },
              { hold: "h5", account: "acB", amount: 10 }
            ]),
            ["placed", { available: 60 }, { available: 0 }, "placed", "placed"]
          )
        })
      )

      it.effect("grouped settles give back the fetch leases of the calls they settle, in their transaction", () =>
        Effect.gen(function* () {
          const accounts = yield* Accounts.Accounts
          const ledger = yield* Ledger.Ledger
          const leases = yield* FetchLeases.FetchLeases
          const account = yield* accounts.create({ name: "leases", credits: 100 })
          const stamp = Date.now()
          const holds = yield* Effect.forEach([1, 2, 3], (i) =>
            ledger.placeHold({
              id: `hold_lease_${stamp}_${i}`,
              accountId: account.id,
              keyId: null,
              amount: 5,
              expiresAt: new Date(Date.now() + 60_000)
            })
          )
          // the third hold is released before its settle: not settled, its lease stays with its caller
          yield* ledger.release(holds[2]!.id)
          const taken = yield* Effect.forEach(holds, (_, i) =>
            Effect.map(leases.take(`lease_${stamp}_${i}`, 60_000), (o) => ({
              key: `lease_${stamp}_${i}`,
              token: Option.getOrThrow(o)
            }))
          )
          const results = yield* Effect.all(
            holds.map((h, i) =>
              Effect.either(
                ledger.settle({
                  holdId: h.id,
                  accountId: account.id,
                  capture: 2,
                  reason: "maps places",
                  records: { measurements: [], points: [], reveals: [] },
                  leases: [taken[i]!]
                })
              )
            ),
            { concurrency: "unbounded" }
          )
          assert.isTrue(Either.isRight(results[0]!) && results[0].right.leasesReleased === true)
          assert.isTrue(Either.isRight(results[1]!) && results[1].right.leasesReleased === true)
          assert.isTrue(Either.isLeft(results[2]!))
          // the settled calls' leases are free again; the unsettled one's is still held
          assert.isTrue(Option.isSome(yield* leases.take(taken[0]!.key, 60_000)))
          assert.isTrue(Option.isSome(yield* leases.take(taken[1]!.key, 60_000)))
          assert.isTrue(Option.isNone(yield* leases.take(taken[2]!.key, 60_000)))
        })
      )
    })
  })
}
