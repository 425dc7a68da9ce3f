/**
 * The UsageReports port on PostgreSQL: calls per key, day, platform and op from `key_usage_daily` (the flushed usage
 * buffer), credits from the ledger's captures (their reason is "<platform> <op>"), so money stays in the ledger.
 */
import { SqlClient } from "@effect/sql"
import { UsageReports as U } from "@pdr/domain"
import { Effect, Layer } from "effect"
import { toEntry } from "./PgLedger.js"
import { num } from "./Rows.js"

/** The UsageReports adapter. */
export const make: Effect.Effect<U.UsageReports["Type"], never, SqlClient.SqlClient> = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  return U.UsageReports.of({
    usage: (accountId, since) =>
      sql`
        WITH calls AS (
          SELECT d.day, d.key_id, d.platform, d.op, sum(d.calls) AS calls
          FROM key_usage_daily d JOIN api_keys k ON k.id = d.key_id
          WHERE k.account_id = ${accountId} AND d.day >= ${since}::date
          GROUP BY 1, 2, 3, 4),
        credits AS (
          SELECT (l.created_at AT TIME ZONE 'UTC')::date AS day, l.key_id,
                 split_part(l.reason, ' ', 1) AS platform, split_part(l.reason, ' ', 2) AS op,
                 -sum(l.credits) AS credits
          FROM ledger l
          WHERE l.account_id = ${accountId} AND l.kind = 'capture' AND l.key_id IS NOT NULL
            AND l.created_at >= (${since}::date)::timestamp AT TIME ZONE 'UTC'
          GROUP BY 1, 2, 3, 4)
        SELECT to_char(coalesce(c.day, m.day), 'YYYY-MM-DD') AS day, coalesce(c.key_id, m.key_id) AS key_id,
               coalesce(c.platform, m.platform) AS platform, coalesce(c.op, m.op) AS op,
               coalesce(c.calls, 0) AS calls, coalesce(m.credits, 0) AS credits
        FROM calls c FULL JOIN credits m
          ON m.day = c.day AND m.key_id = c.key_id AND m.platform = c.platform AND m.op = c.op
        ORDER BY 1 DESC, 2, 3, 4`.pipe(
        Effect.map((rows) =>
          rows.map((r) => ({
            day: String(r["day"]),
            keyId: String(r["key_id"]),
            platform: String(r["platform"]),
            op: String(r["op"]),
            calls: num(r["calls"]),
            credits: num(r["credits"])
          }))
        ),
        Effect.orDie
      ),
    ledgerPage: (accountId, before, limit) =>
      sql`SELECT * FROM ledger WHERE account_id = ${accountId}
          ${before === undefined ? sql`` : sql`AND id < ${before}`}
          ORDER BY id DESC LIMIT ${limit}`.pipe(
        Effect.map((rows) => rows.map(toEntry)),
        Effect.orDie
      )
  })
})

/** The UsageReports port on the SqlClient. */
export const layer = Layer.effect(U.UsageReports, make)
