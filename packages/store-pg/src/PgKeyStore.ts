/** The KeyStore port on PostgreSQL: only the SHA-256 digest and the visible prefix of a key are stored (D6). */
import { SqlClient } from "@effect/sql"
import { KeyStore as K, RateLimits } from "@pdr/domain"
import { Effect, Layer, Option } from "effect"
import * as Coalesce from "./Coalesce.js"
import { readOnly } from "./Failures.js"
import { num, optionalUtc, utc } from "./Rows.js"

const columns = (sql: SqlClient.SqlClient) => sql`
  k.id, k.account_id, k.name, k.prefix, k.created_at, k.expires_at, k.revoked_at, k.last_used_at, k.calls,
  k.monthly_credit_limit, k.replaced_by,
  coalesce((SELECT -sum(l.credits) FROM ledger l WHERE l.key_id = k.id AND l.kind = 'capture'), 0) AS credits_spent,
  coalesce((SELECT -sum(l.credits) FROM ledger l WHERE l.key_id = k.id AND l.kind = 'capture'
            AND l.created_at >= date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), 0)
    AS credits_this_month`

/**
 * A key row as the port's StoredKey. Every field is made here by its column's conversion (String, num, utc, Option), so
 * the class's validation of them is skipped (issue 22: it was about 1% of a stored call's CPU, on every request's key).
 */
const toKey = (r: Record<string, unknown>) =>
  new K.StoredKey(
    {
      id: String(r["id"]),
      accountId: String(r["account_id"]),
      name: String(r["name"]),
      prefix: String(r["prefix"]),
      createdAt: utc(r["created_at"]),
      expiresAt: optionalUtc(r["expires_at"]),
      revokedAt: optionalUtc(r["revoked_at"]),
      lastUsedAt: optionalUtc(r["last_used_at"]),
      calls: num(r["calls"]),
      creditsSpent: num(r["credits_spent"] ?? 0),
      monthlyCreditLimit:
        r["monthly_credit_limit"] === null || r["monthly_credit_limit"] === undefined
          ? Option.none()
          : Option.some(num(r["monthly_credit_limit"])),
      creditsThisMonth: num(r["credits_this_month"] ?? 0),
      replacedBy: Option.fromNullable(r["replaced_by"] as string | null | undefined)
    },
    true
  )

/** Several batches' counts as one: calls summed per key (the latest use kept) and per key, day, platform and op. */
const merged = (batches: ReadonlyArray<K.UsageBatch>) => {
  const usage = new Map<string, { keyId: string; calls: number; lastUsedAt: Date }>()
  const daily = new Map<string, K.DailyUsage>()
  for (const b of batches) {
    for (const u of b.usage) {
      const now = usage.get(u.keyId)
      usage.set(u.keyId, {
        keyId: u.keyId,
        calls: (now?.calls ?? 0) + u.calls,
        lastUsedAt: now === undefined || u.lastUsedAt > now.lastUsedAt ? u.lastUsedAt : now.lastUsedAt
      })
    }
    for (const d of b.daily) {
      const id = `${d.keyId}\t${d.day}\t${d.platform}\t${d.op}`
      const now = daily.get(id)
      daily.set(id, { ...d, calls: (now?.calls ?? 0) + d.calls })
    }
  }
  return { usage: [...usage.values()], daily: [...daily.values()] }
}

