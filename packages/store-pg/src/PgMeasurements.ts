/** The Measurements port on PostgreSQL: fresh results, history points, contact reveals. */
import { SqlClient } from "@effect/sql"
import type { SqlError } from "@effect/sql/SqlError"
import { Answers, Freshness, Instants, Measurements as M } from "@pdr/domain"
import { Effect, Layer } from "effect"
import * as Coalesce from "./Coalesce.js"
import { againWhileCut } from "./PgLedger.js"
import { date, num } from "./Rows.js"

const json = <A>(v: unknown): A => (typeof v === "string" ? JSON.parse(v) : v) as A

/** A measurements row as the port's Measurement. */
const toMeasurement = (r: Record<string, unknown>): M.Measurement => ({
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
})

/**
 * One subject's history as the query returns it: how many points and the newest one's instant, and either the points'
 * JSON text (`points`: the common series, one source and no stay) or parallel arrays of instants, values, sources and
 * stays (the others, built into points here).
 */
interface SeriesRow {
  readonly entity: string
  readonly n: number | string
  readonly latest: string | null
  readonly points: string | null
  readonly t: ReadonlyArray<string> | null
  readonly v: ReadonlyArray<number> | null
  readonly source: string | null
  readonly mixed: boolean | null
  readonly staying: boolean | null
  readonly sources: ReadonlyArray<string> | null
  readonly stays: ReadonlyArray<Record<string, unknown> | null> | null
}

/**
 * A point's instant as its ISO 8601 text in UTC to the millisecond (what Instants.iso writes for a Date), written by
 * PostgreSQL: both forms of a series read it so, and the newest point's too.
 */
const instantPattern = `YYYY-MM-DD"T"HH24:MI:SS.MS"Z"`
const instantOf = (column: string) => `to_char(${column} AT TIME ZONE 'UTC', '${instantPattern}')`
/**
 * A point's JSON text up to its value, `{"measuredAt":"<instant>","value":`, written by one `to_char` whose pattern
 * carries the literal parts (quoted in the pattern, a double quote as `\"`): about a fifth less of PostgreSQL's time
 * per history statement than the instant's text joined to the literals with `||` (issue 22, d).
 */
const pointHead = (column: string) =>
  `to_char(${column} AT TIME ZONE 'UTC', '{"\\"measuredAt\\":\\""${instantPattern}"\\",\\"value\\":"')`

type FreshAsk = Parameters<M.Measurements["Type"]["fresh"]>[0]

