/**
 * The JobQueue port on PostgreSQL (migration 0011): one `jobs` table, claimed by `pdr_claim_jobs` with
 * `FOR UPDATE SKIP LOCKED` on a partial index of the pending rows (its cost does not grow with the queue), leases
 * renewed by heartbeat, and no statement that holds a transaction open across a job, so it runs the same on a real
 * server and on the embedded PGlite's one shared connection.
 */
import { SqlClient } from "@effect/sql"
import type { SqlError } from "@effect/sql/SqlError"
import { JobQueue as Q } from "@pdr/domain"
import { Effect, Layer, Option } from "effect"
import { againWhileCut, connectionCut } from "./PgLedger.js"
import { num } from "./Rows.js"

/** The database's own words when it gave them (the SqlError's message alone is "Failed to execute statement"). */
const unavailable = <A>(effect: Effect.Effect<A, SqlError>) =>
  Effect.mapError(
    effect,
    (e) =>
      new Q.JobQueueUnavailable({ detail: e.cause instanceof Error ? `${e.message}: ${e.cause.message}` : e.message })
  )

const toJob = (r: Record<string, unknown>): Q.Job => ({
  id: String(r["id"]),
  queue: String(r["queue"]),
  key: String(r["key"]),
  group: String(r["grp"]),
  lane: String(r["lane"]),
  payload: typeof r["payload"] === "string" ? JSON.parse(r["payload"]) : r["payload"],
  attempts: num(r["attempts"]),
  maxAttempts: num(r["max_attempts"]),
  takenOverFrom: (r["taken_over_from"] as string | null) ?? null
})

/** A bigint[] literal of ids (digits only: they come from this table). */
const idArray = (ids: ReadonlyArray<string>) => `{${ids.filter((id) => /^\d+$/.test(id)).join(",")}}`