/** The KeyStore adapter. */
export const make = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const first = (rows: ReadonlyArray<Record<string, unknown>>) => Option.map(Option.fromNullable(rows[0]), toKey)
  const findKeys = yield* Coalesce.make((digests: ReadonlyArray<string>) =>
    sql`SELECT * FROM pdr_find_keys(${digests}::text[])`.pipe(
      Effect.map((rows) => {
        const found = new Map(
          rows.map((r) => [String(r["digest"]), { key: toKey(r), spendable: Number(r["spendable"]) }] as const)
        )
        return digests.map((digest) => Option.fromNullable(found.get(digest)))
      }),
      Effect.orDie
    )
  )
  // D128: while the database takes no writes (read-only: a standby, or mid-failover, after `pdr_admit` was refused
  // on fresh connections too), a key is read without a write and its token taken from buckets of this process (the
  // limit per instance until the database takes writes again): what needs no write (the free reads of the store, the
  // history) is still answered; what does (a hold) is refused as before, nothing billed. Said once a minute; the
  // write is tried again a second after it was last refused.
  const localBuckets = new Map<RateLimits.Policy, RateLimits.Buckets>()
  let saidAt = 0
  // once refused so, the keys of the next second are read without trying the write (each try replaces a connection)
  const readOnlyFor = 1_000
  let readOnlyUntil = 0
  const admitReadOnly = (digest: string, policy: RateLimits.Policy) =>
    Effect.gen(function* () {
      if (Date.now() - saidAt > 60_000) {
        saidAt = Date.now()
        yield* Effect.logWarning(
          "the database takes no writes (read-only): keys are read without a write and rate-limited in this process until it does; calls that need a write are refused, nothing billed"
        )
      }
      const found = yield* findKeys(digest)
      if (Option.isNone(found)) return Option.none()
      let buckets = localBuckets.get(policy)
      if (buckets === undefined) {
        buckets = RateLimits.buckets(policy)
        localBuckets.set(policy, buckets)
      }
      const decision = yield* buckets.take(found.value.key.id)
      return Option.some({ ...found.value, decision })
    })
  // issue 22: the read of a request's key and the take of its token in one statement (pdr_admit), coalesced per turn
  // like the plain reads; the asks of a turn are grouped by policy (in practice one: the per-key limit)
  const admitKeys = yield* Coalesce.make(
    (asks: ReadonlyArray<{ readonly digest: string; readonly policy: RateLimits.Policy }>) =>
      Effect.map(
        Effect.forEach(
          [...new Set(asks.map((a) => a.policy))],
          (policy) => {
            const digests = asks.filter((a) => a.policy === policy).map((a) => a.digest)
            return sql`SELECT * FROM pdr_admit(${digests}::text[], ${policy.name}, ${policy.perSecond}, ${policy.burst})`.pipe(
              Effect.map((rows) => {
                const found = new Map(rows.map((r) => [num(r["ord"]), r]))
                return [
                  policy,
                  digests.map((_, i) => {
                    const r = found.get(i + 1)
                    return r === undefined
                      ? Option.none()
                      : Option.some({
                          key: toKey(r),
                          spendable: Number(r["spendable"]),
                          // the decision of a take is whether it took a token: `tokens` is what is left after it
                          decision: RateLimits.decision(policy, num(r["tokens"]), r["allowed"] === true)
                        })
                  })
                ] as const
              })
            )
          },
          { concurrency: "unbounded" }
        ),
        (answered) => {
          const byPolicy = new Map(answered.map(([policy, answers]) => [policy, { answers, next: 0 }]))
          return asks.map((a) => {
            const of = byPolicy.get(a.policy)!
            return of.answers[of.next++]!
          })
        }
      ).pipe(Effect.orDie)
  )
  return K.KeyStore.of({
    insert: (key) =>
      sql`INSERT INTO api_keys (id, account_id, name, prefix, digest, expires_at, monthly_credit_limit)
          VALUES (${key.id}, ${key.accountId}, ${key.name}, ${key.prefix}, ${key.digest}, ${Option.getOrNull(key.expiresAt)},
                  ${Option.getOrNull(key.monthlyCreditLimit ?? Option.none())})
          RETURNING *, 0 AS credits_spent`.pipe(
        Effect.map((rows) => toKey(rows[0]!)),
        Effect.orDie
      ),
    // one indexed read per request, the reads of one turn of the event loop in one statement (Coalesce)
    findByDigest: (digest, take) =>
      take === undefined
        ? findKeys(digest)
        : Date.now() < readOnlyUntil
          ? admitReadOnly(digest, take)
          : admitKeys({ digest, policy: take }).pipe(
              Effect.catchAllCause((cause) => {
                if (!readOnly(cause)) return Effect.failCause(cause)
                readOnlyUntil = Date.now() + readOnlyFor
                return admitReadOnly(digest, take)
              })
            ),
    find: (keyId) =>
      sql`SELECT ${columns(sql)} FROM api_keys k WHERE k.id = ${keyId}`.pipe(Effect.map(first), Effect.orDie),
    list: (accountId) =>
      sql`SELECT ${columns(sql)} FROM api_keys k WHERE k.account_id = ${accountId} ORDER BY k.created_at, k.id`.pipe(
        Effect.map((rows) => rows.map(toKey)),
        Effect.orDie
      ),
    rename: (keyId, name) =>
      sql`UPDATE api_keys SET name = ${name} WHERE id = ${keyId} RETURNING id`.pipe(
        Effect.map((rows) => rows.length > 0),
        Effect.orDie
      ),
    retire: (keyId, at, replacedBy) =>
      sql`UPDATE api_keys SET expires_at = least(coalesce(expires_at, ${at}), ${at}), replaced_by = ${replacedBy}
          WHERE id = ${keyId} AND revoked_at IS NULL RETURNING id`.pipe(
        Effect.map((rows) => rows.length > 0),
        Effect.orDie
      ),
    setMonthlyLimit: (keyId, limit) =>
      sql`UPDATE api_keys SET monthly_credit_limit = ${Option.getOrNull(limit)} WHERE id = ${keyId} RETURNING id`.pipe(
        Effect.map((rows) => rows.length > 0),
        Effect.orDie
      ),
    revoke: (keyId) =>
      sql`UPDATE api_keys SET revoked_at = now() WHERE id = ${keyId} AND revoked_at IS NULL RETURNING id`.pipe(
        Effect.map((rows) => rows.length > 0),
        Effect.orDie
      ),
    recordUsage: (batches) =>
      batches.length === 0
        ? Effect.void
        : sql
            .withTransaction(
              Effect.gen(function* () {
                // each batch once (D104): its id is kept a day, longer than any flush is retried; a batch whose id
                // is there was written by an earlier attempt whose answer was lost
                const fresh = yield* sql<{ id: string }>`INSERT INTO key_usage_flushes (id)
                  SELECT unnest(${batches.map((b) => b.id)}::text[])
                  ON CONFLICT (id) DO NOTHING RETURNING id`
                yield* sql`DELETE FROM key_usage_flushes WHERE at < now() - interval '1 day'`
                const written = new Set(fresh.map((r) => r.id))
                const { usage, daily } = merged(batches.filter((b) => written.has(b.id)))
                // one statement per table per flush (every 2 s), not a hot-row write per call
                if (usage.length > 0)
                  yield* sql`UPDATE api_keys k SET calls = k.calls + u.calls,
                      last_used_at = greatest(k.last_used_at, u.last_used_at)
                    FROM (SELECT * FROM jsonb_to_recordset(${JSON.stringify(usage)}::jsonb)
                          AS x("keyId" text, calls bigint, "lastUsedAt" timestamptz)) AS u(key_id, calls, last_used_at)
                    WHERE k.id = u.key_id`
                if (daily.length > 0)
                  yield* sql`INSERT INTO key_usage_daily AS d (key_id, day, platform, op, calls)
                    SELECT x."keyId", x.day, x.platform, x.op, x.calls
                    FROM jsonb_to_recordset(${JSON.stringify(daily)}::jsonb)
                      AS x("keyId" text, day date, platform text, op text, calls bigint)
                    WHERE EXISTS (SELECT 1 FROM api_keys k WHERE k.id = x."keyId")
                    ON CONFLICT (key_id, day, platform, op) DO UPDATE SET calls = d.calls + EXCLUDED.calls`
              })
            )
            .pipe(Effect.orDie)
  })
})

/** The KeyStore port on the SqlClient. */
export const layer = Layer.effect(K.KeyStore, make)