/** The Measurements adapter; history reads are split in up to `historyParts` concurrent statements. */
export const makeWith = (historyParts: number) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const fresh = yield* Coalesce.make((asks: ReadonlyArray<FreshAsk>) => {
      const ask: Array<number> = []
      const keys: Array<string> = []
      const since: Array<string> = []
      const minRows: Array<number> = []
      asks.forEach((a, i) => {
        for (const key of a.keys) {
          ask.push(i)
          keys.push(key)
          since.push(Instants.iso(a.since))
          minRows.push(a.minRows)
        }
      })
      return sql`SELECT * FROM pdr_fresh(${ask}::integer[], ${keys}::text[], ${since}::timestamptz[], ${minRows}::integer[])`.pipe(
        Effect.map((rows) => {
          const answers = asks.map(() => new Map<string, M.Measurement>())
          for (const r of rows) {
            const m = toMeasurement(r)
            answers[Number(r["ask"])]!.set(m.freshnessKey, m)
          }
          return answers
        }),
        Effect.orDie
      )
    })
    return M.Measurements.of({
      // the fresh lookups of one turn of the event loop in one statement (Coalesce)
      fresh: (ask) => (ask.keys.length === 0 ? Effect.succeed(new Map()) : fresh(ask)),
      history: ({ platform, entities, metric, store, since }) => {
        if (entities.length === 0) return Effect.succeed([])
        /**
         * Each subject's points, oldest first. The common series (one source, no stay) comes as the JSON text of its
         * points, written by PostgreSQL and put in the answer as it is (issue 22, d: building and serializing 7,300
         * point objects was most of a 10-subject, 730-day call's time); `full` reads parallel arrays with each point's
         * source and stay instead, and is asked only for the subjects that need it.
         */
        const storeMember = store === null ? "" : `,"store":${JSON.stringify(store)}`
        const query = (
          subjects: ReadonlyArray<string>,
          full: boolean
        ): Effect.Effect<ReadonlyArray<SeriesRow>, SqlError> => sql<SeriesRow>`
        SELECT e.entity, x.n, x.latest, x.points, x.t, x.v, x.source, x.mixed, x.staying, x.sources, x.stays
        FROM jsonb_array_elements_text(${JSON.stringify(subjects)}::jsonb) AS e(entity)
        CROSS JOIN LATERAL (
          SELECT count(*) AS n,
                 ${sql.literal(instantOf("max(q.measured_at)"))} AS latest,
                 ${
                   full
                     ? sql`NULL::text`
                     : sql`'[' || string_agg(${sql.literal(pointHead("q.measured_at"))} || q.value::text || ${`${storeMember}}`}::text, ',') || ']'`
                 } AS points,
                 ${full ? sql`json_agg(${sql.literal(instantOf("q.measured_at"))})` : sql`NULL::json`} AS t,
                 ${full ? sql`json_agg(q.value)` : sql`NULL::json`} AS v,
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
        // (each statement, a read, is run again while its connection is cut: againWhileCut)
        // the subjects are read in up to `historyParts` statements at once, on as many pooled connections, so a long
        // history is read by several PostgreSQL backends in parallel; the answer keeps the subjects' order
        const size = Math.ceil(entities.length / Math.min(historyParts, entities.length))
        const parts = Array.from({ length: Math.ceil(entities.length / size) }, (_, i) =>
          entities.slice(i * size, (i + 1) * size)
        )
        const all =
          parts.length === 1
            ? againWhileCut(query(entities, false))
            : Effect.map(
                Effect.forEach(parts, (part) => againWhileCut(query(part, false)), { concurrency: "unbounded" }),
                (chunks) => chunks.flat()
              )
        return all.pipe(
          Effect.flatMap((rows) => {
            const detailed = rows.filter((r) => r.mixed === true || r.staying === true).map((r) => r.entity)
            if (detailed.length === 0) return Effect.succeed(rows)
            return Effect.map(againWhileCut(query(detailed, true)), (full) => {
              const byEntity = new Map(full.map((r) => [r.entity, r]))
              return rows.map((r) => byEntity.get(r.entity) ?? r)
            })
          }),
          Effect.map((rows) => {
            const series: Array<M.Series> = []
            for (const r of rows) {
              if (Number(r.n) === 0 || r.latest === null) continue
              if (r.points !== null) {
                series.push({
                  entity: r.entity,
                  source: r.source ?? "",
                  count: Number(r.n),
                  latest: r.latest,
                  points: Answers.JsonText.fromText(r.points)
                })
                continue
              }
              if (r.t === null || r.v === null) continue
              const bySource = new Map<string, Array<M.SeriesPoint>>()
              for (let i = 0; i < r.t.length; i++) {
                const source = r.sources?.[i] ?? r.source ?? ""
                const stay = r.stays?.[i] ?? null
                const point: { measuredAt: string; value: number; stay?: Record<string, unknown>; store?: string } = {
                  measuredAt: r.t[i]!,
                  value: r.v[i]!
                }
                if (stay !== null) point.stay = stay
                if (store !== null) point.store = store
                const list = bySource.get(source)
                if (list) list.push(point)
                else bySource.set(source, [point])
              }
              for (const [source, points] of bySource)
                series.push({
                  entity: r.entity,
                  source,
                  count: points.length,
                  latest: points[points.length - 1]!.measuredAt,
                  points: Answers.JsonText.of(points)
                })
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

/** The Measurements adapter, history in up to two statements at once. */
export const make = makeWith(2)

/** The Measurements port on the SqlClient. */
export const layer = Layer.effect(M.Measurements, make)

/** What an in-process cache of fresh results may keep. */
export interface CacheBounds {
  /** Results kept at most. */
  readonly maxEntries: number
  /**
   * Rows kept at most, over all results: a result's size is its rows (a storefront's 25 products against one profile's
   * one row), so a count of results alone let 50 connections of large results fill the server's heap (it died out of
   * memory: docs/benchmarks.md, stop 39). A result with more rows than this is not kept.
   */
  readonly maxRows: number
  /** A result is trusted this long after it was read or stored here; after that it is dropped, not kept. */
  readonly lifetimeMs: number
}

/** The server's bounds: 5,000 results, 10,000 rows (about 12 MB of storefront products), 2 s. */
export const cacheBounds: CacheBounds = { maxEntries: 5000, maxRows: 10_000, lifetimeMs: 2000 }

/**
 * Fresh results kept in process, oldest first (a result read or stored again moves to the end): those past their
 * lifetime are dropped as others come in, then the oldest while more than the bounds are kept.
 */
export class FreshCache {
  readonly #entries = new Map<string, { readonly m: M.Measurement; readonly at: number }>()
  #rows = 0
  constructor(readonly bounds: CacheBounds) {}

  /** The results kept. */
  get size() {
    return this.#entries.size
  }
  /** Their rows. */
  get rows() {
    return this.#rows
  }

  /** The result kept for this key when it is still trusted at `now`. */
  get(key: string, now: number): M.Measurement | undefined {
    const entry = this.#entries.get(key)
    if (entry === undefined) return undefined
    if (entry.at > now - this.bounds.lifetimeMs) return entry.m
    this.#drop(key, entry.m)
    return undefined
  }

  /** Keeps a result read or stored at `now` (not when a newer one of its key is kept). */
  remember(m: M.Measurement, now: number) {
    const known = this.#entries.get(m.freshnessKey)
    if (known !== undefined) {
      if (known.m.measuredAt.getTime() > m.measuredAt.getTime()) return
      this.#drop(m.freshnessKey, known.m)
    }
    if (m.rows.length <= this.bounds.maxRows) {
      this.#entries.set(m.freshnessKey, { m, at: now })
      this.#rows += m.rows.length
    }
    const expired = now - this.bounds.lifetimeMs
    for (const [key, entry] of this.#entries) {
      if (entry.at > expired && this.#entries.size <= this.bounds.maxEntries && this.#rows <= this.bounds.maxRows) break
      this.#drop(key, entry.m)
    }
  }

  #drop(key: string, m: M.Measurement) {
    this.#entries.delete(key)
    this.#rows -= m.rows.length
  }
}

/**
 * The same port with an in-process cache of fresh results in front of `fresh`: a stored result never changes, so
 * serving a cached one while it is still fresh is what the database would serve (at worst an older fresh result
 * than a newer one another instance stored). Bounded (`FreshCache`: results, rows, lifetime); misses go to the
 * database. Issue 21: a result stored by this process (`stored`, after its settle) replaces the cached one at once,
 * and an entry is trusted for `lifetimeMs` after it was read, so a newer result another instance stored (a
 * `forceFresh` call replaces the stored copy for every account) is served everywhere within that time.
 */
export const layerCached = (bounds: CacheBounds = cacheBounds) =>
  Layer.effect(
    M.Measurements,
    Effect.map(make, (base) => {
      const cache = new FreshCache(bounds)
      return M.Measurements.of({
        ...base,
        fresh: (input) =>
          Effect.clockWith((clock) => {
            const hits = new Map<string, M.Measurement>()
            const misses: Array<string> = []
            const now = clock.unsafeCurrentTimeMillis()
            for (const key of input.keys) {
              const m = cache.get(key, now)
              if (m !== undefined && Freshness.serves(m, input)) hits.set(key, m)
              else misses.push(key)
            }
            if (misses.length === 0) return Effect.succeed(hits)
            return Effect.map(base.fresh({ ...input, keys: misses }), (found) => {
              const now = clock.unsafeCurrentTimeMillis()
              for (const m of found.values()) {
                cache.remember(m, now)
                hits.set(m.freshnessKey, m)
              }
              return hits
            })
          }),
        stored: (ms) =>
          Effect.clockWith((clock) => {
            const now = clock.unsafeCurrentTimeMillis()
            for (const m of ms) cache.remember(m, now)
            return Effect.void
          })
      })
    })
  )