/** The adapter. */
export const make = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient

  return Q.JobQueue.of({
    offer: (queue, jobs, options) =>
      jobs.length === 0
        ? Effect.succeed(0)
        : unavailable(
            sql`
            WITH ins AS (
              INSERT INTO jobs (queue, key, grp, lane, priority, payload, max_attempts, slots)
              SELECT ${queue}, x.key, coalesce(x.grp, ''), coalesce(x.lane, ''), coalesce(x.priority, 0), x.payload,
                ${options?.maxAttempts ?? 5}, greatest(coalesce(x.slots, 1), 1)
              FROM jsonb_to_recordset(${JSON.stringify(
                jobs.map((j) => ({
                  key: j.key,
                  grp: j.group ?? null,
                  lane: j.lane ?? null,
                  priority: j.priority ?? null,
                  slots: j.slots ?? null,
                  payload: j.payload
                }))
              )}::jsonb) AS x(key text, grp text, lane text, priority bigint, slots integer, payload jsonb)
              ON CONFLICT (queue, key) DO NOTHING RETURNING 1)
            SELECT count(*) AS n FROM ins`
          ).pipe(Effect.map((rows) => num(rows[0]?.["n"] ?? 0))),
    // a million rows planned in a minute is far ahead of autovacuum's analyze: until it runs, the planner works from the
    // empty table's statistics and sweeps expired leases through the wrong partial index (15 ms a claim instead of
    // 0.5 ms at 1M pending, measured); ANALYZE samples 30,000 rows whatever the size (about a second at 1M)
    offered: () => unavailable(sql`ANALYZE jobs`).pipe(Effect.asVoid),
    claim: ({ queue, worker, limit, leaseMs, lanes, laneLimit }) =>
      unavailable(
        sql`SELECT * FROM pdr_claim_jobs(${queue}, ${worker}, ${limit}, ${Math.round(leaseMs)},
          ARRAY(SELECT jsonb_array_elements_text(${JSON.stringify(lanes.length === 0 ? [""] : lanes)}::jsonb)),
          ${laneLimit})`
      ).pipe(Effect.map((rows) => rows.map(toJob))),
    // a key already in the queue is refused (None); but a start whose connection was cut (a long call's start: its
    // 500 said "not billed" though the job was added and ran) is made again, and then a start of this worker's that
    // committed before the cut is answered as its own running job
    start: ({ queue, worker, job, leaseMs, maxAttempts }) => {
      const statement = (own: boolean) =>
        sql`INSERT INTO jobs (queue, key, grp, lane, priority, payload, max_attempts, state, worker, attempts,
              lease_until)
            VALUES (${queue}, ${job.key}, ${job.group ?? ""}, ${job.lane ?? ""}, ${job.priority ?? 0},
              ${JSON.stringify(job.payload)}::jsonb, ${maxAttempts}, 'running', ${worker}, 1,
              now() + ${Math.round(leaseMs)} * interval '1 millisecond')
            ON CONFLICT (queue, key) ${
              own
                ? sql`DO UPDATE SET lease_until = EXCLUDED.lease_until
                    WHERE jobs.worker = EXCLUDED.worker AND jobs.state = 'running' AND jobs.attempts = 1`
                : sql`DO NOTHING`
            }
            RETURNING *`
      return unavailable(
        statement(false).pipe(
          Effect.catchIf(
            (e) => connectionCut(e),
            () => againWhileCut(statement(true))
          )
        )
      ).pipe(Effect.map((rows) => (rows[0] === undefined ? Option.none() : Option.some(toJob(rows[0])))))
    },
    heartbeat: (worker, leaseMs, ids) =>
      ids.length === 0
        ? Effect.succeed([])
        : unavailable(
            sql`UPDATE jobs SET lease_until = now() + ${Math.round(leaseMs)} * interval '1 millisecond'
                WHERE id = ANY(${idArray(ids)}::bigint[]) AND worker = ${worker} AND state = 'running' RETURNING id`
          ).pipe(Effect.map((rows) => rows.map((r) => String(r["id"])))),
    complete: (worker, ids) =>
      ids.length === 0
        ? Effect.succeed(0)
        : unavailable(
            sql`UPDATE jobs SET state = 'done', ended_at = now(), lease_until = NULL
                WHERE id = ANY(${idArray(ids)}::bigint[]) AND worker = ${worker} AND state = 'running' RETURNING id`
          ).pipe(Effect.map((rows) => rows.length)),
    retry: ({ worker, id, reason, delayMs, attempts }) =>
      unavailable(
        sql`UPDATE jobs SET
              state = CASE WHEN attempts >= max_attempts THEN 'failed' ELSE 'pending' END,
              ended_at = CASE WHEN attempts >= max_attempts THEN now() END,
              run_at = now() + ${Math.round(delayMs)} * interval '1 millisecond',
              last_error = ${reason}, lease_until = NULL, worker = NULL
            WHERE id = ${id}::bigint AND worker = ${worker} AND state = 'running'
              AND (${attempts ?? null}::integer IS NULL OR attempts = ${attempts ?? null}::integer)`
      ).pipe(Effect.asVoid),
    fail: (worker, id, reason, attempts) =>
      unavailable(
        sql`UPDATE jobs SET state = 'failed', ended_at = now(), last_error = ${reason}, lease_until = NULL
            WHERE id = ${id}::bigint AND worker = ${worker} AND state = 'running'
              AND (${attempts ?? null}::integer IS NULL OR attempts = ${attempts ?? null}::integer)`
      ).pipe(Effect.asVoid),
    release: (worker) =>
      unavailable(
        // named as the stopped worker, so the next claimer cleans up what it left (its holds, in-flight records)
        sql`UPDATE jobs SET state = 'pending', attempts = greatest(attempts - 1, 0), taken_over_from = worker,
              worker = NULL, lease_until = NULL
            WHERE worker = ${worker} AND state = 'running' RETURNING id`
      ).pipe(Effect.map((rows) => rows.length)),
    group: (queue, group) =>
      unavailable(
        sql`SELECT
              EXISTS (SELECT 1 FROM jobs WHERE queue = ${queue} AND grp = ${group} AND state IN ('pending', 'running'))
                AS open,
              (SELECT count(*) FROM jobs WHERE queue = ${queue} AND grp = ${group} AND state = 'failed') AS failed`
      ).pipe(Effect.map((rows) => ({ open: rows[0]?.["open"] === true, failed: num(rows[0]?.["failed"] ?? 0) }))),
    failures: (queue, group, limit) =>
      unavailable(
        sql`SELECT key, coalesce(last_error, '') AS reason FROM jobs
            WHERE queue = ${queue} AND grp = ${group} AND state = 'failed' ORDER BY id LIMIT ${limit}`
      ).pipe(Effect.map((rows) => rows.map((r) => ({ key: String(r["key"]), reason: String(r["reason"]) })))),
    retryFailed: (queue, group) =>
      unavailable(
        sql`UPDATE jobs SET state = 'pending', attempts = 0, run_at = now(), ended_at = NULL, worker = NULL
            WHERE queue = ${queue} AND grp = ${group} AND state = 'failed' RETURNING id`
      ).pipe(Effect.map((rows) => rows.length)),
    cleanup: (queue, before) =>
      unavailable(
        sql`DELETE FROM jobs WHERE queue = ${queue} AND state IN ('done', 'failed') AND ended_at < ${before} RETURNING id`
      ).pipe(Effect.map((rows) => rows.length))
  })
})

/** The JobQueue port on the SqlClient. */
export const layer = Layer.effect(Q.JobQueue, make)
