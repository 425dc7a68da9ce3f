/**
 * Liveness and readiness (issue 25), shared by the server and the runner: `/healthz` answers while the process runs;
 * `/readyz` answers 200 when the database answers, its migrations are current and the upstream router is built, 503
 * with the reason otherwise, and 503 as soon as shutdown starts (before the listener stops accepting). A probe costs
 * one indexed read, at most once per `cacheMs` whatever the number of probers.
 * Also the gauges read from the store at scrape time (holds in flight, the refresh pass and its queue).
 */
import { HttpRouter, HttpServerResponse } from "@effect/platform"
import { SqlClient } from "@effect/sql"
import { Upstream } from "@pdr/domain"
import { Database, GroupCommit, Migrations } from "@pdr/store-pg"
import { Clock, Duration, Effect, Metric, Option, Ref } from "effect"
import * as Metrics from "./Metrics.js"

/** A readiness verdict: ready, or the reason it is not. */
export interface Verdict {
  readonly ready: boolean
  readonly checks: { readonly database: string; readonly migrations: string; readonly upstream: string }
  readonly reason?: string
}

/** The latest migration this build knows (the number of its newest `NNNN_name` key). */
export const expectedMigration = Math.max(
  ...Object.keys(Migrations.all)
    .map((k) => /^(\d+)_/.exec(k)?.[1])
    .filter((n): n is string => n !== undefined)
    .map(Number)
)

/** The readiness checker over the SqlClient and the Upstream router in context. */
export const make = (options: { readonly cacheMs?: number; readonly timeoutMs?: number } = {}) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    // the router is built with the layer: having it in context is the check
    const upstream = yield* Effect.serviceOption(Upstream.Upstream)
    // why the database is not answering, when it refuses connections (a restart): the probe's statement waits for one
    const refusals = yield* Effect.serviceOption(Database.Refusals)
    const draining = yield* Ref.make(false)
    const cached = yield* Ref.make<{ readonly at: number; readonly verdict: Verdict } | null>(null)
    const cacheMs = options.cacheMs ?? 500
    const timeout = Duration.millis(options.timeoutMs ?? 1_000)

    const probe = Effect.gen(function* () {
      const upstreamCheck = Option.isSome(upstream) ? "ok" : "the upstream router is not built"
      const read = yield* sql<{ id: number | null }>`SELECT max(migration_id) AS id FROM effect_sql_migrations`.pipe(
        // statements are not interrupted (store-pg's Database): a database that does not answer is left to answer
        // in the background, the probe answers when its time is up
        Effect.disconnect,
        Effect.timeout(timeout),
        Effect.either
      )
      if (read._tag === "Left") {
        const refused = Option.isSome(refusals) ? refusals.value.current() : undefined
        const why =
          refused !== undefined
            ? `the database refuses connections (${refused.reason}) since ${Math.round((Date.now() - refused.since) / 1000)} s`
            : read.left._tag === "TimeoutException"
              ? `the database gave no answer within ${Duration.format(timeout)}`
              : "the database is unreachable"
        return {
          ready: false,
          checks: { database: why, migrations: "unknown", upstream: upstreamCheck },
          reason: why
        } satisfies Verdict
      }
      const at = Number(read.right[0]?.id ?? 0)
      const migrations =
        at >= expectedMigration ? "ok" : `the database is at migration ${at}, this build needs ${expectedMigration}`
      const failing = [migrations, upstreamCheck].find((c) => c !== "ok")
      return {
        ready: failing === undefined,
        checks: { database: "ok", migrations, upstream: upstreamCheck },
        ...(failing === undefined ? {} : { reason: failing })
      } satisfies Verdict
    })

    const check: Effect.Effect<Verdict> = Effect.gen(function* () {
      if (yield* Ref.get(draining))
        return {
          ready: false,
          checks: { database: "not checked", migrations: "not checked", upstream: "not checked" },
          reason: "shutting down"
        } satisfies Verdict
      const now = yield* Clock.currentTimeMillis
      const last = yield* Ref.get(cached)
      if (last !== null && now - last.at < cacheMs) return last.verdict
      const verdict = yield* probe
      yield* Ref.set(cached, { at: now, verdict })
      yield* Metric.set(Metrics.metrics.ready, verdict.ready ? 1 : 0)
      return verdict
    })

    /** Turns readiness off for good (shutdown has started). */
    const drain = Effect.zipRight(Ref.set(draining, true), Metric.set(Metrics.metrics.ready, 0))

    return { check, drain } as const
  })

