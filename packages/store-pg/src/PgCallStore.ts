/**
 * The CallStore port on PostgreSQL (issue 21, migration 0013): one row per op call. A long call is a job of the job
 * engine (its lease is the job's); the record's `owner` is the worker running its current attempt, which alone may
 * write its progress and its end (a takeover makes the record the new worker's).
 */
import { SqlClient } from "@effect/sql"
import { CallStore } from "@pdr/domain"
import { Effect, Layer, Option } from "effect"
import { againWhileCut } from "./PgLedger.js"
import { date, num } from "./Rows.js"

const recordOf = (r: Record<string, unknown>): CallStore.CallRecord => ({
  id: String(r["id"]),
  platform: String(r["platform"]),
  op: r["op"] === null ? null : String(r["op"]),
  status: String(r["status"]) as CallStore.CallStatus,
  httpStatus: r["http_status"] === null ? null : num(r["http_status"]),
  answer: r["answer"] === null || r["answer"] === undefined ? null : String(r["answer"]),
  quote: r["quote"] === null ? null : num(r["quote"]),
  unitsDone: num(r["units_done"]),
  unitsTotal: r["units_total"] === null ? null : num(r["units_total"]),
  cancelRequested: r["cancel_requested"] === true,
  createdAt: date(r["created_at"]),
  finishedAt: r["finished_at"] === null ? null : date(r["finished_at"])
})

/** The columns of a listed call (no answer). */
const listed =
  "id, platform, op, status, http_status, quote, units_done, units_total, cancel_requested, created_at, finished_at"

