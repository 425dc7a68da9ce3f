/**
 * The nightly history refresh on the project's job engine (JobQueue port, PgJobQueue, JobEngine). A pass is planned
 * by one runner at a time (the one whose insert of the pass row succeeds; a planner that stops is taken over from its
 * cursor), in keyset pages of tracked entities, each page one transaction of batched job inserts; every runner works
 * the jobs meanwhile. Each job replays one tracked entity through the normal call path (Calls: plan, hold, fetch,
 * settle) under an idempotency key of (pass, entity), billed to the refresh account: a job that runs a second time
 * (its lease ran out, its runner was killed) is answered from the first run's kept answer and bills nothing. Stored
 * results younger than `staleAfter` are served free. Results are written in batches with per-runner counters, so no
 * row is written by every job of every runner; the pass ends when none of its jobs is open, always with a summary.
 */

import { createHash, randomBytes } from "node:crypto"
import { hostname } from "node:os"
import { SqlClient } from "@effect/sql"
import type { SqlError } from "@effect/sql/SqlError"
import {
  Answers,
  Calls,
  Catalogue,
  Demand,
  Freshness,
  Idempotency,
  IdempotencyStore,
  JobQueue,
  Ledger,
  Setting
} from "@pdr/domain"
import { GroupCommit, PgLedger } from "@pdr/store-pg"
import { Circuits } from "@pdr/upstream-http"
import {
  Cause,
  Config,
  ConfigError,
  Cron,
  DateTime,
  Deferred,
  Duration,
  Effect,
  Either,
  Exit,
  FiberId,
  Layer,
  Option,
  Schedule,
  Schema
} from "effect"
import * as JobEngine from "./JobEngine.js"

/** The runner's settings. */
export interface Settings {
  readonly accountId: string
  /** Credits one pass may spend. */
  readonly budget: number
  /** Demand older than this many days no longer tracks an entity. */
  readonly trackDays: number
  /** An entity with a point newer than this is not refreshed (and a stored result this young is served free). */
  readonly staleAfter: Duration.Duration
  /** Jobs worked at once by one runner process. */
  readonly concurrency: number
  /** Jobs of one platform worked at once across all runners. */
  readonly platformConcurrency: number
  /** When passes start (UTC). */
  readonly cron: string
  /** A job whose runner stopped renewing its lease for this long is taken over (the heartbeat renews every third). */
  readonly leaseMs: number
  /** Attempts of a job that fails transiently before it ends failed. */
  readonly maxAttempts: number
  /** Ended jobs and passes older than this many days are deleted. */
  readonly keepDays: number
  /**
   * The most entities one job carries (of one platform and op, run one after another); a planned page is cut into at
   * least this many jobs, so a small pass still spreads over every worker and runner.
   */
  readonly batch: number
  /** Jobs claimed together start in groups this many ms apart in all (0: at once); see `JobEngine.Options.spreadMs`. */
  readonly spreadMs: number
}

/** The settings from the environment. */
export const settingsConfig = Config.all({
  accountId: Config.string("REFRESH_ACCOUNT_ID"),
  budget: Setting.integer("REFRESH_BUDGET", 10_000, { least: 0 }),
  trackDays: Setting.integer("TRACK_DAYS", 30, { least: 0 }),
  staleAfter: Setting.integer("REFRESH_STALE_AFTER_MS", 20 * 3600_000, { least: 0 }).pipe(Config.map(Duration.millis)),
  // 0: a runner that plans passes and reports on them but runs no task (other runners do; the planning bench's runner)
  concurrency: Setting.integer("REFRESH_CONCURRENCY", 16, { least: 0 }),
  platformConcurrency: Setting.integer("REFRESH_PLATFORM_CONCURRENCY", 8, { least: 1 }),
  cron: Config.string("REFRESH_CRON").pipe(
    Config.withDefault("0 2 * * *"),
    Config.validate({
      message: "REFRESH_CRON must be a cron expression",
      validation: (s) => Either.isRight(Cron.parse(s))
    })
  ),
  // REFRESH_LOCK_EXPIRY_MS: the name of this setting under the queue this engine replaced (issue 19), still read when
  // REFRESH_LEASE_MS is unset, so an operator's old configuration keeps its meaning; the heartbeat renews every third
  // of the lease, so below 300 ms it would be a statement every 100 ms per runner
  leaseMs: Setting.integer(
    "REFRESH_LEASE_MS (or the older REFRESH_LOCK_EXPIRY_MS)",
    6000,
    { least: 300 },
    Config.integer("REFRESH_LEASE_MS").pipe(
      Config.orElseIf({ if: ConfigError.isMissingDataOnly, orElse: () => Config.integer("REFRESH_LOCK_EXPIRY_MS") })
    )
  ),
  maxAttempts: Setting.integer("REFRESH_MAX_ATTEMPTS", 5, { least: 1 }),
  keepDays: Setting.integer("REFRESH_KEEP_DAYS", 7, { least: 0 }),
  batch: Setting.integer("REFRESH_BATCH", 16, { least: 1 }),
  // off by default: at load average 25-30 it cost statements and runner CPU per entity and did not raise r2 / r1'
  // (docs/benchmarks.md, stop 33); to be weighed on a quiet machine, where the waves' lost overlap shows
  spreadMs: Setting.integer("REFRESH_SPREAD_MS", 0, { least: 0 })
}) satisfies Config.Config<Settings>

/** The refresh account names no account. */
export class UnknownRefreshAccount extends Schema.TaggedError<UnknownRefreshAccount>()("UnknownRefreshAccount", {
  accountId: Schema.String
}) {
  override get message() {
    return `REFRESH_ACCOUNT_ID ${this.accountId} names no account: create one (pnpm admin account create) and grant it credits`
  }
}

/** `--platform` names no platform of the catalogue. */
export class UnknownPlatform extends Schema.TaggedError<UnknownPlatform>()("UnknownPlatform", {
  platform: Schema.String
}) {
  override get message() {
    const known = `the platforms are ${Catalogue.platforms.map((p) => p.id).join(", ")}`
    return this.platform === ""
      ? `--platform needs a platform; ${known}`
      : `--platform ${this.platform} is no platform; ${known}`
  }
}

/** `--platform`, refused unless a platform of the catalogue (no configuration or store needed to say so). */
export const checkPlatform = (platform: string | undefined): Effect.Effect<void, UnknownPlatform> =>
  platform === undefined || Catalogue.platforms.some((p) => p.id === platform)
    ? Effect.void
    : new UnknownPlatform({ platform })

/** A tracked entity to refresh. */
export const Entity = Schema.Struct({
  freshnessKey: Schema.String,
  subject: Schema.String,
  request: Schema.Record({ key: Schema.String, value: Schema.Unknown })
})

/** One job: a batch of tracked entities of one platform and op to refresh in a pass, in claim order. */
export const Batch = Schema.Struct({
  pass: Schema.String,
  platform: Schema.String,
  op: Schema.String,
  entities: Schema.Array(Entity)
})

/** A job of one entity, as the release before batches planned them (a pass planned then is worked as batches of one). */
export const Task = Schema.Struct({
  pass: Schema.String,
  freshnessKey: Schema.String,
  platform: Schema.String,
  op: Schema.String,
  subject: Schema.String,
  request: Schema.Record({ key: Schema.String, value: Schema.Unknown })
})

const decodeJob = Schema.decodeUnknown(
  Schema.Union(
    Batch,
    Schema.transform(Task, Schema.typeSchema(Batch), {
      strict: true,
      decode: ({ pass, platform, op, ...entity }) => ({ pass, platform, op, entities: [entity] }),
      encode: ({ pass, platform, op, entities }) => ({ pass, platform, op, ...entities[0]! })
    })
  )
)

/** The queue of refresh jobs. */
export const queueName = "refresh"

/** The pass of a night: its UTC date, and the platform when limited to one. */
export const passId = (at: Date, platform: string | undefined): string =>
  `${at.toISOString().slice(0, 10)}${platform === undefined ? "" : `/${platform}`}`

/** The job key of a batch in a pass, named by its first entity (unique in the queue: an entity is in one batch). */
export const jobKey = (pass: string, freshnessKey: string): string => `${pass}|${freshnessKey}`

/** The entities a job of a page of `n` carries at most: the page is cut into at least `batch` jobs of at most `batch`. */
export const batchSize = (n: number, batch: number): number => Math.max(1, Math.min(batch, Math.floor(n / batch)))

/**
 * A planned page cut into batches: in claim order (pinned first, then by recency of demand), each of one platform and
 * op and never mixing pinned and unpinned entities, so a batch's priority (its first entity's) orders its entities too.
 * With `tail` (the pass's last page), its last `tail.entities` in claim order go into batches of at most `tail.size`:
 * the jobs claimed last are short, so the workers that run out of jobs first do not wait long for the others (a
 * pass ends when its last job does).
 */