/** The readiness service's shape. */
export type Readiness = Effect.Effect.Success<ReturnType<typeof make>>

/** What the store-backed gauges are read from. */
export type GaugeSource = SqlClient.SqlClient

/**
 * Sets the store-backed gauges just before a scrape: holds held, the oldest one's age, holds past their expiry; the
 * latest refresh pass (due, done, failed, credits, budget) and the refresh queue's depth. A query that fails (an
 * older schema, the database away) leaves its gauges as they were.
 */
export const readGauges = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const m = Metrics.metrics
  const n = (v: unknown) => Number(v ?? 0)
  // this process's own count (no query): the accounts its ledger writes wait apart for (D131)
  yield* Metric.set(m.accountsLocked, GroupCommit.keysSetApart())
  yield* Effect.ignore(
    Effect.flatMap(
      sql<{ active: string; oldest: number | null; late: string }>`
        SELECT count(*) AS active, extract(epoch FROM now() - min(created_at))::float8 AS oldest,
               count(*) FILTER (WHERE expires_at < now()) AS late
        FROM holds WHERE status = 'held'`,
      ([r]) =>
        Effect.all([
          Metric.set(m.holdsActive, n(r?.active)),
          Metric.set(m.oldestHold, n(r?.oldest)),
          Metric.set(m.holdsPastTtl, n(r?.late))
        ])
    )
  )
  yield* Effect.ignore(
    Effect.flatMap(
      sql<{ total: number; budget: string; done: string; failed: string; credits: string | null }>`
        WITH p AS (SELECT id, total, budget FROM refresh_passes ORDER BY planned_at DESC LIMIT 1)
        SELECT p.total, p.budget, count(r.pass_id) AS done, count(*) FILTER (WHERE r.status = 'failed') AS failed,
               sum(r.credits) AS credits
        FROM p LEFT JOIN refresh_results r ON r.pass_id = p.id GROUP BY p.total, p.budget`,
      ([r]) =>
        r === undefined
          ? Effect.void
          : Effect.all([
              Metric.set(m.refreshDue, n(r.total)),
              Metric.set(m.refreshDone, n(r.done)),
              Metric.set(m.refreshFailed, n(r.failed)),
              Metric.set(m.refreshCredits, n(r.credits)),
              Metric.set(m.refreshBudget, n(r.budget))
            ])
    )
  )
  // the queue: the job engine's table when it exists, else the persisted queue's
  yield* Effect.ignore(
    Effect.gen(function* () {
      const [t] = yield* sql<{ jobs: boolean; queue: boolean }>`
        SELECT to_regclass('jobs') IS NOT NULL AS jobs, to_regclass('refresh_queue') IS NOT NULL AS queue`
      const rows = t?.jobs
        ? yield* sql<{ depth: string }>`SELECT count(*) AS depth FROM jobs WHERE state = 'pending'`
        : t?.queue
          ? yield* sql<{ depth: string }>`SELECT count(*) AS depth FROM refresh_queue WHERE NOT completed`
          : []
      yield* Metric.set(m.refreshQueue, n(rows[0]?.depth))
    })
  )
})

const noStore = { "cache-control": "no-store" }

/** `GET /healthz` and `GET /readyz` as routes of a router (no key: a probe's). */
export const routes = (readiness: Readiness) =>
  HttpRouter.empty.pipe(
    HttpRouter.get("/healthz", HttpServerResponse.unsafeJson({ status: "ok" }, { headers: noStore })),
    HttpRouter.get(
      "/readyz",
      Effect.map(readiness.check, (v) =>
        HttpServerResponse.unsafeJson(
          {
            status: v.ready ? "ready" : "not_ready",
            ...(v.reason === undefined ? {} : { reason: v.reason }),
            checks: v.checks
          },
          { status: v.ready ? 200 : 503, headers: noStore }
        )
      )
    )
  )
