/**
 * The IdempotencyStore port on PostgreSQL: one row per (account, key); the claim is one atomic upsert, group-committed
 * (GroupCommit: the claims of one turn of the event loop in one statement; the nightly refresh claims one key per
 * entity, a thousand a second). A batch that fails (two claims of one key in it) is claimed again ask by ask.
 */
import { SqlClient } from "@effect/sql"
import type { SqlError } from "@effect/sql/SqlError"
import { IdempotencyStore as I } from "@pdr/domain"
import { Effect, Either, Layer } from "effect"
import * as GroupCommit from "./GroupCommit.js"
import { againWhileCut } from "./PgLedger.js"

type Claim = Parameters<I.IdempotencyStore["Type"]["begin"]>[0]

/** The IdempotencyStore adapter. */
export const make = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient

  // a claim is safe to repeat (one this claimant already holds is its own): while its connection is cut (a pooled one
  // the same cut broke, or one cut under it; issue 22, D24), it is claimed again, up to three times
  const claimAlone = (input: Claim) => againWhileCut(claimStatement(input))

  const claimStatement = (input: Claim) =>
    sql`INSERT INTO idempotency (account_id, key, fingerprint, state, started_at, expires_at, claimant)
        VALUES (${input.accountId}, ${input.key}, ${input.fingerprint}, 'in_flight', ${input.now}, ${input.expiresAt},
          ${input.claimant})
        ON CONFLICT (account_id, key) DO UPDATE SET
          fingerprint = EXCLUDED.fingerprint, state = 'in_flight', status = NULL, body = NULL,
          started_at = EXCLUDED.started_at, expires_at = EXCLUDED.expires_at, claimant = EXCLUDED.claimant
        WHERE idempotency.expires_at <= ${input.now}
           OR (idempotency.state = 'in_flight' AND idempotency.started_at < ${input.staleBefore})
        RETURNING 1 AS claimed`.pipe(Effect.map((rows) => rows.length > 0))

  // the same upsert for many claims: each row's stale bound read from the asks by its key (EXCLUDED is the new row)
  const claimGrouped = yield* GroupCommit.make({
    maxBatch: 128,
    maxInFlight: 4,
    run: (asks: ReadonlyArray<Claim>) =>
      sql`WITH x AS (
            SELECT * FROM unnest(${asks.map((a) => a.accountId)}::text[], ${asks.map((a) => a.key)}::text[],
              ${asks.map((a) => a.fingerprint)}::text[], ${asks.map((a) => a.now.toISOString())}::timestamptz[],
              ${asks.map((a) => a.expiresAt.toISOString())}::timestamptz[],
              ${asks.map((a) => a.staleBefore.toISOString())}::timestamptz[],
              ${asks.map((a) => a.claimant)}::text[]) AS x(a, k, f, s, e, stale, c))
          INSERT INTO idempotency (account_id, key, fingerprint, state, started_at, expires_at, claimant)
          SELECT a, k, f, 'in_flight', s, e, c FROM x
          ON CONFLICT (account_id, key) DO UPDATE SET
            fingerprint = EXCLUDED.fingerprint, state = 'in_flight', status = NULL, body = NULL,
            started_at = EXCLUDED.started_at, expires_at = EXCLUDED.expires_at, claimant = EXCLUDED.claimant
          WHERE idempotency.expires_at <= EXCLUDED.started_at
             OR (idempotency.state = 'in_flight'
                 AND idempotency.started_at < (SELECT stale FROM x WHERE x.a = EXCLUDED.account_id AND x.k = EXCLUDED.key))
          RETURNING account_id, key`.pipe(
        Effect.map((rows) => {
          const claimed = new Set(rows.map((r) => `${String(r["account_id"])}\n${String(r["key"])}`))
          return asks.map((a) => Either.right(claimed.has(`${a.accountId}\n${a.key}`)))
        })
      ),
    alone: (input: Claim) => Effect.orDie(claimAlone(input)),
    retry: (input: Claim) => Effect.orDie(claimAlone(input))
  })

  /** A claim, up to three attempts: the first group-committed, then alone (issue 22: a chain, not a generator). */
  const attempt = (input: Claim, n: number): Effect.Effect<I.Begin, SqlError> =>
    n >= 3
      ? Effect.succeed({ _tag: "InFlight" } as const)
      : Effect.flatMap(n === 0 ? claimGrouped(input) : claimAlone(input), (claimed) =>
          claimed
            ? Effect.succeed({ _tag: "Started" } as const)
            : Effect.flatMap(
                // a read: run again while its connection is cut (a database restarting under it)
                againWhileCut(sql`SELECT fingerprint, state, status, body, claimant FROM idempotency
                                WHERE account_id = ${input.accountId} AND key = ${input.key}`),
                (rows): Effect.Effect<I.Begin, SqlError> => {
                  const row = rows[0]
                  if (!row) return attempt(input, n + 1)
                  // this claim itself: written by a batch whose answer was lost (the connection cut after it
                  // committed), then claimed again alone; before, it answered its own claim as in flight (409)
                  if (row["state"] === "in_flight" && row["claimant"] === input.claimant)
                    return Effect.succeed({ _tag: "Started" } as const)
                  if (row["fingerprint"] !== input.fingerprint) return Effect.succeed({ _tag: "Mismatch" } as const)
                  if (row["state"] === "in_flight") return Effect.succeed({ _tag: "InFlight" } as const)
                  const body = JSON.parse(String(row["body"]))
                  return Effect.succeed({ _tag: "Replay", status: Number(row["status"]), body } as const)
                }
              )
        )

  const begin = (input: Claim): Effect.Effect<I.Begin> => Effect.orDie(attempt(input, 0))

  return I.IdempotencyStore.of({
    begin,
    purgeExpired: (now) =>
      sql`DELETE FROM idempotency WHERE expires_at <= ${now} RETURNING 1`.pipe(
        Effect.map((rows) => rows.length),
        Effect.orDie
      ),
    // with a claimant: only that claimant's claim (a claim taken over since is another's, and is left as it is)
    complete: ({ accountId, key, claimant, status, body }) =>
      (claimant === undefined
        ? sql`UPDATE idempotency SET state = 'done', status = ${status}, body = ${JSON.stringify(body)}
              WHERE account_id = ${accountId} AND key = ${key}`
        : sql`UPDATE idempotency SET state = 'done', status = ${status}, body = ${JSON.stringify(body)}
              WHERE account_id = ${accountId} AND key = ${key} AND claimant = ${claimant}`
      ).pipe(Effect.asVoid, Effect.orDie),
    renew: ({ accountId, key, now }) =>
      sql`UPDATE idempotency SET started_at = ${now}
          WHERE account_id = ${accountId} AND key = ${key} AND state = 'in_flight' RETURNING 1 AS renewed`.pipe(
        Effect.map((rows) => rows.length > 0),
        Effect.orDie
      ),
    abandon: ({ accountId, key, claimant }) =>
      (claimant === undefined
        ? sql`DELETE FROM idempotency WHERE account_id = ${accountId} AND key = ${key} AND state = 'in_flight'`
        : sql`DELETE FROM idempotency WHERE account_id = ${accountId} AND key = ${key} AND state = 'in_flight'
              AND claimant = ${claimant}`
      ).pipe(Effect.asVoid, Effect.orDie)
  })
})

/** The IdempotencyStore port on the SqlClient. */
export const layer = Layer.effect(I.IdempotencyStore, make)
