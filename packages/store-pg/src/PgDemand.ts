/**
 * The Demand port on PostgreSQL. `note` only records into an in-memory map (one entry per freshness key, the
 * latest demand kept); a background fiber writes the map in one statement every `flushEvery` and once more when the
 * layer closes, so noting never adds a round trip to a call.
 */
import { SqlClient } from "@effect/sql"
import { Demand } from "@pdr/domain"
import { Cause, Duration, Effect, Layer, Schedule } from "effect"
import * as Failures from "./Failures.js"
import { date } from "./Rows.js"

const toTracked = (r: Record<string, unknown>): Demand.Tracked => ({
  freshnessKey: String(r["freshness_key"]),
  platform: String(r["platform"]),
  op: String(r["op"]),
  subject: String(r["subject"]),
  request: (typeof r["request"] === "string" ? JSON.parse(r["request"]) : r["request"]) as Demand.Tracked["request"],
  demandedAt: r["demanded_at"] === null || r["demanded_at"] === undefined ? null : date(r["demanded_at"]),
  pinned: Boolean(r["pinned"])
})

/** The freshness keys kept waiting for the database at most (new keys beyond are not kept, and counted). */
export const maxUnwritten = 100_000

/** Options: accounts whose calls are not demand (the refresh account), and how often the buffer is written. */
export interface Options {
  readonly ignoreAccounts?: ReadonlyArray<string>
  readonly flushEvery?: Duration.DurationInput
}

