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
  Ledger
} from "@pdr/domain"
import { GroupCommit, PgLedger } from "@pdr/store-pg"
import { Config, Cron, DateTime, Duration, Effect, Either, Layer, Option, Schedule, Schema } from "effect"
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
}

/** The settings from the environment. */
export const settingsConfig = Config.all({
  accountId: Config.string("REFRESH_ACCOUNT_ID"),
  budget: Config.integer("REFRESH_BUDGET").pipe(Config.withDefault(10_000)),
  trackDays: Config.integer("TRACK_DAYS").pipe(Config.withDefault(30)),
  staleAfter: Config.integer("REFRESH_STALE_AFTER_MS").pipe(
    Config.withDefault(20 * 3600_000),
    Config.map(Duration.millis)
  ),
  concurrency: Config.integer("REFRESH_CONCURRENCY").pipe(Config.withDefault(16)),
  platformConcurrency: Config.integer("REFRESH_PLATFORM_CONCURRENCY").pipe(Config.withDefault(8)),
  cron: Config.string("REFRESH_CRON").pipe(
    Config.withDefault("0 2 * * *"),
    Config.validate({ message: "must be a cron expression", validation: (s) => Either.isRight(Cron.parse(s)) })
  ),
  leaseMs: Config.integer("REFRESH_LEASE_MS").pipe(Config.withDefault(6000)),
  maxAttempts: Config.integer("REFRESH_MAX_ATTEMPTS").pipe(Config.withDefault(5)),
  keepDays: Config.integer("REFRESH_KEEP_DAYS").pipe(Config.withDefault(7))
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
    return `--platform ${this.platform} is no platform; the platforms are ${Catalogue.platforms.map((p) => p.id).join(", ")}`
  }
}

/** One job: a tracked entity to refresh in a pass. */
export const Task = Schema.Struct({
  pass: Schema.String,
  freshnessKey: Schema.String,
  platform: Schema.String,
  op: Schema.String,
  subject: Schema.String,
  request: Schema.Record({ key: Schema.String, value: Schema.Unknown })
})

/** The queue of refresh jobs. */
export const queueName = "refresh"

/** The pass of a night: its UTC date, and the platform when limited to one. */
export const passId = (at: Date, platform: string | undefined): string =>
  `${at.toISOString().slice(0, 10)}${platform === undefined ? "" : `/${platform}`}`

/** The job key of an entity in a pass (unique in the queue: one job per pass and entity, ever). */
export const jobKey = (pass: string, freshnessKey: string): string => `${pass}|${freshnessKey}`

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

type TaskT = typeof Task.Type
type Status = "refreshed" | "fresh" | "omitted" | "over_budget" | "failed"
interface Result {
  readonly status: Status
  readonly credits: number
  readonly quoted: number
  readonly detail: string | null
}

/** The database's own message of a statement's failure (the SqlError's is generic). */
const causeOf = (e: { readonly message: string; readonly cause?: unknown }) =>
  e.cause instanceof Error ? e.cause.message : e.message

