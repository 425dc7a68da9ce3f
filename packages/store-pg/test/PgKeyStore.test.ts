// D6: keys are stored as digest + prefix only, revocation is immediate, expiry is exact, and every refusal is the same.

import { createHash } from "node:crypto"
import { SqlClient } from "@effect/sql"
import { assert, describe, layer } from "@effect/vitest"
import { Accounts, KeyStore, Keys, RateLimits } from "@pdr/domain"
import { Effect, Either, FastCheck as fc, Layer, TestClock } from "effect"
import * as PgRateLimits from "../src/PgRateLimits.js"
import * as Testing from "../src/Testing.js"
import { services } from "./layers.js"

const targets = await Testing.targets()
const sha256 = (s: string) => createHash("sha256").update(s).digest("hex")
const start = Date.parse("2026-11-21T12:00:00Z")

const refusal = (credentials: Keys.Credentials) =>
  Effect.gen(function* () {
    const keys = yield* Keys.Keys
    const r = yield* Effect.either(keys.authenticate(credentials))
    assert.isTrue(Either.isLeft(r), "expected a refusal")
    const e = (r as Either.Left<Keys.Unauthorized, unknown>).left
    return JSON.stringify({ tag: e._tag, message: e.message, fields: { ...e } })
  })

for (const t of targets) {
  describe.skipIf(!t.enabled)(`Keys on ${t.name}`, () => {
    layer(services(t.target), { timeout: "60 seconds" })((it) => {
      it.effect("D6: a key is key_live_ + 32 base62; only its SHA-256 digest and 13-character prefix are stored", () =>
        Effect.gen(function* () {
          yield* TestClock.setTime(start)
          const accounts = yield* Accounts.Accounts
          const keys = yield* Keys.Keys
          const sql = yield* SqlClient.SqlClient
          const account = yield* accounts.create({ name: "keys" })
          const created = yield* keys.create({ accountId: account.id, name: "ci" })
          assert.match(created.key, /^key_live_[0-9A-Za-z]{32}$/)
          assert.strictEqual(created.stored.prefix, created.key.slice(0, 13))
          const rows = yield* sql`SELECT * FROM api_keys WHERE id = ${created.stored.id}`
          assert.strictEqual(rows.length, 1)
          assert.strictEqual(rows[0]!["digest"], sha256(created.key))
          assert.notInclude(JSON.stringify(rows), created.key)
          const caller = yield* keys.authenticate({ apiKey: created.key, authorization: undefined })
          assert.deepStrictEqual(caller, {
            accountId: account.id,
            keyId: created.stored.id,
            prefix: created.stored.prefix,
            spendable: 0
          })
          const viaBearer = yield* keys.authenticate({ apiKey: undefined, authorization: `Bearer ${created.key}` })
          assert.strictEqual(viaBearer.keyId, created.stored.id)
          const same = yield* keys.authenticate({ apiKey: created.key, authorization: `Bearer ${created.key}` })
          assert.strictEqual(same.keyId, created.stored.id)
        })
      )

      it.effect("D6: revocation refuses the very next call", () =>
        Effect.gen(function* () {
          yield* TestClock.setTime(start)
          const accounts = yield* Accounts.Accounts
          const keys = yield* Keys.Keys
          const account = yield* accounts.create({ name: "revoke" })
          const { key, stored } = yield* keys.create({ accountId: account.id, name: "soon revoked" })
          yield* keys.authenticate({ apiKey: key, authorization: undefined })
          const revoked = yield* keys.revoke(stored.id)
          assert.isFalse(revoked.alreadyRevoked)
          yield* refusal({ apiKey: key, authorization: undefined })
          assert.isTrue((yield* keys.revoke(stored.id)).alreadyRevoked)
          const missing = yield* Effect.either(keys.revoke("kid_nope"))
          assert.isTrue(Either.isLeft(missing) && missing.left._tag === "KeyNotFound")
        })
      )

      it.effect(
        "D6: lookups made together share one statement and each gets its own key; a key revoked before is refused",
        () =>
          Effect.gen(function* () {
            yield* TestClock.setTime(start)
            const accounts = yield* Accounts.Accounts
            const keys = yield* Keys.Keys
            const account = yield* accounts.create({ name: "together", credits: 7 })
            const created = yield* Effect.all(
              Array.from({ length: 20 }, (_, i) => keys.create({ accountId: account.id, name: `k${i}` }))
            )
            yield* keys.revoke(created[3]!.stored.id)
            const asks = [
              ...created.map((c) => c.key),
              ...created.map((c) => c.key),
              ...Array.from({ length: 10 }, (_, i) => `key_live_${"x".repeat(31)}${i}`)
            ]
            const answers = yield* Effect.all(
              asks.map((apiKey) => Effect.either(keys.authenticate({ apiKey, authorization: undefined }))),
              { concurrency: "unbounded" }
            )
            answers.forEach((answer, i) => {
              const owner = created[i % 20]
              if (i >= 40 || i % 20 === 3) assert.isTrue(Either.isLeft(answer), `ask ${i} refused`)
              else {
                assert.isTrue(Either.isRight(answer), `ask ${i} accepted`)
                const caller = (answer as Either.Right<never, Keys.Caller>).right
                assert.deepStrictEqual(
                  [caller.keyId, caller.accountId, caller.spendable],
                  [owner!.stored.id, account.id, 7]
                )
              }
            })
          })
      )

      it.effect("D6: a key with an expiry works 1 ms before it and is refused at it and 1 ms after", () =>
        Effect.gen(function* () {
          yield* TestClock.setTime(start)
          const accounts = yield* Accounts.Accounts
          const keys = yield* Keys.Keys
          const account = yield* accounts.create({ name: "expiry" })
          const expiresAt = new Date(start + 3_600_000)
          const { key } = yield* keys.create({ accountId: account.id, name: "expiring", expiresAt })
          yield* TestClock.setTime(expiresAt.getTime() - 1)
          yield* keys.authenticate({ apiKey: key, authorization: undefined })
          yield* TestClock.setTime(expiresAt.getTime())
          yield* refusal({ apiKey: key, authorization: undefined })
          yield* TestClock.setTime(expiresAt.getTime() + 1)
          yield* refusal({ apiKey: key, authorization: undefined })
          const past = yield* Effect.either(
            keys.create({ accountId: account.id, name: "past", expiresAt: new Date(start) })
          )
          assert.isTrue(Either.isLeft(past) && past.left._tag === "InvalidInput")
        })
      )

      it.effect("D6: calls are counted off the request path and credits spent equal the key's captures", () =>
        Effect.gen(function* () {
          yield* TestClock.setTime(start)
          const accounts = yield* Accounts.Accounts
          const keys = yield* Keys.Keys
          const sql = yield* SqlClient.SqlClient
          const account = yield* accounts.create({ name: "counters", credits: 10 })
          const { stored } = yield* keys.create({ accountId: account.id, name: "counted" })
          for (let i = 0; i < 3; i++) yield* keys.recordCall(stored.id)
          const before = yield* sql`SELECT calls FROM api_keys WHERE id = ${stored.id}`
          assert.strictEqual(Number(before[0]!["calls"]), 0)
          yield* sql`INSERT INTO ledger (account_id, kind, credits, reason, key_id) VALUES (${account.id}, 'capture', -4, 'test', ${stored.id})`
          const listed = yield* keys.list(account.id)
          assert.strictEqual(listed[0]!.calls, 3)
          assert.strictEqual(listed[0]!.creditsSpent, 4)
          assert.isTrue(listed[0]!.lastUsedAt._tag === "Some")
        })
      )

      it.effect(
        "D104: a usage batch sent again (its first answer lost) is counted once; the batches after it add",
        () =>
          Effect.gen(function* () {
            yield* TestClock.setTime(start)
            const accounts = yield* Accounts.Accounts
            const keys = yield* Keys.Keys
            const store = yield* KeyStore.KeyStore
            const sql = yield* SqlClient.SqlClient
            const account = yield* accounts.create({ name: "usage batches" })
            const { stored } = yield* keys.create({ accountId: account.id, name: "batched" })
            const batch = (id: string, calls: number) => ({
              id: `${id}_${stored.id}`,
              usage: [{ keyId: stored.id, calls, lastUsedAt: new Date(start) }],
              daily: [{ keyId: stored.id, day: "2026-11-21", platform: "maps", op: "places", calls }]
            })
            yield* store.recordUsage([batch("usage_one", 3)])
            yield* store.recordUsage([batch("usage_one", 3), batch("usage_two", 1)])
            yield* store.recordUsage([batch("usage_two", 1)])
            const counted = yield* sql`SELECT calls FROM api_keys WHERE id = ${stored.id}`
            assert.strictEqual(Number(counted[0]!["calls"]), 4)
            const daily = yield* sql`SELECT calls FROM key_usage_daily WHERE key_id = ${stored.id}`
            assert.deepStrictEqual(
              daily.map((r) => Number(r["calls"])),
              [4]
            )
          })
      )

      it.effect("D104: a flush whose write committed but whose answer was lost is not counted twice by Keys", () =>
        Effect.gen(function* () {
          yield* TestClock.setTime(start)
          const accounts = yield* Accounts.Accounts
          const sql = yield* SqlClient.SqlClient
          // the store as it is, but the first write's answer lost after its commit (a connection dropped then)
          let lose = true
          const answerLost = Layer.effect(
            KeyStore.KeyStore,
            Effect.map(KeyStore.KeyStore, (real) => ({
              ...real,
              recordUsage: (batches: ReadonlyArray<KeyStore.UsageBatch>) =>
                Effect.zipRight(
                  real.recordUsage(batches),
                  Effect.suspend(() => {
                    if (!lose) return Effect.void
                    lose = false
                    return Effect.die(new Error("Connection terminated unexpectedly"))
                  })
                )
            }))
          )
          yield* Effect.gen(function* () {
            const keys = yield* Keys.Keys
            const account = yield* accounts.create({ name: "usage lost answer" })
            const { stored } = yield* keys.create({ accountId: account.id, name: "lost" })
            for (let i = 0; i < 3; i++) yield* keys.recordCall(stored.id)
            yield* keys.recordOp(stored.id, "maps", "places")
            assert.isTrue((yield* Effect.exit(keys.flushUsage()))._tag === "Failure")
            yield* keys.recordCall(stored.id)
            yield* keys.recordOp(stored.id, "maps", "places")
            yield* keys.flushUsage()
            const counted = yield* sql`SELECT calls FROM api_keys WHERE id = ${stored.id}`
            assert.strictEqual(Number(counted[0]!["calls"]), 4)
            const daily = yield* sql`SELECT sum(calls) AS n FROM key_usage_daily WHERE key_id = ${stored.id}`
            assert.strictEqual(Number(daily[0]!["n"]), 2)
          }).pipe(Effect.provide(Keys.Keys.Default.pipe(Layer.provide(answerLost))))
        })
      )

      it.effect(
        "issue 22: a request's key and its token in one read: the store's bucket answers, shared with the takes",
        () =>
          Effect.gen(function* () {
            yield* TestClock.setTime(start)
            const accounts = yield* Accounts.Accounts
            const keys = yield* Keys.Keys
            const sql = yield* SqlClient.SqlClient
            const account = yield* accounts.create({ name: "admit", credits: 5 })
            const live = yield* keys.create({ accountId: account.id, name: "live" })
            const other = yield* keys.create({ accountId: account.id, name: "other" })
            const revoked = yield* keys.create({ accountId: account.id, name: "revoked" })
            yield* keys.revoke(revoked.stored.id)
            const policy = { name: `admit${Math.random().toString(36).slice(2)}`, perSecond: 0.001, burst: 3 }
            const shared = yield* PgRateLimits.buckets(policy)
            // the store's read must answer the decision: a take asked separately would die
            const readOnly: RateLimits.Buckets = { ...shared, take: () => Effect.die("a second round trip") }
            const asks = [live.key, live.key, other.key, live.key, live.key, `key_live_${"Q".repeat(32)}`, revoked.key]
            const answers = yield* Effect.all(
              asks.map((apiKey) => Effect.either(keys.admit({ apiKey, authorization: undefined }, readOnly))),
              { concurrency: "unbounded" }
            )
            const seen = answers.map((a) =>
              Either.isLeft(a)
                ? a.left._tag
                : [a.right.caller.keyId, a.right.caller.spendable, a.right.decision.allowed]
            )
            // the live key's four asks take its three tokens in the order asked; the other key has its own bucket
            assert.deepStrictEqual(seen, [
              [live.stored.id, 5, true],
              [live.stored.id, 5, true],
              [other.stored.id, 5, true],
              [live.stored.id, 5, true],
              [live.stored.id, 5, false],
              "Unauthorized",
              "Unauthorized"
            ])
            const refused = answers[4] as Either.Right<Keys.Unauthorized, Keys.Admitted>
            assert.deepStrictEqual(refused.right.decision, { allowed: false, remaining: 0, resetSeconds: 1000 })
            // the same bucket as the per-key takes of PgRateLimits: empty for the live key, two left for the other
            assert.isFalse((yield* shared.take(live.stored.id)).allowed)
            assert.strictEqual((yield* shared.take(other.stored.id)).remaining, 1)
            // an unknown key takes nothing: no bucket but the keys'
            const rows = yield* sql`SELECT key FROM rate_buckets WHERE name = ${policy.name} ORDER BY key`
            assert.deepStrictEqual(
              rows.map((r) => r["key"]),
              [live.stored.id, other.stored.id, revoked.stored.id].sort()
            )
            // buckets kept elsewhere (in memory): the read takes nothing and the buckets' take answers
            const local = RateLimits.buckets({ ...policy, burst: 1 })
            const first = yield* keys.admit({ apiKey: live.key, authorization: undefined }, local)
            const second = yield* keys.admit({ apiKey: live.key, authorization: undefined }, local)
            assert.deepStrictEqual([first.decision.allowed, second.decision.allowed], [true, false])
          })
      )

      it.effect.prop(
        "D6 invariant: missing, malformed, unknown, revoked and expired keys are indistinguishable",
        [
          fc.constantFrom("missing", "malformed", "unknown", "revoked", "expired", "bearer-mismatch", "not-bearer"),
          fc.string({ maxLength: 40 })
        ],
        ([kind, noise]) =>
          Effect.gen(function* () {
            yield* TestClock.setTime(start)
            const accounts = yield* Accounts.Accounts
            const keys = yield* Keys.Keys
            const account = yield* accounts.create({ name: "matrix" })
            const live = yield* keys.create({ accountId: account.id, name: "live" })
            const revoked = yield* keys.create({ accountId: account.id, name: "revoked" })
            yield* keys.revoke(revoked.stored.id)
            const expired = yield* keys.create({
              accountId: account.id,
              name: "expired",
              expiresAt: new Date(start + 1000)
            })
            yield* TestClock.setTime(start + 2000)
            const credentials: Record<string, Keys.Credentials> = {
              missing: { apiKey: undefined, authorization: undefined },
              malformed: { apiKey: `key_live_${noise}`, authorization: undefined },
              unknown: { apiKey: `key_live_${"A".repeat(32)}`, authorization: undefined },
              revoked: { apiKey: revoked.key, authorization: undefined },
              expired: { apiKey: expired.key, authorization: undefined },
              "bearer-mismatch": { apiKey: live.key, authorization: `Bearer ${revoked.key}` },
              "not-bearer": { apiKey: undefined, authorization: `Basic ${live.key}` }
            }
            const reference = yield* refusal(credentials["missing"]!)
            assert.strictEqual(yield* refusal(credentials[kind]!), reference)
          }),
        { fastCheck: { numRuns: 20 } }
      )
    })
  })
}
