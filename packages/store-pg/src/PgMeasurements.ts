/** The Measurements port on PostgreSQL: fresh results, history points, contact reveals. */
import { SqlClient } from "@effect/sql"
import { Measurements as M } from "@pdr/domain"
import { Effect, Layer } from "effect"
import { date, num } from "./Rows.js"

const json = <A>(v: unknown): A => (typeof v === "string" ? JSON.parse(v) : v) as A

/** The Measurements adapter. */
export const make = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  return M.Measurements.of({
    fresh: ({ keys, since, minRows }) =>
      keys.length === 0
        ? Effect.succeed(new Map())
        : sql`SELECT DISTINCT ON (freshness_key) *
              FROM measurements
              WHERE freshness_key IN ${sql.in(keys)} AND measured_at > ${since}
                AND (rows_asked >= ${minRows} OR exhaustive)
              ORDER BY freshness_key, measured_at DESC`.pipe(
            Effect.map(
              (rows) =>
                new Map(
                  rows.map((r) => [
                    String(r["freshness_key"]),
                    {
                      platform: String(r["platform"]),
                      op: String(r["op"]),
                      entity: String(r["entity"]),
                      freshnessKey: String(r["freshness_key"]),
                      measuredAt: date(r["measured_at"]),
                      rows: json<ReadonlyArray<M.Row>>(r["rows"]),
                      rowsAsked: num(r["rows_asked"]),
                      exhaustive: Boolean(r["exhaustive"]),
                      found: Boolean(r["found"]),
                      source: String(r["source"])
                    } satisfies M.Measurement
                  ])
                )
            ),
            Effect.orDie
          ),
    history: ({ platform, entities, metric, store, since }) =>
      entities.length === 0
        ? Effect.succeed([])
        : sql<{ entity: string; store: string; stay: unknown; at: string; value: number; source: string }>`
            SELECT entity, store, stay, to_char(measured_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS at,
                   (metrics ->> ${metric})::float8 AS value, source
            FROM history_points
            WHERE platform = ${platform} AND entity IN ${sql.in(entities)} AND measured_at > ${since}
              AND metrics ? ${metric}
              ${store === null ? sql`` : sql`AND store = ${store}`}
            ORDER BY entity, measured_at, id`.pipe(
            Effect.map((rows) =>
              rows.map(
                (r): M.SeriesPoint => ({
                  entity: r.entity,
                  store: r.store,
                  stay: r.stay === null ? null : json(r.stay),
                  measuredAt: new Date(r.at),
                  value: r.value,
                  source: r.source
                })
              )
            ),
            Effect.orDie
          ),
    reveals: ({ accountId, persons }) =>
      persons.length === 0
        ? Effect.succeed([])
        : sql`SELECT * FROM contact_reveals WHERE account_id = ${accountId} AND person IN ${sql.in(persons)}`.pipe(
            Effect.map((rows) =>
              rows.map(
                (r): M.Reveal => ({
                  accountId: String(r["account_id"]),
                  person: String(r["person"]),
                  part: r["part"] as "email" | "phone",
                  status: r["status"] as "revealed" | "nothing_on_file",
                  value: (r["value"] as string | null) ?? null,
                  at: date(r["revealed_at"]),
                  source: String(r["source"])
                })
              )
            ),
            Effect.orDie
          )
  })
})

/** The Measurements port on the SqlClient. */
export const layer = Layer.effect(M.Measurements, make)