/** The CallStore adapter. */
export const make = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient

  return CallStore.CallStore.of({
    // a call's id is its own (random): a second run of its insert, after a cut that came after the first committed,
    // finds it and changes nothing (againWhileCut)
    begin: (c) =>
      againWhileCut(
        sql`INSERT INTO calls (id, account_id, key_id, platform, op, body, idempotency_key, request_id, status, owner,
                               created_at, expires_at)
            VALUES (${c.id}, ${c.accountId}, ${c.keyId}, ${c.platform}, ${c.op}, ${c.body}, ${c.idempotencyKey},
                    ${c.requestId}, 'running', ${c.owner}, ${c.now}, ${c.expiresAt})
            ON CONFLICT (id) DO NOTHING`
      ).pipe(Effect.asVoid, Effect.orDie),
    // a heartbeat run twice writes the same progress; a finish run again after a cut that came after the first
    // committed finds the call ended (not running) and changes nothing: both are run again on a cut connection
    // (againWhileCut), so a long call does not lose its attempt to a connection of the pool another one replaces
    heartbeat: (h) =>
      againWhileCut(sql`UPDATE calls SET quote = ${h.quote}, units_done = ${h.unitsDone}, units_total = ${h.unitsTotal},
                           hold_id = coalesce(${h.holdId ?? null}, hold_id),
                           runs = coalesce(${h.runs === undefined || Object.keys(h.runs).length === 0 ? null : JSON.stringify(h.runs)}, runs)
          WHERE id = ${h.id} AND owner = ${h.owner} AND status = 'running'
          RETURNING cancel_requested`).pipe(
        Effect.map((rows) => ({
          held: rows.length > 0,
          cancelRequested: rows[0]?.["cancel_requested"] === true
        })),
        Effect.orDie
      ),
    // run again after a cut that came after the first run committed, it finds its own end (the call ended at this
    // finish's instant, with its status) and answers so, changing nothing
    finish: (f) =>
      againWhileCut(sql`WITH ended AS (
            UPDATE calls SET status = ${f.status}, http_status = ${f.httpStatus}, answer = ${f.answer},
                             units_done = GREATEST(units_done, ${f.unitsDone}), finished_at = ${f.now},
                             expires_at = ${f.expiresAt}, owner = NULL
            WHERE id = ${f.id} AND owner = ${f.owner} AND status = 'running'
            RETURNING 1)
          SELECT 1 FROM ended
          UNION ALL
          SELECT 1 FROM calls WHERE id = ${f.id} AND status = ${f.status} AND finished_at = ${f.now} AND owner IS NULL
            AND NOT EXISTS (SELECT 1 FROM ended)`).pipe(
        Effect.map((rows) => rows.length > 0),
        Effect.orDie
      ),
    record: (calls) =>
      calls.length === 0
        ? Effect.void
        : sql`INSERT INTO calls ${sql.insert(
            calls.map((c) => ({
              id: c.id,
              account_id: c.accountId,
              key_id: c.keyId,
              platform: c.platform,
              op: c.op,
              request_id: c.requestId,
              status: "done",
              http_status: c.httpStatus,
              answer: c.answer,
              created_at: c.createdAt,
              finished_at: c.finishedAt,
              expires_at: c.expiresAt
            }))
          )} ON CONFLICT (id) DO NOTHING`.pipe(Effect.asVoid, Effect.orDie),
    // the reads and the cancel (run twice, it changes nothing) are run again on a cut connection (againWhileCut): a
    // collect that failed on one answered 500 for a call that had ended, billed, and its client could take it for lost
    find: ({ accountId, id, now }) =>
      againWhileCut(
        sql`SELECT * FROM calls WHERE id = ${id} AND account_id = ${accountId} AND expires_at > ${now}`
      ).pipe(
        Effect.map((rows) => (rows[0] === undefined ? Option.none() : Option.some(recordOf(rows[0])))),
        Effect.orDie
      ),
    list: ({ accountId, now, before, limit }) =>
      againWhileCut(
        before === undefined
          ? sql`SELECT ${sql.unsafe(listed)} FROM calls WHERE account_id = ${accountId} AND expires_at > ${now}
              ORDER BY created_at DESC, id DESC LIMIT ${limit}`
          : sql`SELECT ${sql.unsafe(listed)} FROM calls WHERE account_id = ${accountId} AND expires_at > ${now}
                AND (created_at, id) < (${before.createdAt}, ${before.id})
              ORDER BY created_at DESC, id DESC LIMIT ${limit}`
      ).pipe(
        Effect.map((rows) => rows.map(recordOf)),
        Effect.orDie
      ),
    requestCancel: ({ accountId, id, now }) =>
      againWhileCut(
        sql`UPDATE calls SET cancel_requested = (status = 'running') OR cancel_requested
          WHERE id = ${id} AND account_id = ${accountId} AND expires_at > ${now}
          RETURNING ${sql.unsafe(listed)}`
      ).pipe(
        Effect.map((rows) => (rows[0] === undefined ? Option.none() : Option.some(recordOf(rows[0])))),
        Effect.orDie
      ),
    adopt: ({ id, owner }) =>
      sql`UPDATE calls SET owner = ${owner}, attempts = attempts + 1 WHERE id = ${id} AND status = 'running'
          RETURNING id, account_id, key_id, platform, body, idempotency_key, request_id, cancel_requested, attempts,
            hold_id, runs`.pipe(
        Effect.map((rows) => {
          const r = rows[0]
          if (r === undefined) return Option.none()
          return Option.some<CallStore.Claimed>({
            id: String(r["id"]),
            accountId: String(r["account_id"]),
            keyId: String(r["key_id"]),
            platform: String(r["platform"]),
            body: String(r["body"]),
            idempotencyKey: String(r["idempotency_key"]),
            requestId: String(r["request_id"]),
            cancelRequested: r["cancel_requested"] === true,
            attempts: num(r["attempts"]),
            holdId: r["hold_id"] === null || r["hold_id"] === undefined ? null : String(r["hold_id"]),
            runs: typeof r["runs"] === "string" ? (JSON.parse(r["runs"]) as Record<string, string>) : {}
          })
        }),
        Effect.orDie
      ),
    purgeExpired: (now) =>
      sql`DELETE FROM calls WHERE expires_at <= ${now} AND status <> 'running' RETURNING 1`.pipe(
        Effect.map((rows) => rows.length),
        Effect.orDie
      )
  })
})

/** The CallStore port on the SqlClient. */
export const layer = Layer.effect(CallStore.CallStore, make)