export const batchesOf = <E extends Pick<Demand.Tracked, "platform" | "op" | "pinned" | "demandedAt">>(
  page: ReadonlyArray<E>,
  batch: number,
  tail?: { readonly entities: number; readonly size: number }
): ReadonlyArray<ReadonlyArray<E>> => {
  let size = batchSize(page.length, batch)
  const tailFrom =
    tail === undefined || tail.size >= size ? page.length : Math.max(0, page.length - Math.max(0, tail.entities))
  const ordered = page.map((e, i) => ({ e, i, p: priorityOf(e) })).sort((a, b) => a.p - b.p || a.i - b.i)
  const open = new Map<string, Array<E>>()
  const out: Array<Array<E>> = []
  for (const [n, { e }] of ordered.entries()) {
    if (n === tailFrom) {
      // the tail starts new batches, of the tail's size
      open.clear()
      size = Math.max(1, tail!.size)
    }
    const k = `${e.platform}\u0000${e.op}\u0000${e.pinned}`
    let b = open.get(k)
    if (b === undefined) {
      b = []
      open.set(k, b)
      out.push(b)
    }
    b.push(e)
    if (b.length >= size) open.delete(k)
  }
  return out
}

/** The idempotency key of an entity's refresh in a pass (D16 keys are at most 255 visible characters). */
export const idempotencyKey = (pass: string, freshnessKey: string): string =>
  `refresh:${createHash("sha256").update(`${pass}\u0000${freshnessKey}`).digest("hex").slice(0, 48)}`

/**
 * The hold key of a runner's call for one job of a pass: a taken-over job releases the hold its stopped runner placed
 * for that job, never one the same runner placed for another job after it resumed (a runner frozen past its leases
 * goes on claiming when it wakes).
 */
export const holdKey = (pass: string, runner: string, job: string) => `refresh:${pass}:${runner}:${job}`

/** Claim order: pinned entities first, then the most recently demanded. */
export const priorityOf = (e: Pick<Demand.Tracked, "pinned" | "demandedAt">): number =>
  e.pinned ? 0 : 4_000_000_000 - Math.floor((e.demandedAt?.getTime() ?? 0) / 1000)

/** Where a pass stands. */
export interface Progress {
  readonly pass: string
  /** Every entity is planned (the total is final). */
  readonly planned: boolean
  readonly total: number
  readonly done: number
  readonly refreshed: number
  readonly fresh: number
  readonly omitted: number
  readonly failed: number
  readonly overBudget: number
  /** Credits charged for this pass (the per-runner counters, written with the results). */
  readonly credits: number
  readonly budget: number
}

/** How a pass ended, for the summary and the exit code. */
export type Outcome = "complete" | "budget" | "failures" | "interrupted"

/** The outcome of a finished pass's progress. */
export const outcomeOf = (p: Progress): Outcome =>
  p.failed > 0 ? "failures" : p.overBudget > 0 ? "budget" : p.done < p.total ? "interrupted" : "complete"

/** One entry of a dry run. */
export interface Planned {
  readonly platform: string
  readonly op: string
  readonly subject: string
  readonly credits: number
  readonly withinBudget: boolean
}

type BatchT = typeof Batch.Type
type EntityT = typeof Entity.Type
type Status = "refreshed" | "fresh" | "omitted" | "over_budget" | "failed"
interface Result {
  readonly status: Status
  readonly credits: number
  readonly quoted: number
  readonly detail: string | null
}
/** An entity of a batch and how its refresh ended. */
interface Done {
  readonly entity: EntityT
  readonly result: Result
}

/** An entity of a batch with its planned call. */
interface Item {
  readonly e: EntityT
  readonly prepared: Calls.Prepared
}

/** The quotes of these entities, summed. */
const quotesOf = (items: ReadonlyArray<Item>) => items.reduce((n, it) => n + it.prepared.quote, 0)

/** The calls of its platform a batch makes at once (its job's slots, counted against the platform's limit). */
export const callsPerBatch = 4

/** What one attempt of a batch ended: its entities' results, and why the rest of them run again (after a backoff). */
interface Attempt {
  readonly done: ReadonlyArray<Done>
  /** Why the rest run again; `retryInMs`, the least wait before (an upstream host's open circuit). */
  readonly again?: { readonly reason: string; readonly retryInMs?: number }
}

/** The database's own message of a statement's failure (the SqlError's is generic). */
const causeOf = (e: { readonly message: string; readonly cause?: unknown }) =>
  e.cause instanceof Error ? e.cause.message : e.message

/** This runner's planning was taken over by another while it offered a page (the page's transaction rolls back). */
class PlanningLost extends Schema.TaggedError<PlanningLost>()("PlanningLost", {}) {}

const permanent = (reason: string) => new JobEngine.JobFailed({ reason, transient: false })
const transient = (reason: string, retryInMs?: number) =>
  new JobEngine.JobFailed(
    retryInMs === undefined ? { reason, transient: true } : { reason, transient: true, retryInMs }
  )

