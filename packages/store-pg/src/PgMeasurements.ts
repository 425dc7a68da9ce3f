/** The Measurements port on PostgreSQL: fresh results, history points, contact reveals. */
import { SqlClient } from "@effect/sql"
import { Instants, Measurements as M } from "@pdr/domain"
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
        : sql`SELECT * FROM pdr_fresh(${keys}::text[], ${since}, ${minRows})`.pipe(
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
    history: ({ platform, entities, metric, store, since }) => {
      if (entities.length === 0) return Effect.succeed([])
      /**
       * Each subject's points, oldest first, as parallel arrays. The common series (one source, no stay) needs only
       * instants and values; `full` adds each point's source and stay, and is asked only for the subjects that need
       * it (aggregating them for every series was a third of the query's time).
       */
      const query = (subjects: ReadonlyArray<string>, full: boolean) => sql<{
        entity: string
        t: ReadonlyArray<number> | null
        v: ReadonlyArray<number> | null
        source: string | null
        mixed: boolean | null
        staying: boolean | null
        sources: ReadonlyArray<string> | null
        stays: ReadonlyArray<Record<string, unknown> | null> | null
      }>`
        SELECT e.entity, x.t, x.v, x.source, x.mixed, x.staying, x.sources, x.stays
        FROM jsonb_array_elements_text(${JSON.stringify(subjects)}::jsonb) AS e(entity)
        CROSS JOIN LATERAL (
          SELECT json_agg((date_part('epoch', q.measured_at) * 1000)::bigint) AS t,
                 json_agg(q.value) AS v,
                 min(q.source) AS source,
                 min(q.source) <> max(q.source) AS mixed,
                 bool_or(q.stay IS NOT NULL) AS staying,
                 ${full ? sql`json_agg(q.source)` : sql`NULL::json`} AS sources,
                 ${full ? sql`jsonb_agg(q.stay)` : sql`NULL::jsonb`} AS stays
          FROM (
            SELECT measured_at, value, source, stay FROM history_values
            WHERE platform = ${platform} AND entity = e.entity AND metric = ${metric} AND measured_at > ${since}
              ${store === null ? sql`` : sql`AND store = ${store}`}
            ORDER BY measured_at
          ) AS q
        ) AS x`
      return query(entities, false).pipe(
        Effect.flatMap((rows) => {
          const detailed = rows.filter((r) => r.mixed === true || r.staying === true).map((r) => r.entity)
          if (detailed.length === 0) return Effect.succeed(rows)
          return Effect.map(query(detailed, true), (full) => {
            const byEntity = new Map(full.map((r) => [r.entity, r]))
            return rows.map((r) => byEntity.get(r.entity) ?? r)
          })
        }),
        Effect.map((rows) => {
          const series: Array<M.Series> = []
          for (const r of rows) {
            if (r.t === null || r.v === null) continue
            const bySource = new Map<string, Array<M.SeriesPoint>>()
            for (let i = 0; i < r.t.length; i++) {
              const source = r.sources?.[i] ?? r.source ?? ""
              const stay = r.stays?.[i] ?? null
              const point: { measuredAt: string; value: number; stay?: Record<string, unknown>; store?: string } = {
                measuredAt: Instants.isoMillis(Number(r.t[i])),
                value: r.v[i]!
              }
              if (stay !== null) point.stay = stay
              if (store !== null) point.store = store
              const list = bySource.get(source)
              if (list) list.push(point)
              else bySource.set(source, [point])
            }
            for (const [source, points] of bySource) series.push({ entity: r.entity, source, points })
          }
          return series
        }),
        Effect.orDie
      )
    },
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

/**
 * The same port with an in-process cache of fresh results in front of `fresh`: a stored result never changes, so
 * serving a cached one while it is still fresh is what the database would serve (at worst an older fresh result
 * than a newer one another instance stored). Bounded (least recently used out); misses go to the database.
 */
export const layerCached = (maxEntries = 5000) =>
  Layer.effect(
    M.Measurements,
    Effect.map(make, (base) => {
      const cache = new Map<string, M.Measurement>()
      const remember = (m: M.Measurement) => {
        const known = cache.get(m.freshnessKey)
        if (known !== undefined && known.measuredAt.getTime() >= m.measuredAt.getTime()) return
        cache.delete(m.freshnessKey)
        cache.set(m.freshnessKey, m)
        if (cache.size > maxEntries) cache.delete(cache.keys().next().value as string)
      }
      return M.Measurements.of({
        ...base,
        fresh: (input) =>
          Effect.suspend(() => {
            const hits = new Map<string, M.Measurement>()
            const misses: Array<string> = []
            const since = input.since.getTime()
            for (const key of input.keys) {
              const m = cache.get(key)
              if (m !== undefined && m.measuredAt.getTime() > since && (m.rowsAsked >= input.minRows || m.exhaustive))
                hits.set(key, m)
              else misses.push(key)
            }
            if (misses.length === 0) return Effect.succeed(hits)
            return Effect.map(base.fresh({ ...input, keys: misses }), (found) => {
              for (const m of found.values()) {
                remember(m)
                hits.set(m.freshnessKey, m)
              }
              return hits
            })
          })
      })
    })
  )
