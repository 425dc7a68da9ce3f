/** The IdempotencyStore port on PostgreSQL: one row per (account, key); the claim is one atomic upsert. */
import { SqlClient } from "@effect/sql"
import { IdempotencyStore as I } from "@pdr/domain"
import { Effect, Layer } from "effect"

/** The IdempotencyStore adapter. */
export const make = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient

  const claim = (input: Parameters<I.IdempotencyStore["Type"]["begin"]>[0]) =>
    sql`INSERT INTO idempotency (account_id, key, fingerprint, state, started_at, expires_at)
        VALUES (${input.accountId}, ${input.key}, ${input.fingerprint}, 'in_flight', ${input.now}, ${input.expiresAt})
        ON CONFLICT (account_id, key) DO UPDATE SET
          fingerprint = EXCLUDED.fingerprint, state = 'in_flight', status = NULL, body = NULL,
          started_at = EXCLUDED.started_at, expires_at = EXCLUDED.expires_at
        WHERE idempotency.expires_at <= ${input.now}
           OR (idempotency.state = 'in_flight' AND idempotency.started_at < ${input.staleBefore})
        RETURNING 1 AS claimed`

  const begin = (input: Parameters<I.IdempotencyStore["Type"]["begin"]>[0]): Effect.Effect<I.Begin> =>
    Effect.gen(function* () {
      for (let attempt = 0; attempt < 3; attempt++) {
        if ((yield* claim(input)).length > 0) return { _tag: "Started" } as const
        const rows = yield* sql`SELECT fingerprint, state, status, body FROM idempotency
                                WHERE account_id = ${input.accountId} AND key = ${input.key}`
        const row = rows[0]
        if (!row) continue
        if (row["fingerprint"] !== input.fingerprint) return { _tag: "Mismatch" } as const
        if (row["state"] === "in_flight") return { _tag: "InFlight" } as const
        const body = JSON.parse(String(row["body"]))
        return { _tag: "Replay", status: Number(row["status"]), body } as const
      }
      return { _tag: "InFlight" } as const
    }).pipe(Effect.orDie)

  return I.IdempotencyStore.of({
    begin,
    purgeExpired: (now) =>
      sql`DELETE FROM idempotency WHERE expires_at <= ${now} RETURNING 1`.pipe(
        Effect.map((rows) => rows.length),
        Effect.orDie
      ),
    complete: ({ accountId, key, status, body }) =>
      sql`UPDATE idempotency SET state = 'done', status = ${status}, body = ${JSON.stringify(body)}
          WHERE account_id = ${accountId} AND key = ${key}`.pipe(Effect.asVoid, Effect.orDie),
    abandon: ({ accountId, key }) =>
      sql`DELETE FROM idempotency WHERE account_id = ${accountId} AND key = ${key} AND state = 'in_flight'`.pipe(
        Effect.asVoid,
        Effect.orDie
      )
  })
})

/** The IdempotencyStore port on the SqlClient. */
export const layer = Layer.effect(I.IdempotencyStore, make)