/** The refresh engine over the core services, the SqlClient and the job queue. */
export const make = (settings: Settings) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const calls = yield* Calls.Calls
    const idempotency = yield* Idempotency.Idempotency
    const idempotencyStore = yield* IdempotencyStore.IdempotencyStore
    const ledger = yield* Ledger.Ledger
    const demand = yield* Demand.Demand
    const jobs = yield* JobQueue.JobQueue
    const circuits = yield* Effect.serviceOption(Circuits.Circuits)
    const runner = `${hostname()}:${process.pid}:${randomBytes(3).toString("hex")}`
    const orDie = <A, E, R>(e: Effect.Effect<A, E, R>) => Effect.orDie(e)

    const checkAccount = Effect.flatMap(ledger.findAccount(settings.accountId), (a) =>
      Option.isSome(a) ? Effect.void : new UnknownRefreshAccount({ accountId: settings.accountId })
    )
    /** Calls with stored results older than `staleAfter` treated as stale. */
    const refreshing = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
      Effect.flatMap(Calls.CallSettings, (s) =>
        Effect.provideService(effect, Calls.CallSettings, { ...s, freshAtMost: settings.staleAfter })
      )

    const window = Effect.map(DateTime.now, (now) => {
      const t = DateTime.toEpochMillis(now)
      return {
        demandedSince: new Date(t - settings.trackDays * 86_400_000),
        measuredBefore: new Date(t - Duration.toMillis(settings.staleAfter))
      }
    })

    // ---- planning: one planner at a time, keyset pages, a planner that stops is taken over from its cursor ----
    const pageSize = 2000
    // the pass's last entities (in the last page's claim order) in jobs of one round of calls each: about one wave of
    // a runner's workers
    const tail = { entities: settings.concurrency * settings.batch, size: callsPerBatch }
    const planPages = (
      pass: string,
      platform: string | undefined,
      from: string | undefined,
      onPage: Effect.Effect<void>
    ) =>
      Effect.gen(function* () {
        const w = yield* window
        let cursor = from
        let planned = 0
        while (true) {
          // one entity more than a page: whether this page is the pass's last (its tail cut short)
          const read = yield* demand.duePage({ ...w, platform, after: cursor, limit: pageSize + 1 })
          const page = read.length > pageSize ? read.slice(0, pageSize) : read
          const final = read.length <= pageSize
          const last = page.at(-1)?.freshnessKey
          const batches = batchesOf(page, settings.batch, final ? tail : undefined)
          const keys = batches.map((b) => jobKey(pass, b[0]!.freshnessKey))
          const kept = yield* sql
            .withTransaction(
              Effect.gen(function* () {
                const offered = yield* jobs.offer(
                  queueName,
                  batches.map((b, i) => ({
                    key: keys[i]!,
                    group: pass,
                    lane: b[0]!.platform,
                    priority: priorityOf(b[0]!),
                    slots: Math.min(callsPerBatch, b.length),
                    payload: {
                      pass,
                      platform: b[0]!.platform,
                      op: b[0]!.op,
                      entities: b.map((e) => ({ freshnessKey: e.freshnessKey, subject: e.subject, request: e.request }))
                    } satisfies BatchT
                  })),
                  { maxAttempts: settings.maxAttempts }
                )
                // the total counts entities: those of the batches this transaction added (a batch offered before, by
                // a planner that was taken over, is not counted twice; now() is this transaction's start)
                const added =
                  offered === batches.length
                    ? page.length
                    : Number(
                        (yield* sql<{ n: string }>`SELECT coalesce(sum(jsonb_array_length(payload->'entities')), 0) AS n
                          FROM jobs WHERE queue = ${queueName} AND key IN ${sql.in(keys)} AND created_at = now()`)[0]
                          ?.n ?? 0
                      )
                const rows = yield* sql`UPDATE refresh_passes SET total = total + ${added},
                    cursor = ${last ?? cursor ?? null}, planner_seen_at = now(), planned = ${final}
                  WHERE id = ${pass} AND planner = ${runner} AND NOT planned RETURNING id`
                // another runner took the planning over: this page is its to offer (nothing of it is kept here)
                if (rows.length === 0) return yield* Effect.fail(new PlanningLost())
                return rows
              })
            )
            .pipe(Effect.catchTag("PlanningLost", () => Effect.succeed([])))
          // another runner took the planning over (this one was too slow): it continues from the cursor
          if (kept.length === 0) return planned
          // this runner's workers claim the page at once (not after their idle wait)
          if (batches.length > 0) yield* onPage
          planned += page.length
          if (final) return planned
          cursor = last
        }
      })

    /** Plans the pass if nobody is planning it; returns whether this runner planned (part of) it. */
    const plan = (pass: string, platform: string | undefined, onPage: Effect.Effect<void>) =>
      Effect.gen(function* () {
        const won =
          yield* sql`INSERT INTO refresh_passes (id, account_id, total, budget, planned, planner, planner_seen_at)
            VALUES (${pass}, ${settings.accountId}, 0, ${settings.budget}, false, ${runner}, now())
            ON CONFLICT (id) DO NOTHING RETURNING id`
        let from: string | undefined
        if (won.length === 0) {
          // a planner that stopped renewing its claim for a lease is taken over from its cursor
          // this runner's own planning after a store failure, or a planner that stopped renewing its claim
          const took = yield* sql<{ cursor: string | null }>`UPDATE refresh_passes SET planner = ${runner},
              planner_seen_at = now()
            WHERE id = ${pass} AND NOT planned
              AND (planner = ${runner} OR planner_seen_at < now() - ${settings.leaseMs} * interval '1 millisecond')
            RETURNING cursor`
          if (took.length === 0) return false
          from = took[0]?.cursor ?? undefined
          yield* Effect.logInfo("taking over the planning of a refresh pass", { pass, from })
        }
        const started = Date.now()
        const n = yield* planPages(pass, platform, from, onPage)
        yield* jobs
          .offered(queueName)
          .pipe(
            Effect.catchAll((e) => Effect.logWarning("statistics of the job queue not refreshed", { detail: e.detail }))
          )
        yield* Effect.logInfo("refresh pass planned", { pass, entities: n, seconds: (Date.now() - started) / 1000 })
        return true
      })

    // ---- the pass budget: reserved per job on the pass row, never above the budget ----
    // the pass budget is reserved by the concurrent jobs of one turn together (group commit: one statement for all of
    // them while the whole batch fits, else each in turn as alone), so the pass row is not written once per entity
    // each reservation is written down (migration 0033) in its statement, named by the hold that is to hold it, until
    // its give-back (`settle`, migration 0035): the job's runner finds it there after placing that hold
    // (`claimReserved`), and a takeover, or the pass's end, gives back what a stopped runner left
    interface Reservation {
      readonly pass: string
      readonly credits: number
      readonly job: string
      readonly hold: string
    }
    const reserveAll = (pass: string, asks: ReadonlyArray<Reservation>) => {
      const total = asks.reduce((n, a) => n + a.credits, 0)
      return Effect.map(
        sql`WITH r AS (UPDATE refresh_passes SET reserved = reserved + ${total}
              WHERE id = ${pass} AND reserved + ${total} <= budget RETURNING id)
            INSERT INTO refresh_reservations (pass_id, job_id, runner, hold_id, credits)
            SELECT ${pass}, x.job, ${runner}, x.hold, x.credits
            FROM r, jsonb_to_recordset(${JSON.stringify(asks.map((a) => ({ job: a.job, hold: a.hold, credits: a.credits })))}::jsonb)
              AS x(job text, hold text, credits bigint)
            RETURNING 1`,
        (rows) => rows.length > 0
      )
    }
    const reserveAlone = (ask: Reservation) => reserveAll(ask.pass, [ask])
    const reserve = yield* GroupCommit.make({
      run: (asks: ReadonlyArray<Reservation>) =>
        Effect.gen(function* () {
          const granted = new Array<Either.Either<boolean, SqlError>>(asks.length)
          for (const pass of new Set(asks.map((a) => a.pass))) {
            const mine = asks.flatMap((a, i) => (a.pass === pass ? [i] : []))
            const all = yield* reserveAll(
              pass,
              mine.map((i) => asks[i]!)
            )
            for (const i of mine) granted[i] = Either.right(all ? true : yield* reserveAlone(asks[i]!))
          }
          return granted
        }),
      alone: reserveAlone,
      // after a lost connection the batch may have been reserved: reserving again only ends the pass early (budget
      // reserved, never spent), it never spends a credit
      retry: reserveAlone,
      maxBatch: 64,
      maxInFlight: 1
    })
    // issue 19: a round's reservation rows stay until its give-back, which deletes them in its statement
    // (`pdr_refresh_settle`, migration 0035): what the round's hold did not capture goes back to the pass budget, once,
    // whoever runs it (the round's runner at its end, the job's takeover, the pass's end) and whenever it was stopped
    interface Settle {
      readonly holds?: ReadonlyArray<string>
      readonly job?: string
      readonly runner?: string
      readonly pass?: string
    }
    /** One settle statement: gives back the rows whose hold is not held (or was never placed); returns the held ones. */
    const settleStatement = (of: Settle) =>
      Effect.map(
        sql<{ hold_id: string; open: boolean }>`SELECT hold_id, open FROM pdr_refresh_settle(
            ${of.holds === undefined ? null : [...of.holds]}::text[], ${of.job ?? null}, ${of.runner ?? null},
            ${of.pass ?? null})`,
        (rows) => rows.flatMap((r) => (r.open ? [r.hold_id] : []))
      )
    /**
     * These reservations given back: their holds still held are closed first, through the Ledger port (their draws
     * captured, the rest released), then the rows go with the give-back of what the holds did not capture.
     */
    const settle = (of: Settle) =>
      Effect.gen(function* () {
        let open = yield* settleStatement(of)
        for (let i = 0; open.length > 0 && i < 3; i++) {
          for (const h of open) yield* ledger.close(h)
          open = yield* settleStatement({ holds: open })
        }
        if (open.length > 0)
          yield* Effect.logWarning("refresh: a round's hold kept being held; its give-back waits", open)
      })
    const settleAlone = (hold: string) => settle({ holds: [hold] })
    // the settles of one turn's rounds in one statement; after a lost connection each runs alone again (whoever deletes
    // the rows gives back: a second run finds none and gives nothing)
    const settleGrouped = yield* GroupCommit.make({
      run: (holds: ReadonlyArray<string>) =>
        Effect.gen(function* () {
          const open = yield* settleStatement({ holds })
          if (open.length > 0) yield* settle({ holds: open })
          return holds.map(() => Either.right<void>(undefined))
        }),
      alone: settleAlone,
      retry: settleAlone,
      maxBatch: 64,
      maxInFlight: 1
    })

    // a runner that placed a round's hold finds its reservation rows there (locked, so a settle running meanwhile is
    // waited for): what they still reserve, 0 when a takeover gave them back (this attempt is stale and spends nothing)
    const claimedIn = (holds: ReadonlyArray<string>) =>
      Effect.map(
        sql<{ hold_id: string; credits: string }>`SELECT x.hold_id, sum(x.credits) AS credits FROM (
            SELECT hold_id, credits FROM refresh_reservations WHERE hold_id IN ${sql.in(holds)} ORDER BY id FOR UPDATE
          ) AS x GROUP BY x.hold_id`,
        (rows) => {
          const found = new Map(rows.map((r) => [r.hold_id, Number(r.credits)]))
          return holds.map((h) => found.get(h) ?? 0)
        }
      )
    const claimAlone = (hold: string) => Effect.map(claimedIn([hold]), (r) => r[0]!)
    const claimReserved = yield* GroupCommit.make({
      run: (holds: ReadonlyArray<string>) =>
        Effect.map(claimedIn(holds), (found) => found.map((n) => Either.right<number>(n))),
      alone: claimAlone,
      // a read: after a lost connection it is read again
      retry: claimAlone,
      maxBatch: 64,
      maxInFlight: 1
    })

    const accounts = new Map<string, string>()
    // the jobs claimed together at a pass's start ask at once: one read answers them all (uninterruptible, so a job
    // stopped meanwhile never hands the others an interruption; a failure is each one's, as its own read's would be)
    const lookingUp = new Map<string, Deferred.Deferred<string | undefined, SqlError>>()
    const accountOf = (pass: string): Effect.Effect<string | undefined, SqlError> =>
      Effect.suspend(() => {
        if (accounts.has(pass)) return Effect.succeed(accounts.get(pass))
        const pending = lookingUp.get(pass)
        if (pending !== undefined) return Deferred.await(pending)
        const answered = Deferred.unsafeMake<string | undefined, SqlError>(FiberId.none)
        lookingUp.set(pass, answered)
        return Effect.uninterruptible(
          Effect.map(sql<{ account_id: string }>`SELECT account_id FROM refresh_passes WHERE id = ${pass}`, ([row]) => {
            if (row !== undefined) accounts.set(pass, row.account_id)
            return row?.account_id
          }).pipe(
            Effect.onExit((exit) =>
              Effect.sync(() => {
                lookingUp.delete(pass)
                Deferred.unsafeDone(answered, exit)
              })
            )
          )
        )
      })

    /** The holds a runner that stopped mid-job placed for it, and its batch's unfinished idempotency records, go. */
    const releaseStopped = (
      batch: BatchT,
      todo: ReadonlyArray<EntityT>,
      accountId: string,
      stopped: string,
      job: string
    ) =>
      Effect.gen(function* () {
        const key = holdKey(batch.pass, stopped, job)
        // issue 19: the stopped runner's rounds are settled: their holds closed (what its entities drew is captured),
        // what they did not capture given back to the pass budget, with their rows (a round it had already settled has
        // none left: nothing twice); the stopped runner, if it wakes, finds its hold closed or its rows gone and spends
        // nothing
        yield* settle({ job, runner: stopped })
        // a hold it placed with no rows left (they were given back before it was placed) is closed: it reserves nothing
        for (const h of yield* ledger.holds(accountId)) if (h.keyId === key) yield* ledger.close(h.id)
        yield* abandon(batch.pass, todo, accountId)
      })

    /** The in-flight idempotency records of these entities (a settled one stays) are dropped. */
    const abandon = (pass: string, entities: ReadonlyArray<EntityT>, accountId: string) =>
      Effect.forEach(
        entities,
        (e) => idempotencyStore.abandon({ accountId, key: idempotencyKey(pass, e.freshnessKey) }),
        { discard: true }
      )

    // the jobs claimed together start together: their reads in one statement
    const recordedIn = (asks: ReadonlyArray<BatchT>) =>
      Effect.map(
        sql<{ pass_id: string; freshness_key: string }>`SELECT r.pass_id, r.freshness_key
          FROM jsonb_to_recordset(${JSON.stringify(asks.flatMap((b) => b.entities.map((e) => ({ p: b.pass, k: e.freshnessKey }))))}::jsonb)
            AS x(p text, k text)
          JOIN refresh_results r ON r.pass_id = x.p AND r.freshness_key = x.k`,
        (rows) => {
          const found = new Set(rows.map((r) => `${r.pass_id}\u0000${r.freshness_key}`))
          return asks.map(
            (b): ReadonlySet<string> =>
              new Set(
                b.entities.flatMap((e) => (found.has(`${b.pass}\u0000${e.freshnessKey}`) ? [e.freshnessKey] : []))
              )
          )
        }
      )
    const recordedAlone = (batch: BatchT) => Effect.map(recordedIn([batch]), (r) => r[0]!)
    /** The entities of a batch whose result is already written (a batch run again: its lease ran out, a retry). */
    const recordedOf = yield* GroupCommit.make({
      run: (asks: ReadonlyArray<BatchT>) => Effect.map(recordedIn(asks), (sets) => sets.map((r) => Either.right(r))),
      alone: recordedAlone,
      retry: recordedAlone,
      maxBatch: 64,
      maxInFlight: 2
    })

    const statusOf = (coverage: unknown): { status: Status; detail: string | null } => {
      const first = (coverage as ReadonlyArray<{ status?: string; detail?: string }> | undefined)?.[0]
      const status = first?.status === "fetched" ? "refreshed" : first?.status === "stored" ? "fresh" : "omitted"
      return { status, detail: first?.detail ?? null }
    }

    const fingerprintOf = (platform: string, e: EntityT) =>
      createHash("sha256")
        .update(`${platform}\n${Freshness.canonicalJson({ request: e.request })}`)
        .digest("hex")
    /** A settle's kept record (the first run's, replayed) read as the answer it stands for. */
    const keptAnswer = (kept: unknown) => {
      const parsed: unknown = typeof kept === "string" ? JSON.parse(kept) : kept
      const body = (Answers.isKept(parsed) ? Answers.answerOf(parsed) : parsed) as {
        cost?: { creditsCharged?: number }
        coverage?: unknown
      }
      return { charged: body.cost?.creditsCharged ?? 0, coverage: body.coverage }
    }

    /**
     * One entity's call on its plan, under its idempotency key of (pass, entity): what it charged and its coverage, or
     * why it failed (transient failures may be run again).
     */
    const callOne = (
      pass: string,
      platform: string,
      accountId: string,
      e: EntityT,
      prepared: Calls.Prepared,
      hold: string | undefined
    ) =>
      Effect.gen(function* () {
        const key = idempotencyKey(pass, e.freshnessKey)
        const fingerprint = fingerprintOf(platform, e)
        // this run's own answer, when it ran the call (read as is, not parsed back from the text the settle kept)
        let own: { readonly charged: number; readonly coverage: unknown } | undefined
        const answer = yield* idempotency
          .run(
            { accountId, key, fingerprint },
            // fenced: a job taken over from this runner had its holds released, and this call then settles nothing
            // issue 19: the call draws its charge from its batch's hold (when it has a quote to cover)
            prepared.run({ key, envelope: {} }, hold === undefined ? { fenced: true } : { fenced: true, hold }).pipe(
              Effect.map(({ kept, ...answer }) => {
                own = { charged: answer.cost.creditsCharged, coverage: answer.coverage }
                return kept === undefined
                  ? { status: 200, body: answer as unknown }
                  : { status: 200, body: kept as unknown, keptBySettle: true }
              })
            )
          )
          .pipe(
            Effect.map((k) => {
              if (!k.replayed && own !== undefined) return { ...own, replayed: false }
              return { ...keptAnswer(k.body), replayed: k.replayed }
            }),
            Effect.catchAll((e) => {
              switch (e._tag) {
                case "EveryUnitFailed":
                  // the operator's summary says why: the units' own reasons (the upstream's status, a timeout)
                  // on hosts whose circuit is open the call waits for their probe (its next attempt not sooner)
                  return transient(unitsFailed(e), e.retryInMs)
                case "IdempotencyInFlight":
                case "SettleOutcomeUnknown":
                  return transient(e.message)
                default:
                  return permanent(e.message)
              }
            })
          )
        return answer
      }).pipe(
        // a store failure (a dropped connection, a write refused) is transient: the call runs again after a backoff
        Effect.catchAllDefect((d) => transient(d instanceof Error ? causeOf(d) : String(d)))
      )

    /** Why every unit failed, in the units' words: `<message> (<reason>: <detail>; ...)`, each distinct once. */
    const unitsFailed = (e: Calls.EveryUnitFailed) => {
      const why = new Set<string>()
      for (const c of e.coverage as ReadonlyArray<{ readonly reason?: unknown; readonly detail?: unknown }>) {
        const text = [c.reason, c.detail].filter((t) => typeof t === "string" && t !== "").join(": ")
        if (text !== "") why.add(text)
      }
      return why.size === 0 ? e.message : `${e.message} (${[...why].slice(0, 3).join("; ")})`
    }

    const failedResult = (quoted: number, detail: string): Result => ({ status: "failed", credits: 0, quoted, detail })

    /**
     * Issue 19: one hold for the quotes of a round of a batch (the entities whose pass budget is reserved), placed
     * through the Ledger port; each entity's settle draws its charge from it. When the account's spendable credits do
     * not cover them all, the longest prefix (in claim order) they cover is held and the rest end failed, as a call
     * refused its hold does. None when nothing is to be paid.
     */
    const placeShared = (
      caller: { readonly accountId: string; readonly keyId: string },
      items: ReadonlyArray<Item>,
      ttl: Duration.Duration,
      id: string
    ) =>
      Effect.gen(function* () {
        let covered = items.filter((it) => it.prepared.quote > 0)
        const refused: Array<{ readonly it: Item; readonly available: number }> = []
        // a refusal names the spendable credits it saw; they may change meanwhile, so a few tries
        for (let attempt = 0; covered.length > 0 && attempt < 4; attempt++) {
          const amount = quotesOf(covered)
          const placed = yield* Effect.either(
            ledger.placeHold({
              id,
              accountId: caller.accountId,
              keyId: caller.keyId,
              amount,
              expiresAt: new Date(Date.now() + Duration.toMillis(ttl))
            })
          )
          if (Either.isRight(placed)) return { hold: placed.right.id, covered, refused }
          // the longest prefix the spendable credits seen cover (all of it: they changed since, so try again)
          let room = placed.left.available
          let k = 0
          while (k < covered.length && covered[k]!.prepared.quote <= room) room -= covered[k++]!.prepared.quote
          for (const it of covered.slice(k)) refused.push({ it, available: room })
          covered = covered.slice(0, k)
        }
        for (const it of covered) refused.push({ it, available: 0 }) // the credits kept changing: refused all the same
        return { hold: undefined, covered: [] as ReadonlyArray<Item>, refused }
      })

    /**
     * One job: a batch of entities of one platform and op. Planned together (their store reads in one statement),
     * their quotes reserved in the pass budget in one statement (when the budget left cannot cover them all, entity
     * by entity in claim order, so a cheap entity is not cut while credits remain), then held on the refresh account
     * as one ledger hold (issue 19), from which each entity's settle draws its charge; each called under its own
     * idempotency key (up to `callsPerBatch` at once: the job's slots, which the platform limit counts). Closing the
     * hold captures what was drawn and releases the rest, which is given back to the pass budget (by this runner, or
     * by the runner that takes the job over: exactly once, by whoever closes the hold). A permanent failure ends only
     * its entity failed; the entities of a transient failure, or whose quote waits for credits other jobs hold, come
     * back with the batch's next attempt (its entities with a result skipped), and on its last attempt end failed or
     * over budget.
     */
    const handle = (job: JobQueue.Job): Effect.Effect<Attempt, JobEngine.JobFailed> =>
      Effect.suspend(() => {
        // a round's reservation is written down under its hold's id until its give-back (`settle`): at the round's
        // end, or here when the job stops (its rounds not settled: `unsettled`), or by the takeover or the pass's end
        // when this process was killed at any point
        const unsettled = new Set<string>()
        // the credits reserved under the current round's hold
        let roundCredits = 0
        const newHold = () => `hold_${randomBytes(12).toString("hex")}`
        let roundHold = newHold()
        return Effect.gen(function* () {
          const batch = yield* decodeJob(job.payload).pipe(
            Effect.mapError(() => permanent("the job's payload is not a refresh batch"))
          )
          const accountId = yield* accountOf(batch.pass)
          if (accountId === undefined) return yield* permanent(`no pass ${batch.pass}`)
          const recorded = yield* recordedOf(batch)
          const todo =
            recorded.size === 0 ? batch.entities : batch.entities.filter((e) => !recorded.has(e.freshnessKey))
          if (job.takenOverFrom !== null) yield* releaseStopped(batch, todo, accountId, job.takenOverFrom, job.id)
          // a retry here (the attempt before ended in this runner: a dropped connection, say) finds that attempt's
          // rounds not settled when their give-back could not be written, and its claims on the keys still in flight
          // when their end could not be written: they are stale, settled and dropped
          else if (job.attempts > 1) {
            yield* settle({ job: job.id, runner })
            yield* abandon(batch.pass, todo, accountId)
          }
          const caller = { accountId, keyId: holdKey(batch.pass, runner, job.id), prefix: "refresh" }
          const ttl = (yield* Calls.CallSettings).holdTtl
          const out: Array<Done> = []
          // planned once each, together: the quote, then (once it is reserved) the call on the same plan
          const plans = yield* Effect.forEach(
            todo,
            (e) => Effect.either(calls.prepare(caller, batch.platform, { request: e.request })),
            { concurrency: "unbounded" }
          )
          const items: Array<Item> = []
          plans.forEach((p, i) => {
            if (Either.isLeft(p))
              out.push({ entity: todo[i]!, result: failedResult(0, `quote refused: ${p.left.message}`) })
            else items.push({ e: todo[i]!, prepared: p.right })
          })
          const reserveEach = (asks: ReadonlyArray<Item>) =>
            Effect.gen(function* () {
              const got: Array<Item> = []
              const left: Array<Item> = []
              for (const it of asks) {
                if (it.prepared.quote === 0) got.push(it)
                else if (
                  // the reservation and its note in `unsettled` in one step: a stop between the two (SIGTERM) left the
                  // reservation for the takeover or the pass's end to give back (stop 39's CI)
                  yield* Effect.uninterruptible(
                    Effect.tap(
                      reserveAlone({ pass: batch.pass, credits: it.prepared.quote, job: job.id, hold: roundHold }),
                      (ok) =>
                        Effect.sync(() => {
                          if (!ok) return
                          roundCredits += it.prepared.quote
                          unsettled.add(roundHold)
                        })
                    )
                  )
                )
                  got.push(it)
                else left.push(it)
              }
              return [got, left] as const
            })
          const total = quotesOf(items)
          let ready: ReadonlyArray<Item> = items
          let waiting: ReadonlyArray<Item> = []
          if (total > 0) {
            const whole = yield* Effect.uninterruptible(
              Effect.tap(reserve({ pass: batch.pass, credits: total, job: job.id, hold: roundHold }), (ok) =>
                Effect.sync(() => {
                  if (!ok) return
                  roundCredits = total
                  unsettled.add(roundHold)
                })
              )
            )
            if (!whole) [ready, waiting] = yield* reserveEach(items)
          }
          // the last attempt ends every entity: a transient failure as failed, a quote still not covered as over budget
          const last = job.attempts >= settings.maxAttempts
          let again: { reason: string; retryInMs?: number } | undefined
          while (ready.length > 0) {
            // the round's quotes held as one hold; those the account cannot cover end failed (their budget given back
            // with the round's); then the round's reservation found still there (not all of it: a takeover gave it
            // back, and this attempt is stale: its hold is closed and what is left given back, nothing spent)
            const hold = roundHold
            const shared = yield* Effect.uninterruptible(
              Effect.gen(function* () {
                const s = yield* placeShared(caller, ready, ttl, hold)
                if (roundCredits === 0 || (yield* claimReserved(hold)) === roundCredits) return s
                unsettled.delete(hold)
                if (s.hold !== undefined) yield* ledger.close(s.hold)
                yield* settle({ holds: [hold] })
                return yield* transient("the batch's reservation was given back: the job was taken over")
              })
            )
            for (const { it, available } of shared.refused) {
              const refusal = new Calls.InsufficientCredits({ required: it.prepared.quote, available })
              out.push({ entity: it.e, result: failedResult(it.prepared.quote, refusal.message) })
            }
            const refused = new Set(shared.refused.map((r) => r.it))
            // the hold outlives the calls: renewed (a call may take minutes) while less than half its TTL is left
            let renewAt = Date.now() + Duration.toMillis(ttl) / 2
            let closedByTakeover = false
            yield* Effect.forEach(
              ready.filter((it) => !refused.has(it)),
              (it) =>
                Effect.gen(function* () {
                  const quote = it.prepared.quote
                  if (shared.hold !== undefined && Date.now() > renewAt && !closedByTakeover) {
                    renewAt = Date.now() + Duration.toMillis(ttl) / 2
                    closedByTakeover = !(yield* ledger.extend(
                      shared.hold,
                      new Date(Date.now() + Duration.toMillis(ttl))
                    ))
                  }
                  const r = closedByTakeover
                    ? Either.left(transient("the batch's hold was closed: the job was taken over"))
                    : yield* Effect.either(
                        callOne(
                          batch.pass,
                          batch.platform,
                          accountId,
                          it.e,
                          it.prepared,
                          quote > 0 ? shared.hold : undefined
                        )
                      )
                  if (Either.isRight(r)) {
                    // a replayed answer was charged by the first run, under that run's hold: it draws nothing here
                    const { status, detail } = statusOf(r.right.coverage)
                    out.push({ entity: it.e, result: { status, credits: r.right.charged, quoted: quote, detail } })
                  } else if (r.left.transient && !last)
                    // the batch's next attempt waits for the longest known wait of its entities (an open circuit)
                    again = {
                      reason: r.left.reason,
                      ...(r.left.retryInMs === undefined && again?.retryInMs === undefined
                        ? {}
                        : { retryInMs: Math.max(r.left.retryInMs ?? 0, again?.retryInMs ?? 0) })
                    }
                  // a transient failure is called again with the batch's next attempt (after a backoff); a permanent
                  // one ends only its entity (its share of the hold is released with the hold)
                  else out.push({ entity: it.e, result: failedResult(quote, r.left.reason) })
                }),
              // the job's slots: the calls of its platform it makes at once (the platform limit counts them)
              { concurrency: Math.max(1, Math.min(callsPerBatch, settings.platformConcurrency)), discard: true }
            )
            // the round settled: its hold closed (its draws captured), the rest of its reservation (refused and failed
            // entities' shares, replays, charges below the quote) given back to the pass budget with its rows, in one
            // statement; nothing when a takeover settled it first
            if (roundCredits > 0 || shared.hold !== undefined)
              yield* Effect.uninterruptible(
                Effect.gen(function* () {
                  if (shared.hold !== undefined) yield* ledger.close(shared.hold)
                  if (roundCredits > 0) yield* settleGrouped(hold)
                  unsettled.delete(hold)
                })
              )
            roundCredits = 0
            // what this batch gave back may cover the quotes that did not fit
            if (waiting.length === 0) break
            roundHold = newHold()
            ;[ready, waiting] = yield* reserveEach(waiting)
          }
          if (waiting.length > 0) {
            // the budget left cannot cover these quotes; a job still running may give back what it reserved, so they
            // wait for it (their batch comes back after a backoff, not running meanwhile) before they are cut; what
            // ended jobs left reserved (their runner stopped, and nobody took them over) is given back first
            yield* settle({ pass: batch.pass })
            const [p] = yield* sql<{ left: string; running: boolean }>`SELECT budget - reserved AS left,
                EXISTS (SELECT 1 FROM jobs WHERE queue = ${queueName} AND grp = ${batch.pass} AND state = 'running'
                  AND id <> ${job.id}::bigint) AS running
              FROM refresh_passes WHERE id = ${batch.pass}`
            const left = Number(p?.left ?? 0)
            if (p?.running === true && !last)
              again ??= {
                reason: `waiting for reserved credits (${left} of the budget left, ${waiting[0]!.prepared.quote} needed)`
              }
            else
              for (const it of waiting)
                out.push({
                  entity: it.e,
                  result: {
                    status: "over_budget",
                    credits: 0,
                    quoted: it.prepared.quote,
                    detail: `${it.prepared.quote} credits needed, ${left} of the pass budget left`
                  }
                })
          }
          return again === undefined ? { done: out } : { done: out, again }
        }).pipe(
          Effect.onExit((exit) =>
            Exit.isSuccess(exit) || unsettled.size === 0
              ? Effect.void
              : // the rounds not settled: their holds closed, the rest of their reservations given back (what this
                // fails to write is settled by the job's next attempt, its takeover or the pass's end)
                Effect.ignore(settle({ holds: [...unsettled] }))
          )
        )
      }).pipe(
        // the calls of the batch, planned and run with stored results older than `staleAfter` stale
        refreshing,
        // a store failure (a dropped connection) is transient: the job runs again after a backoff
        Effect.catchAllDefect((d) => transient(d instanceof Error ? d.message : String(d))),
        Effect.catchTag("SqlError", (e) => transient(e.message))
      )

    interface Row {
      readonly pass: string
      readonly platform: string
      readonly freshnessKey: string
      readonly result: Result
    }

    /** Writes a batch of results and this runner's counters in one statement; an entity's second result is ignored. */
    const write = (rows: ReadonlyArray<Row>) =>
      sql`WITH x AS (
            SELECT * FROM jsonb_to_recordset(${JSON.stringify(
              rows.map(({ pass, platform, freshnessKey, result }) => ({
                pass_id: pass,
                freshness_key: freshnessKey,
                platform,
                status: result.status,
                credits: result.credits,
                quoted: result.quoted,
                detail: result.detail
              }))
            )}::jsonb) AS x(pass_id text, freshness_key text, platform text, status text, credits bigint,
              quoted bigint, detail text)),
          ins AS (
            INSERT INTO refresh_results (pass_id, freshness_key, platform, status, credits, quoted, detail, runner)
            SELECT pass_id, freshness_key, platform, status, credits, quoted, detail, ${runner} FROM x
            ON CONFLICT (pass_id, freshness_key) DO NOTHING RETURNING pass_id, status, credits)
          INSERT INTO refresh_counts AS c (pass_id, runner, refreshed, fresh, omitted, failed, over_budget, credits)
          SELECT pass_id, ${runner}, count(*) FILTER (WHERE status = 'refreshed'), count(*) FILTER (WHERE status = 'fresh'),
            count(*) FILTER (WHERE status = 'omitted'), count(*) FILTER (WHERE status = 'failed'),
            count(*) FILTER (WHERE status = 'over_budget'), coalesce(sum(credits), 0)
          FROM ins GROUP BY pass_id
          ON CONFLICT (pass_id, runner) DO UPDATE SET refreshed = c.refreshed + EXCLUDED.refreshed,
            fresh = c.fresh + EXCLUDED.fresh, omitted = c.omitted + EXCLUDED.omitted, failed = c.failed + EXCLUDED.failed,
            over_budget = c.over_budget + EXCLUDED.over_budget, credits = c.credits + EXCLUDED.credits`

    /**
     * Writes the results of finished jobs in one statement. When the database refuses it, row by row: a refused row
     * fails only its entity (written failed with the database's reason); a job one of whose entities cannot be written
     * even so is refused (run again, then ended failed: that entity counts failed with no row).
     */
    const record = (done: ReadonlyArray<{ readonly job: JobQueue.Job; readonly value: Attempt }>) =>
      Effect.gen(function* () {
        const rows = done.flatMap(({ job, value }) => {
          const b = job.payload as BatchT
          return value.done.map((d) => ({
            job,
            row: { pass: b.pass, platform: b.platform, freshnessKey: d.entity.freshnessKey, result: d.result }
          }))
        })
        const whole = yield* Effect.either(write(rows.map((r) => r.row)))
        if (Either.isRight(whole)) return []
        if (!PgLedger.refusedByDatabase(whole.left)) return yield* whole.left
        const refused = new Map<string, { job: JobQueue.Job; reason: string }>()
        for (const r of rows) {
          const one = yield* Effect.either(write([r.row]))
          if (Either.isRight(one)) continue
          if (!PgLedger.refusedByDatabase(one.left)) return yield* one.left
          const reason = `its result was refused by the database: ${causeOf(one.left)}`
          const failed = yield* Effect.either(write([{ ...r.row, result: failedResult(r.row.result.quoted, reason) }]))
          if (Either.isRight(failed)) continue
          if (!PgLedger.refusedByDatabase(failed.left)) return yield* failed.left
          if (!refused.has(r.job.id)) refused.set(r.job.id, { job: r.job, reason })
        }
        return [...refused.values()]
      })

    /**
     * A job that ends failed (its attempts spent, a permanent failure, or its lease ran out on its last attempt): each
     * of its entities without a result is written from its kept answer when its call settled (it drew its charge: the
     * results say what was captured), else failed with the job's reason (its unfinished idempotency record dropped).
     * Its holds are closed before (by its handler's end, or by the pass's end), so no call of it settles after.
     */
    const endEntities = (payload: unknown, key: string, reason: string) =>
      Effect.gen(function* () {
        const batch = yield* decodeJob(payload).pipe(Effect.option)
        if (Option.isNone(batch)) return yield* Effect.logWarning("refresh failed", { job: key, reason })
        const { pass, platform, op, entities } = batch.value
        yield* Effect.logWarning("refresh failed", { pass, platform, op, entities: entities.length, reason })
        const recorded = yield* recordedAlone(batch.value)
        const accountId = yield* accountOf(pass)
        const rows: Array<Row> = []
        for (const e of entities) {
          if (recorded.has(e.freshnessKey)) continue
          let result = failedResult(0, reason)
          if (accountId !== undefined) {
            const k = { accountId, key: idempotencyKey(pass, e.freshnessKey) }
            yield* idempotencyStore.abandon(k)
            // only a kept answer is read: nothing is called (a key not kept is dropped again)
            const kept = yield* Effect.either(
              idempotency.run({ ...k, fingerprint: fingerprintOf(platform, e) }, Effect.fail("not kept" as const))
            )
            if (Either.isRight(kept) && kept.right.replayed) {
              const answer = keptAnswer(kept.right.body)
              result = { ...statusOf(answer.coverage), credits: answer.charged, quoted: 0 }
            }
          }
          rows.push({ pass, platform, freshnessKey: e.freshnessKey, result })
        }
        // a row the database refuses stays unwritten: its entity counts failed as one of a failed job's
        const written = yield* Effect.either(write(rows))
        if (Either.isLeft(written)) for (const r of rows) yield* write([r]).pipe(Effect.catchAll(() => Effect.void))
      })
    const onGiveUp = (job: JobQueue.Job, reason: string) => endEntities(job.payload, job.key, reason)

    /**
     * The pass's end (issue 19): what its ended jobs left is settled whoever runs it (every runner that sees the end:
     * each step is idempotent). The reservations left (a runner killed mid-round, a job whose lease ran out on its last
     * attempt, so no takeover ran) given back and their holds closed, any other hold of the pass closed (its draws
     * captured), then the entities of its failed jobs without a result written (from their kept answers, or failed).
     */
    const endPass = (pass: string) =>
      Effect.gen(function* () {
        yield* settle({ pass })
        const accountId = yield* accountOf(pass)
        if (accountId !== undefined)
          for (const h of yield* ledger.holds(accountId))
            if (h.keyId?.startsWith(`refresh:${pass}:`) === true) yield* ledger.close(h.id)
        const failed = yield* sql<{ key: string; payload: unknown; reason: string }>`SELECT j.key, j.payload,
            coalesce(j.last_error, 'failed') AS reason FROM jobs j
          WHERE j.queue = ${queueName} AND j.grp = ${pass} AND j.state = 'failed' AND EXISTS (
            SELECT 1 FROM ${entitiesOf} AS e WHERE NOT EXISTS (
              SELECT 1 FROM refresh_results r WHERE r.pass_id = ${pass} AND r.freshness_key = e->>'freshnessKey'))
          ORDER BY j.id`
        for (const j of failed) yield* endEntities(j.payload, j.key, j.reason)
      })

    const lanes = Catalogue.platforms.map((p) => p.id)

    /** This runner's workers on the refresh queue, while the scope is open. */
    const work = JobEngine.run({
      queue: queueName,
      worker: runner,
      concurrency: settings.concurrency,
      leaseMs: settings.leaseMs,
      lanes,
      laneLimit: settings.platformConcurrency,
      // a runner's jobs claimed together (at its start, or as many ended at once) start in groups of one call round
      // each, apart: so one group's statements and call work overlap the other groups' waits on the upstream
      spreadMs: settings.spreadMs,
      spreadGroups: Math.ceil(settings.concurrency / callsPerBatch),
      handle,
      record,
      again: (a: Attempt) => a.again,
      onGiveUp
    }).pipe(Effect.provideService(JobQueue.JobQueue, jobs))

    /** The entities of a pass's failed jobs as the query reads them (a job of the release before batches: itself). */
    const entitiesOf = sql`jsonb_array_elements(coalesce(j.payload->'entities', jsonb_build_array(j.payload)))`

    /** Where the pass stands (one statement), and whether its planner stopped mid-way (to be taken over). */
    const standing = (pass: string) =>
      Effect.gen(function* () {
        const [r] = yield* sql<Record<string, string | boolean | null>>`SELECT p.total, p.budget, p.planned,
            NOT p.planned AND p.planner_seen_at < now() - ${settings.leaseMs} * interval '1 millisecond' AS stale,
            c.refreshed, c.fresh, c.omitted, c.failed, c.over_budget, c.credits,
            (SELECT count(*) FROM jobs j CROSS JOIN LATERAL ${entitiesOf} AS e
              WHERE j.queue = ${queueName} AND j.grp = ${pass} AND j.state = 'failed' AND NOT EXISTS (
                SELECT 1 FROM refresh_results r WHERE r.pass_id = ${pass} AND r.freshness_key = e->>'freshnessKey'))
              AS unwritten
          FROM (SELECT ${pass}::text AS id) x
          LEFT JOIN refresh_passes p ON p.id = x.id
          LEFT JOIN LATERAL (SELECT sum(refreshed) AS refreshed, sum(fresh) AS fresh, sum(omitted) AS omitted,
              sum(failed) AS failed, sum(over_budget) AS over_budget, sum(credits) AS credits
            FROM refresh_counts WHERE pass_id = x.id) c ON true`
        const n = (k: string) => Number(r?.[k] ?? 0)
        // entities of the pass's failed jobs with no result written (the database refused it): failed all the same
        const failed = n("failed") + n("unwritten")
        const done = n("refreshed") + n("fresh") + n("omitted") + n("over_budget") + failed
        const progress = {
          pass,
          planned: r?.["planned"] === true,
          total: n("total"),
          done,
          refreshed: n("refreshed"),
          fresh: n("fresh"),
          omitted: n("omitted"),
          failed,
          overBudget: n("over_budget"),
          credits: n("credits"),
          budget: r?.["budget"] === null || r?.["budget"] === undefined ? settings.budget : n("budget")
        } satisfies Progress
        return { progress, stale: r?.["stale"] === true }
      })

    const progress = (pass: string) => Effect.map(standing(pass), (s) => s.progress)

    /** Whether every job of the pass ended (and it is fully planned). */
    const ended = (pass: string) =>
      Effect.map(
        sql<{ ended: boolean }>`SELECT planned AND NOT EXISTS (SELECT 1 FROM jobs WHERE queue = ${queueName}
            AND grp = ${pass} AND state IN ('pending', 'running')) AS ended
          FROM refresh_passes WHERE id = ${pass}`,
        ([p]) => p?.ended === true
      )

    /** Runs a store step again until it succeeds (a dropped connection is retried), logging each failure. */
    const retried = <A, E, R>(what: string, effect: Effect.Effect<A, E, R>) =>
      effect.pipe(
        Effect.tapErrorCause((c) => Effect.logWarning(`refresh: ${what} failed; retrying`, String(c).split("\n")[0])),
        Effect.retry(Schedule.exponential(Duration.millis(200)).pipe(Schedule.union(Schedule.spaced("2 seconds"))))
      )

    /** Old ended jobs and passes go (REFRESH_KEEP_DAYS). */
    const cleanup = Effect.gen(function* () {
      const before = new Date(DateTime.toEpochMillis(yield* DateTime.now) - settings.keepDays * 86_400_000)
      const n = yield* jobs.cleanup(queueName, before)
      if (n > 0) yield* Effect.logInfo("refresh: ended jobs deleted", { jobs: n, before: before.toISOString() })
    }).pipe(Effect.catchAllCause((c) => Effect.logWarning("refresh: cleanup failed", String(c))))

    /**
     * One pass: plan it (or join it, or take over its planning), work the queue until none of its jobs is open.
     * Always returns its progress, also when interrupted (the caller prints it as the summary).
     */
    const runPass = (
      pass: string,
      platform: string | undefined,
      onProgress: (p: Progress) => Effect.Effect<void> = () => Effect.void,
      options: { readonly retryFailed?: boolean } = {}
    ) =>
      Effect.scoped(
        Effect.gen(function* () {
          yield* checkAccount
          yield* checkPlatform(platform)
          yield* ledger.releaseExpired(DateTime.toDate(yield* DateTime.now))
          yield* cleanup
          // no pass today: there is nothing failed to retry, and the pass runs as it would without the flag
          if (options.retryFailed === true && !(yield* retried("reading the passes", started(pass))))
            yield* Effect.logInfo("no pass today to retry: running the pass", { pass })
          else if (options.retryFailed === true) {
            // the batches with a failed entity run again (their other entities are skipped: their results stay)
            const again = yield* retried(
              "retrying failed jobs",
              sql`UPDATE jobs j SET state = 'pending', attempts = 0, run_at = now(), ended_at = NULL, worker = NULL
                WHERE j.queue = ${queueName} AND j.grp = ${pass} AND j.state = 'done' AND EXISTS (
                  SELECT 1 FROM ${entitiesOf} AS e JOIN refresh_results r ON r.pass_id = ${pass}
                    AND r.freshness_key = e->>'freshnessKey' AND r.status = 'failed')
                RETURNING id`
            )
            const n = again.length + (yield* retried("retrying failed jobs", jobs.retryFailed(queueName, pass)))
            yield* retried(
              "forgetting failed results",
              sql`WITH d AS (DELETE FROM refresh_results WHERE pass_id = ${pass} AND status = 'failed' RETURNING runner)
                  UPDATE refresh_counts c SET failed = c.failed - x.n
                  FROM (SELECT runner, count(*) AS n FROM d GROUP BY runner) x
                  WHERE c.pass_id = ${pass} AND c.runner = x.runner`
            )
            // the operator retries after fixing the cause: the circuits open in the shared table (this pass's own
            // earlier runners opened them, for up to UPSTREAM_BREAKER_PAUSE_MS) would fail the retried calls at once
            // ("another instance found it failing"), so they are closed and the hosts probed again; a host still
            // failing opens its circuit again
            const closed = Option.isSome(circuits)
              ? yield* retried("closing the open circuits", circuits.value.closeAll)
              : []
            yield* Effect.logInfo("retrying the failed entities of the pass", {
              pass,
              entities: n,
              ...(closed.length > 0 ? { circuitsClosed: closed } : {})
            })
          }
          const worker = yield* work
          yield* Effect.forkScoped(
            retried("planning", plan(pass, platform, worker.wake)).pipe(
              Effect.flatMap((planned) => (planned ? Effect.void : Effect.logInfo("joining refresh pass", { pass })))
            )
          )
          let reported = 0
          let idleSince: number | undefined
          while (true) {
            const done = yield* retried("reading progress", ended(pass))
            if (done) break
            const now = Date.now()
            // progress (the live line, once a second) and whether a planner that stopped mid-way is to be taken over
            if (now - reported >= 1000) {
              reported = now
              const s = yield* retried("reading progress", standing(pass))
              yield* onProgress(s.progress)
              if (s.stale) yield* Effect.forkScoped(retried("planning", plan(pass, platform, worker.wake)))
            }
            // while this runner's workers have nothing to run the pass is about to end (the other runners' last jobs,
            // or its own last results being written): its end is looked for every 50 ms, for up to 5 s
            if (worker.inflight() > 0) idleSince = undefined
            else {
              idleSince ??= now
              // and its workers claim as often: a runner joining a pass claims its first page as soon as it is planned
              yield* worker.wake
            }
            // or as soon as this runner has completed its last running jobs: they may end the pass (looked for at once,
            // not a poll later; while it still runs jobs the pass cannot have ended)
            const until = now + (idleSince !== undefined && now - idleSince < 5000 ? 50 : 250)
            while (Date.now() < until) {
              const completed = yield* Effect.race(
                Effect.as(Effect.sleep(Duration.millis(until - Date.now())), false),
                Effect.as(worker.nextCompletion, true)
              )
              if (!completed || worker.inflight() === 0) break
            }
          }
          yield* retried("settling the pass's end", endPass(pass))
          yield* retried(
            "ending the pass",
            sql`UPDATE refresh_passes SET ended_at = coalesce(ended_at, now()) WHERE id = ${pass}`
          )
          const last = yield* retried("reading progress", progress(pass))
          yield* onProgress(last)
          return last
        })
      )

    /** The failures of a pass (at most `limit`), with their reasons. */
    const failures = (pass: string, limit: number) =>
      orDie(
        Effect.map(
          sql<{ key: string; reason: string }>`(SELECT freshness_key AS key, coalesce(detail, '') AS reason
              FROM refresh_results WHERE pass_id = ${pass} AND status = 'failed' ORDER BY at, freshness_key
              LIMIT ${limit})
            UNION ALL
            (SELECT e->>'freshnessKey', coalesce(j.last_error, '') FROM jobs j CROSS JOIN LATERAL ${entitiesOf} AS e
              WHERE j.queue = ${queueName} AND j.grp = ${pass} AND j.state = 'failed' AND NOT EXISTS (
                SELECT 1 FROM refresh_results r WHERE r.pass_id = ${pass} AND r.freshness_key = e->>'freshnessKey')
              ORDER BY j.id LIMIT ${limit})`,
          (rows) => rows.slice(0, limit).map((r) => ({ key: jobKey(pass, r.key), reason: r.reason }))
        )
      )

    /** What a pass would refresh and cost now, with the same quote as a real call, in claim order; spends nothing. */
    const dryRun = (platform: string | undefined) =>
      Effect.gen(function* () {
        yield* checkAccount
        yield* checkPlatform(platform)
        const entities = yield* demand.due({ ...(yield* window), platform })
        const caller = { accountId: settings.accountId, keyId: "refresh:dry-run", prefix: "refresh" }
        let atMost = 0
        const out: Array<Planned> = []
        for (const e of entities) {
          const quote = yield* refreshing(
            calls.call(caller, e.platform, { request: e.request, estimateOnly: true })
          ).pipe(
            Effect.map((a) => a.estimate?.credits ?? 0),
            Effect.orElseSucceed(() => 0)
          )
          // the pass cuts only the entities the budget left cannot cover, and goes on with cheaper ones
          const within = atMost + quote <= settings.budget
          if (within) atMost += quote
          out.push({ platform: e.platform, op: e.op, subject: e.subject, credits: quote, withinBudget: within })
        }
        // the quote is an upper bound (a subject not found, or fewer rows, is charged less): the last passes'
        // charged / quoted ratio gives the expected figure
        const [r] = yield* orDie(
          sql<{ charged: string | null; quoted: string | null }>`SELECT sum(credits) AS charged, sum(quoted) AS quoted
            FROM refresh_results WHERE at > now() - interval '7 days' AND quoted > 0`
        )
        const ratio = Number(r?.quoted ?? 0) > 0 ? Number(r?.charged ?? 0) / Number(r?.quoted) : 1
        return {
          entries: out,
          credits: atMost,
          expected: Math.round(atMost * Math.min(1, ratio)),
          expectedFrom: Number(r?.quoted ?? 0) > 0 ? "the last 7 days' passes" : "the quotes (no pass yet)",
          budget: settings.budget
        }
      })

    /** Passes planned in the last day and not ended: a runner restarted after a crash resumes them. */
    const unfinished = Effect.map(
      sql<{
        id: string
      }>`SELECT id FROM refresh_passes WHERE planned_at > now() - interval '1 day' AND ended_at IS NULL`,
      (rows) => rows.map((r) => r.id)
    ).pipe(Effect.orDie)

    /** A pass as it ended (a same-day rerun finds it), or none. */
    const endedPass = (pass: string) =>
      Effect.gen(function* () {
        const [p] = yield* orDie(sql<{ ended_at: Date | null }>`SELECT ended_at FROM refresh_passes WHERE id = ${pass}`)
        if (p?.ended_at === null || p?.ended_at === undefined) return Option.none()
        return Option.some(yield* orDie(progress(pass)))
      })

    /** Whether a pass was ever started (planned), ended or not. */
    const started = (pass: string) =>
      Effect.map(
        sql<{ n: number }>`SELECT count(*)::int AS n FROM refresh_passes WHERE id = ${pass}`,
        ([r]) => (r?.n ?? 0) > 0
      )

    /**
     * Runs passes on the cron schedule (UTC), resuming unfinished ones first; never returns. A runner started after
     * the time of the day's pass when that pass was never started (no runner was up at its time: a deploy or a restart
     * across it) runs it at once, so a night is not skipped (a pass missed on an earlier UTC day is not run: the day's
     * own comes at its time).
     */
    const scheduled = Effect.gen(function* () {
      const cron = Cron.unsafeParse(settings.cron, "UTC")
      const startedAt = DateTime.toDate(yield* DateTime.now)
      const resumeUntil = Cron.next(cron, startedAt)
      for (const pass of yield* unfinished) yield* persisted(pass, resumeUntil)
      const due = Cron.prev(cron, startedAt)
      const today = passId(startedAt, undefined)
      if (passId(due, undefined) === today && !(yield* orDie(retried("reading the passes", started(today))))) {
        yield* Effect.logInfo("refresh pass missed at its time: running it now", {
          pass: today,
          due: due.toISOString()
        })
        yield* persisted(today, resumeUntil)
      }
      while (true) {
        const now = DateTime.toDate(yield* DateTime.now)
        const at = Cron.next(cron, now)
        yield* Effect.logInfo("next refresh pass", { at: at.toISOString() })
        yield* Effect.sleep(Duration.millis(at.getTime() - now.getTime()))
        yield* persisted(passId(at, undefined), Cron.next(cron, new Date(at.getTime() + 1000)))
      }
    })

    /**
     * A scheduled pass, run again after a backoff (1 s, doubling up to a minute) while it fails (the database out of
     * reach at the scheduled minute, say), until it ends or the next pass is due: a failure at its start no longer
     * skips the night.
     */
    const persisted = (pass: string, until: Date) =>
      Effect.gen(function* () {
        let waitMs = 1000
        while (!(yield* logged(pass, runPass(pass, undefined)))) {
          const now = DateTime.toDate(yield* DateTime.now)
          if (now.getTime() + waitMs >= until.getTime()) {
            yield* Effect.logError("refresh pass not run: it failed until the next one was due", { pass })
            return
          }
          yield* Effect.logWarning("refresh pass failed; run again", { pass, inMs: waitMs })
          yield* Effect.sleep(Duration.millis(waitMs))
          waitMs = Math.min(60_000, waitMs * 2)
        }
      })

    /**
     * A scheduled pass ends with its summary in the log, whatever happened: whether it ended, or, stopped mid-pass
     * (SIGINT, SIGTERM, the server closing), where it stood (as `once` prints it; its workers gave their jobs back).
     */
    const logged = <E, R>(id: string, pass: Effect.Effect<Progress, E, R>) =>
      pass.pipe(
        Effect.tap((p) => Effect.logInfo("refresh pass ended", { ...p, outcome: outcomeOf(p) })),
        Effect.as(true),
        Effect.catchAllCause((c) =>
          Cause.isInterruptedOnly(c)
            ? Effect.failCause(c)
            : Effect.as(Effect.logError("refresh pass failed", String(c)), false)
        ),
        Effect.onInterrupt(() =>
          progress(id).pipe(
            Effect.flatMap((p) =>
              Effect.logWarning("refresh pass interrupted", {
                ...p,
                left: Math.max(0, p.total - p.done),
                outcome: "interrupted" satisfies Outcome
              })
            ),
            Effect.catchAllCause((c) => Effect.logError("refresh pass interrupted; no summary", String(c)))
          )
        )
      )

    return { runPass, dryRun, progress, scheduled, checkAccount, checkPlatform, failures, endedPass, runner } as const
  })

/** The nightly schedule as a background layer (the server runs it in-process on the embedded database). */
export const scheduledLayer = (settings: Settings) =>
  Layer.scopedDiscard(
    Effect.gen(function* () {
      const engine = yield* make(settings)
      yield* Effect.forkScoped(engine.scheduled.pipe(Effect.retry(Schedule.spaced(Duration.minutes(1)))))
    })
  )