const permanent = (reason: string) => new JobEngine.JobFailed({ reason, transient: false })
const transient = (reason: string) => new JobEngine.JobFailed({ reason, transient: true })

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
    const runner = `${hostname()}:${process.pid}:${randomBytes(3).toString("hex")}`
    const orDie = <A, E, R>(e: Effect.Effect<A, E, R>) => Effect.orDie(e)

    const checkAccount = Effect.flatMap(ledger.findAccount(settings.accountId), (a) =>
      Option.isSome(a) ? Effect.void : new UnknownRefreshAccount({ accountId: settings.accountId })
    )
    const checkPlatform = (platform: string | undefined) =>
      platform === undefined || Catalogue.platforms.some((p) => p.id === platform)
        ? Effect.void
        : new UnknownPlatform({ platform })

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
    const pageSize = 5000
    const planPages = (pass: string, platform: string | undefined, from: string | undefined) =>
      Effect.gen(function* () {
        const w = yield* window
        let cursor = from
        let planned = 0
        while (true) {
          const page = yield* demand.duePage({ ...w, platform, after: cursor, limit: pageSize })
          const last = page.at(-1)?.freshnessKey
          const kept = yield* sql.withTransaction(
            Effect.gen(function* () {
              const added = yield* jobs.offer(
                queueName,
                page.map((e) => ({
                  key: jobKey(pass, e.freshnessKey),
                  group: pass,
                  lane: e.platform,
                  priority: priorityOf(e),
                  payload: {
                    pass,
                    freshnessKey: e.freshnessKey,
                    platform: e.platform,
                    op: e.op,
                    subject: e.subject,
                    request: e.request
                  } satisfies TaskT
                })),
                { maxAttempts: settings.maxAttempts }
              )
              const done = page.length < pageSize
              return yield* sql`UPDATE refresh_passes SET total = total + ${added}, cursor = ${last ?? cursor ?? null},
                  planner_seen_at = now(), planned = ${done}
                WHERE id = ${pass} AND planner = ${runner} AND NOT planned RETURNING id`
            })
          )
          // another runner took the planning over (this one was too slow): it continues from the cursor
          if (kept.length === 0) return planned
          planned += page.length
          if (page.length < pageSize) return planned
          cursor = last
        }
      })

    /** Plans the pass if nobody is planning it; returns whether this runner planned (part of) it. */
    const plan = (pass: string, platform: string | undefined) =>
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
        const n = yield* planPages(pass, platform, from)
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
    const reserveAlone = ({ pass, credits }: { readonly pass: string; readonly credits: number }) =>
      Effect.map(
        sql`UPDATE refresh_passes SET reserved = reserved + ${credits}
            WHERE id = ${pass} AND reserved + ${credits} <= budget RETURNING id`,
        (rows) => rows.length > 0
      )
    const reserve = yield* GroupCommit.make({
      run: (asks: ReadonlyArray<{ readonly pass: string; readonly credits: number }>) =>
        Effect.gen(function* () {
          const granted = new Array<Either.Either<boolean, SqlError>>(asks.length)
          for (const pass of new Set(asks.map((a) => a.pass))) {
            const mine = asks.flatMap((a, i) => (a.pass === pass ? [i] : []))
            const total = mine.reduce((n, i) => n + asks[i]!.credits, 0)
            const all = yield* reserveAlone({ pass, credits: total })
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
    const giveBack = (pass: string, credits: number) =>
      credits <= 0
        ? Effect.void
        : Effect.asVoid(sql`UPDATE refresh_passes SET reserved = reserved - ${credits} WHERE id = ${pass}`)

    const accounts = new Map<string, string>()
    const accountOf = (pass: string) =>
      accounts.has(pass)
        ? Effect.succeed(accounts.get(pass))
        : Effect.map(sql<{ account_id: string }>`SELECT account_id FROM refresh_passes WHERE id = ${pass}`, ([row]) => {
            if (row !== undefined) accounts.set(pass, row.account_id)
            return row?.account_id
          })

    /** The hold of a runner that stopped mid-job, and the job's unfinished idempotency record, are released. */
    const releaseStopped = (task: TaskT, accountId: string, stopped: string, job: string) =>
      Effect.gen(function* () {
        const key = holdKey(task.pass, stopped, job)
        const held = yield* ledger.holds(accountId)
        for (const h of held) if (h.keyId === key) yield* ledger.release(h.id)
        yield* idempotencyStore.abandon({ accountId, key: idempotencyKey(task.pass, task.freshnessKey) })
      })

    const statusOf = (coverage: unknown): { status: Status; detail: string | null } => {
      const first = (coverage as ReadonlyArray<{ status?: string; detail?: string }> | undefined)?.[0]
      const status = first?.status === "fetched" ? "refreshed" : first?.status === "stored" ? "fresh" : "omitted"
      return { status, detail: first?.detail ?? null }
    }

    /** One job: quote, reserve the quote in the pass budget, call (idempotently), give back what was not charged. */
    const handle = (job: JobQueue.Job): Effect.Effect<Result, JobEngine.JobFailed> =>
      Effect.gen(function* () {
        const task = yield* Schema.decodeUnknown(Task)(job.payload).pipe(
          Effect.mapError(() => permanent("the job's payload is not a refresh task"))
        )
        const accountId = yield* accountOf(task.pass)
        if (accountId === undefined) return yield* permanent(`no pass ${task.pass}`)
        if (job.takenOverFrom !== null) yield* releaseStopped(task, accountId, job.takenOverFrom, job.id)
        // a retry here (the attempt before ended in this runner: a dropped connection, say) finds that attempt's claim
        // on the key still in flight when its end could not be written: it is stale, and dropped (a settled one stays)
        else if (job.attempts > 1)
          yield* idempotencyStore.abandon({ accountId, key: idempotencyKey(task.pass, task.freshnessKey) })
        const caller = { accountId, keyId: holdKey(task.pass, runner, job.id), prefix: "refresh" }
        // planned once: the quote, then (once it is reserved) the call on the same plan; the store read once
        const prepared = yield* refreshing(calls.prepare(caller, task.platform, { request: task.request })).pipe(
          Effect.mapError((e) => permanent(`quote refused: ${e.message}`))
        )
        const quote = prepared.quote
        if (quote > 0) {
          const reserved = yield* reserve({ pass: task.pass, credits: quote })
          if (!reserved) {
            // the budget left (what is not spent or reserved by a running job) cannot cover this quote; a job
            // still running may give back what it reserved, so the entity waits for them before it is cut
            const [p] = yield* sql<{ left: string; running: boolean }>`SELECT budget - reserved AS left,
                EXISTS (SELECT 1 FROM jobs WHERE queue = ${queueName} AND grp = ${task.pass} AND state = 'running'
                  AND id <> ${job.id}::bigint) AS running
              FROM refresh_passes WHERE id = ${task.pass}`
            const left = Number(p?.left ?? 0)
            if (p?.running === true && job.attempts < job.maxAttempts)
              return yield* transient(`waiting for reserved credits (${left} of the budget left, ${quote} needed)`)
            return {
              status: "over_budget",
              credits: 0,
              quoted: quote,
              detail: `${quote} credits needed, ${left} of the pass budget left`
            } satisfies Result
          }
        }
        const key = idempotencyKey(task.pass, task.freshnessKey)
        const fingerprint = createHash("sha256")
          .update(`${task.platform}\n${Freshness.canonicalJson({ request: task.request })}`)
          .digest("hex")
        // this run's own answer, when it ran the call (read as is, not parsed back from the text the settle kept)
        let own: { readonly charged: number; readonly coverage: unknown } | undefined
        const answer = yield* idempotency
          .run(
            { accountId, key, fingerprint },
            refreshing(prepared.run({ key, envelope: {} })).pipe(
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
              // a settle's kept record (the first run's, replayed) is read as the answer it stands for
              const parsed: unknown = typeof k.body === "string" ? JSON.parse(k.body) : k.body
              const body = (Answers.isKept(parsed) ? Answers.answerOf(parsed) : parsed) as {
                cost?: { creditsCharged?: number }
                coverage?: unknown
              }
              return { charged: body.cost?.creditsCharged ?? 0, coverage: body.coverage, replayed: k.replayed }
            }),
            Effect.either
          )
        const charged = Either.isRight(answer) ? answer.right.charged : 0
        // a replayed answer was charged by the first run and counted in that run's reservation: this one goes back
        yield* giveBack(task.pass, Either.isRight(answer) && !answer.right.replayed ? quote - charged : quote)
        if (Either.isLeft(answer)) {
          const e = answer.left
          switch (e._tag) {
            case "IdempotencyInFlight":
            case "EveryUnitFailed":
            case "SettleOutcomeUnknown":
              return yield* transient(e.message)
            default:
              return yield* permanent(e.message)
          }
        }
        const { status, detail } = statusOf(answer.right.coverage)
        return { status, credits: charged, quoted: quote, detail } satisfies Result
      }).pipe(
        // a store failure (a dropped connection) is transient: the job runs again after a backoff
        Effect.catchAllDefect((d) => transient(d instanceof Error ? d.message : String(d))),
        Effect.catchTag("SqlError", (e) => transient(e.message))
      )

    /** Writes a batch of results and this runner's counters in one statement; a refused row fails only its job. */
    const write = (rows: ReadonlyArray<{ readonly task: TaskT; readonly result: Result }>) =>
      sql`WITH x AS (
            SELECT * FROM jsonb_to_recordset(${JSON.stringify(
              rows.map(({ task, result }) => ({
                pass_id: task.pass,
                freshness_key: task.freshnessKey,
                platform: task.platform,
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

    const record = (batch: ReadonlyArray<{ readonly job: JobQueue.Job; readonly value: Result }>) =>
      Effect.gen(function* () {
        const rows = batch.map((b) => ({ job: b.job, task: b.job.payload as TaskT, result: b.value }))
        const whole = yield* Effect.either(write(rows))
        if (Either.isRight(whole)) return []
        if (!PgLedger.refusedByDatabase(whole.left)) return yield* whole.left
        // the database refused the batch: write row by row, and fail only the rows it refuses
        const refused: Array<{ job: JobQueue.Job; reason: string }> = []
        for (const r of rows) {
          const one = yield* Effect.either(write([r]))
          if (Either.isLeft(one)) {
            if (!PgLedger.refusedByDatabase(one.left)) return yield* one.left
            refused.push({ job: r.job, reason: `its result was refused by the database: ${causeOf(one.left)}` })
          }
        }
        return refused
      })

    const onGiveUp = (job: JobQueue.Job, reason: string) =>
      Effect.gen(function* () {
        const task = job.payload as TaskT
        yield* Effect.logWarning("refresh failed", {
          pass: task.pass,
          platform: task.platform,
          subject: task.subject,
          reason
        })
        yield* write([{ task, result: { status: "failed", credits: 0, quoted: 0, detail: reason } }]).pipe(
          Effect.catchAll((e) => Effect.logWarning("the failed refresh's result was not recorded", e.message))
        )
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
      handle,
      record,
      onGiveUp
    }).pipe(Effect.provideService(JobQueue.JobQueue, jobs))

    const progress = (pass: string) =>
      Effect.gen(function* () {
        const [p] = yield* sql<{
          total: string
          budget: string
          planned: boolean
        }>`SELECT total, budget, planned FROM refresh_passes WHERE id = ${pass}`
        const [c] = yield* sql<Record<string, string | null>>`SELECT sum(refreshed) AS refreshed, sum(fresh) AS fresh,
            sum(omitted) AS omitted, sum(over_budget) AS over_budget, sum(credits) AS credits
          FROM refresh_counts WHERE pass_id = ${pass}`
        const g = yield* jobs.group(queueName, pass)
        const n = (k: string) => Number(c?.[k] ?? 0)
        const done = n("refreshed") + n("fresh") + n("omitted") + n("over_budget") + g.failed
        return {
          pass,
          planned: p?.planned ?? false,
          total: Number(p?.total ?? 0),
          done,
          refreshed: n("refreshed"),
          fresh: n("fresh"),
          omitted: n("omitted"),
          failed: g.failed,
          overBudget: n("over_budget"),
          credits: n("credits"),
          budget: Number(p?.budget ?? settings.budget)
        } satisfies Progress
      })

    /** Whether every job of the pass ended (and it is fully planned). */
    const ended = (pass: string) =>
      Effect.gen(function* () {
        const [p] = yield* sql<{ planned: boolean }>`SELECT planned FROM refresh_passes WHERE id = ${pass}`
        if (p?.planned !== true) return false
        return !(yield* jobs.group(queueName, pass)).open
      })

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
          if (options.retryFailed === true) {
            const n = yield* retried("retrying failed jobs", jobs.retryFailed(queueName, pass))
            yield* retried(
              "forgetting failed results",
              sql`WITH d AS (DELETE FROM refresh_results WHERE pass_id = ${pass} AND status = 'failed' RETURNING runner)
                  UPDATE refresh_counts c SET failed = c.failed - x.n
                  FROM (SELECT runner, count(*) AS n FROM d GROUP BY runner) x
                  WHERE c.pass_id = ${pass} AND c.runner = x.runner`
            )
            yield* Effect.logInfo("retrying the failed entities of the pass", { pass, entities: n })
          }
          yield* Effect.forkScoped(
            retried("planning", plan(pass, platform)).pipe(
              Effect.flatMap((planned) => (planned ? Effect.void : Effect.logInfo("joining refresh pass", { pass })))
            )
          )
          yield* work
          while (true) {
            const done = yield* retried("reading progress", ended(pass))
            if (done) break
            // a planner that stopped mid-way is taken over
            yield* onProgress(yield* retried("reading progress", progress(pass)))
            yield* Effect.sleep(Duration.millis(250))
            const [p] = yield* retried(
              "checking the planner",
              sql<{
                stale: boolean
              }>`SELECT NOT planned AND planner_seen_at < now() - ${settings.leaseMs} * interval '1 millisecond'
                AS stale FROM refresh_passes WHERE id = ${pass}`
            )
            if (p?.stale === true) yield* Effect.forkScoped(retried("planning", plan(pass, platform)))
          }
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
    const failures = (pass: string, limit: number) => orDie(jobs.failures(queueName, pass, limit))

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

    /** Runs passes on the cron schedule (UTC), resuming unfinished ones first; never returns. */
    const scheduled = Effect.gen(function* () {
      const cron = Cron.unsafeParse(settings.cron, "UTC")
      for (const pass of yield* unfinished) yield* logged(runPass(pass, undefined))
      while (true) {
        const now = DateTime.toDate(yield* DateTime.now)
        const at = Cron.next(cron, now)
        yield* Effect.logInfo("next refresh pass", { at: at.toISOString() })
        yield* Effect.sleep(Duration.millis(at.getTime() - now.getTime()))
        yield* logged(runPass(passId(at, undefined), undefined))
      }
    })

    /** A scheduled pass ends with its summary in the log, whatever happened. */
    const logged = <E, R>(pass: Effect.Effect<Progress, E, R>) =>
      pass.pipe(
        Effect.tap((p) => Effect.logInfo("refresh pass ended", { ...p, outcome: outcomeOf(p) })),
        Effect.catchAllCause((c) => Effect.logError("refresh pass failed", String(c)))
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