/** The adapter; scoped (its flusher runs while the scope is open). */
export const make = (options: Options = {}) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const ignored = new Set(options.ignoreAccounts ?? [])
    let pending = new Map<string, { -readonly [K in keyof Demand.Noted]: Demand.Noted[K] }>()

    const upsert = (entries: ReadonlyArray<Demand.Noted>, pinned: boolean) =>
      sql`
        INSERT INTO tracked (freshness_key, platform, op, subject, request, demanded_at, pinned)
        SELECT x.freshness_key, x.platform, x.op, x.subject, x.request, x.demanded_at, ${pinned}
        FROM jsonb_to_recordset(${JSON.stringify(
          entries.map((e) => ({
            freshness_key: e.freshnessKey,
            platform: e.platform,
            op: e.op,
            subject: e.subject,
            request: e.request,
            demanded_at: e.demandedAt?.toISOString() ?? null
          }))
        )}::jsonb) AS x(freshness_key text, platform text, op text, subject text, request jsonb, demanded_at timestamptz)
        ON CONFLICT (freshness_key) DO UPDATE SET
          demanded_at = GREATEST(tracked.demanded_at, EXCLUDED.demanded_at),
          request = EXCLUDED.request,
          pinned = tracked.pinned OR EXCLUDED.pinned
      `

    // entries whose write the database refused once: put back for the next flush; a second refusal drops them (unless
    // noted again meanwhile). A write that did not reach the database (a dropped connection, a database down or
    // restarting) keeps its entries until they are written (the upsert is idempotent), up to `maxUnwritten`
    // freshness keys, beyond which new keys are not kept (counted in the log) (D102)
    const retried = new WeakSet<object>()
    let unreachable = 0
    let notKept = 0
    // one flush at a time (D101): a read that flushes first (the tracked listing, the planner's pages in the embedded
    // default's process) waits for a periodic write in progress, so it sees every demand noted before it
    const flushing = yield* Effect.makeSemaphore(1)
    const flush = flushing.withPermits(1)(
      Effect.suspend(() => {
        if (pending.size === 0) return Effect.void
        const batch = [...pending.values()]
        pending = new Map()
        return upsert(batch, false).pipe(
          Effect.zipRight(
            Effect.suspend(() => {
              if (unreachable === 0) return Effect.void
              const message = `demand recorded again after ${unreachable} writes that did not reach the database${notKept === 0 ? "" : `; ${notKept} entries were not kept (over ${maxUnwritten} waiting)`}`
              unreachable = 0
              notKept = 0
              return Effect.logWarning(message)
            })
          ),
          Effect.catchAllCause((cause) =>
            Effect.suspend(() => {
              const refused = Failures.refusedWrite(cause)
              let dropped = 0
              for (const e of batch) {
                if (refused && retried.has(e)) dropped++
                else if (!pending.has(e.freshnessKey)) {
                  // a note since the failure is the later one: it stays
                  if (refused) retried.add(e)
                  pending.set(e.freshnessKey, e)
                }
              }
              if (!refused) {
                // an interruption (the process stopping) leaves them for the last flush
                if (Cause.isInterruptedOnly(cause)) return Effect.void
                unreachable++
                return unreachable === 1
                  ? Effect.logWarning(
                      `demand not recorded: the database was not reached; ${pending.size} entries kept until it is`,
                      cause
                    )
                  : Effect.void
              }
              return Effect.logWarning(
                dropped === 0
                  ? `demand not recorded: ${batch.length} entries kept for the next write`
                  : `demand not recorded: ${batch.length - dropped} entries kept for the next write, ${dropped} dropped after two failures`,
                cause
              )
            })
          )
        )
      })
    )

    yield* Effect.forkScoped(
      Effect.repeat(flush, Schedule.spaced(Duration.decode(options.flushEvery ?? Duration.seconds(1))))
    )
    yield* Effect.addFinalizer(() => flush)

    /** Tracked (pinned, or demanded recently and measured once) and not measured since `measuredBefore`. */
    const dueWhere = (demandedSince: Date, measuredBefore: Date, platform: string | undefined) =>
      sql`(t.pinned OR (t.demanded_at >= ${demandedSince}
            AND EXISTS (SELECT 1 FROM measurements w WHERE w.freshness_key = t.freshness_key)))
          ${platform === undefined ? sql`` : sql`AND t.platform = ${platform}`}
          AND NOT EXISTS (
            SELECT 1 FROM measurements m
            WHERE m.freshness_key = t.freshness_key AND m.measured_at >= ${measuredBefore}
          )`

    const orDie = <A, E, R>(e: Effect.Effect<A, E, R>) => Effect.orDie(e)
    /** A read of the tracked table after the demand noted before it is written (the flush never fails). */
    const flushed = <A, B, E, R>(read: Effect.Effect<A, E, R>, f: (a: A) => B) =>
      Effect.zipRight(flush, Effect.map(read, f))

    return {
      note: (accountId, entries) =>
        Effect.sync(() => {
          if (ignored.has(accountId)) return
          for (const e of entries) {
            const known = pending.get(e.freshnessKey)
            if (known !== undefined && (known.demandedAt?.getTime() ?? 0) > (e.demandedAt?.getTime() ?? 0)) continue
            // the same entry noted again (every call of a stored entity: its replay is the same request, Demand.replay)
            // takes the later time in place: a new entry per subject per call, kept until the flush, was garbage for
            // the old generation (issue 22)
            if (
              known !== undefined &&
              known.request === e.request &&
              known.subject === e.subject &&
              known.op === e.op &&
              known.platform === e.platform
            ) {
              known.demandedAt = e.demandedAt
              // a new demand: its write gets its own two tries
              retried.delete(known)
            } else if (known === undefined && pending.size >= maxUnwritten) notKept++
            else pending.set(e.freshnessKey, { ...e })
          }
        }),
      pin: (entries) =>
        orDie(
          Effect.as(
            upsert(
              entries.map((e) => ({ ...e, demandedAt: null })),
              true
            ),
            entries.length
          )
        ),
      unpin: (platform, subject) =>
        orDie(
          Effect.map(
            sql`UPDATE tracked SET pinned = false WHERE platform = ${platform} AND subject = ${subject} AND pinned
                RETURNING freshness_key`,
            (rows) => rows.length
          )
        ),
      list: ({ pinnedOnly }) =>
        orDie(
          flushed(
            sql`SELECT * FROM tracked ${pinnedOnly ? sql`WHERE pinned` : sql``}
                ORDER BY demanded_at DESC NULLS LAST, freshness_key`,
            (rows) => rows.map(toTracked)
          )
        ),
      due: ({ demandedSince, measuredBefore, platform }) =>
        orDie(
          flushed(
            sql`SELECT t.* FROM tracked t WHERE ${dueWhere(demandedSince, measuredBefore, platform)}
                ORDER BY t.pinned DESC, t.demanded_at DESC NULLS LAST, t.freshness_key`,
            (rows) => rows.map(toTracked)
          )
        ),
      duePage: ({ demandedSince, measuredBefore, platform, after, limit }) =>
        orDie(
          flushed(
            sql`SELECT t.* FROM tracked t WHERE ${dueWhere(demandedSince, measuredBefore, platform)}
                ${after === undefined ? sql`` : sql`AND t.freshness_key > ${after}`}
                ORDER BY t.freshness_key LIMIT ${limit}`,
            (rows) => rows.map(toTracked)
          )
        )
    } satisfies typeof Demand.Demand.Service
  })

/** The Demand port on the SqlClient. */
export const layer = (options: Options = {}) => Layer.scoped(Demand.Demand, make(options))
