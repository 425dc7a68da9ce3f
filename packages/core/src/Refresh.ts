/**
 * The nightly history refresh over an existing job engine: @effect/experimental's PersistedQueue on @effect/sql's
 * SqlPersistedQueue (PostgreSQL, `FOR UPDATE SKIP LOCKED`, ids kept after completion, locks that expire so a killed
 * worker's task is taken over). A pass is planned by exactly one runner (the one whose insert of the pass row
 * succeeds), in the same transaction as its tasks; every runner then works the queue. Each task replays one tracked
 * entity through the normal call path (Calls: plan, hold, fetch, settle), billed to the refresh account, with
 * stored results younger than `staleAfter` served free: a task taken over after a crash finds the point its first
 * worker wrote and spends nothing.
 */

import { createHash } from "node:crypto"
import { hostname } from "node:os"
import * as PersistedQueue from "@effect/experimental/PersistedQueue"
import { SqlClient } from "@effect/sql"
import * as SqlPersistedQueue from "@effect/sql/SqlPersistedQueue"
import { Calls, Demand, Ledger } from "@pdr/domain"
import { Config, Cron, DateTime, Duration, Effect, Either, Layer, Option, Schedule, Schema } from "effect"

/** The runner's settings. */
export interface Settings {
  readonly accountId: string
  /** Credits one pass may spend. */
  readonly budget: number
  /** Demand older than this many days no longer tracks an entity. */
  readonly trackDays: number
  /** An entity with a point newer than this is not refreshed (and a stored result this young is served free). */
  readonly staleAfter: Duration.Duration
  /** Tasks worked at once by one runner process. */
  readonly concurrency: number
  /** Tasks of one platform worked at once by one runner process. */
  readonly platformConcurrency: number
  /** When passes start (UTC). */
  readonly cron: string
  /** A task locked by a runner that stopped refreshing its lock for this long is taken over. */
  readonly lockExpiry: Duration.Duration
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
  concurrency: Config.integer("REFRESH_CONCURRENCY").pipe(Config.withDefault(8)),
  platformConcurrency: Config.integer("REFRESH_PLATFORM_CONCURRENCY").pipe(Config.withDefault(4)),
  cron: Config.string("REFRESH_CRON").pipe(
    Config.withDefault("0 2 * * *"),
    Config.validate({ message: "must be a cron expression", validation: (s) => Either.isRight(Cron.parse(s)) })
  ),
  lockExpiry: Config.integer("REFRESH_LOCK_EXPIRY_MS").pipe(Config.withDefault(60_000), Config.map(Duration.millis))
}) satisfies Config.Config<Settings>

/** The refresh account names no account. */
export class UnknownRefreshAccount extends Schema.TaggedError<UnknownRefreshAccount>()("UnknownRefreshAccount", {
  accountId: Schema.String
}) {
  override get message() {
    return `REFRESH_ACCOUNT_ID ${this.accountId} names no account: create one (pnpm admin account create) and grant it credits`
  }
}

/** One task: a tracked entity to refresh in a pass. */
export const Task = Schema.Struct({
  pass: Schema.String,
  freshnessKey: Schema.String,
  platform: Schema.String,
  op: Schema.String,
  subject: Schema.String,
  request: Schema.Record({ key: Schema.String, value: Schema.Unknown })
})

/** A uuid-shaped digest (the queue's id column is 36 characters): one task per pass and entity, ever. */
export const taskId = (pass: string, freshnessKey: string): string => {
  const h = createHash("sha256").update(`${pass}\u0000${freshnessKey}`).digest("hex")
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`
}

/** The pass of a night: its UTC date, and the platform when limited to one. */
export const passId = (at: Date, platform: string | undefined): string =>
  `${at.toISOString().slice(0, 10)}${platform === undefined ? "" : `/${platform}`}`

/** The queue (its table is created by migration 0008). */
export const queueLayer = (settings: Pick<Settings, "lockExpiry">) =>
  PersistedQueue.layer.pipe(
    Layer.provide(
      SqlPersistedQueue.layerStore({
        tableName: "refresh_queue",
        // takers wait for the next poll when the mailbox runs dry: a short interval keeps the workers fed during a pass
        pollInterval: Duration.millis(10),
        lockExpiration: settings.lockExpiry,
        lockRefreshInterval: Duration.millis(Math.max(500, Duration.toMillis(settings.lockExpiry) / 4))
      })
    )
  )

/** Where a pass stands. */
export interface Progress {
  readonly pass: string
  readonly total: number
  readonly done: number
  readonly refreshed: number
  readonly fresh: number
  readonly omitted: number
  readonly failed: number
  readonly overBudget: number
  /** Credits captured for this pass, from the ledger. */
  readonly credits: number
  readonly budget: number
}

/** One entry of a dry run. */
export interface Planned {
  readonly platform: string
  readonly op: string
  readonly subject: string
  readonly credits: number
  readonly withinBudget: boolean
}

/** The refresh engine over the core services, the SqlClient and the queue. */
export const make = (settings: Settings) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const calls = yield* Calls.Calls
    const ledger = yield* Ledger.Ledger
    const demand = yield* Demand.Demand
    const queue = yield* PersistedQueue.make({ name: "refresh", schema: Task })
    const semaphores = new Map<string, Effect.Semaphore>()
    const semaphoreOf = (platform: string) => {
      let s = semaphores.get(platform)
      if (s === undefined) {
        s = Effect.unsafeMakeSemaphore(settings.platformConcurrency)
        semaphores.set(platform, s)
      }
      return s
    }

    const checkAccount = Effect.flatMap(ledger.findAccount(settings.accountId), (a) =>
      Option.isSome(a) ? Effect.void : new UnknownRefreshAccount({ accountId: settings.accountId })
    )

    /** Calls with stored results older than `staleAfter` treated as stale. */
    const refreshing = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
      Effect.flatMap(Calls.CallSettings, (s) =>
        Effect.provideService(effect, Calls.CallSettings, { ...s, freshAtMost: settings.staleAfter })
      )

    const due = (platform: string | undefined) =>
      Effect.flatMap(DateTime.now, (now) => {
        const t = DateTime.toEpochMillis(now)
        return demand.due({
          demandedSince: new Date(t - settings.trackDays * 86_400_000),
          measuredBefore: new Date(t - Duration.toMillis(settings.staleAfter)),
          platform
        })
      })

    /** Plans the pass if no runner did yet (one transaction: the pass row and its tasks); true when this one did. */
    const plan = (pass: string, platform: string | undefined) =>
      sql.withTransaction(
        Effect.gen(function* () {
          const won = yield* sql`INSERT INTO refresh_passes (id, account_id, total, budget)
            VALUES (${pass}, ${settings.accountId}, 0, ${settings.budget})
            ON CONFLICT (id) DO NOTHING RETURNING id`
          if (won.length === 0) return false
          const entities = yield* due(platform)
          for (const e of entities) {
            yield* queue.offer(
              {
                pass,
                freshnessKey: e.freshnessKey,
                platform: e.platform,
                op: e.op,
                subject: e.subject,
                request: e.request
              },
              { id: taskId(pass, e.freshnessKey) }
            )
          }
          yield* sql`UPDATE refresh_passes SET total = ${entities.length} WHERE id = ${pass}`
          yield* Effect.logInfo("refresh pass planned", { pass, entities: entities.length })
          return true
        })
      )

    const runner = `${hostname()}:${process.pid}`
    const record = (task: typeof Task.Type, status: string, credits: number, detail: string | null) =>
      sql`INSERT INTO refresh_results (pass_id, freshness_key, platform, status, credits, detail, runner)
          VALUES (${task.pass}, ${task.freshnessKey}, ${task.platform}, ${status}, ${credits}, ${detail}, ${runner})
          ON CONFLICT (pass_id, freshness_key) DO NOTHING`

    const accounts = new Map<string, string>()
    const accountOf = (pass: string) =>
      accounts.has(pass)
        ? Effect.succeed(accounts.get(pass))
        : Effect.map(sql<{ account_id: string }>`SELECT account_id FROM refresh_passes WHERE id = ${pass}`, ([row]) => {
            if (row !== undefined) accounts.set(pass, row.account_id)
            return row?.account_id
          })

    /** One task: quote, reserve the quote in the pass budget, call, give back what was not charged, record. */
    const handle = (task: typeof Task.Type) =>
      Effect.gen(function* () {
        // a task taken over after a crash runs again: its call finds the point already written and spends nothing
        const accountId = yield* accountOf(task.pass)
        if (accountId === undefined) return
        const caller = { accountId, keyId: `refresh:${task.pass}`, prefix: "refresh" }
        const quote = yield* refreshing(
          calls.call(caller, task.platform, { request: task.request, estimateOnly: true })
        ).pipe(
          Effect.map((a) => a.estimate?.credits ?? 0),
          Effect.either
        )
        if (Either.isLeft(quote)) return yield* record(task, "failed", 0, quote.left.message)
        if (quote.right > 0) {
          const reserved = yield* sql`UPDATE refresh_passes SET reserved = reserved + ${quote.right}
            WHERE id = ${task.pass} AND NOT exhausted AND reserved + ${quote.right} <= budget RETURNING id`
          if (reserved.length === 0) {
            yield* sql`UPDATE refresh_passes SET exhausted = true WHERE id = ${task.pass}`
            return yield* record(task, "over_budget", 0, `${quote.right} credits would pass the budget`)
          }
        }
        const answer = yield* Effect.either(refreshing(calls.call(caller, task.platform, { request: task.request })))
        const charged = Either.isRight(answer) ? answer.right.cost.creditsCharged : 0
        if (quote.right > charged)
          yield* sql`UPDATE refresh_passes SET reserved = reserved - ${quote.right - charged} WHERE id = ${task.pass}`
        if (Either.isLeft(answer)) {
          yield* Effect.logWarning("refresh failed", {
            pass: task.pass,
            platform: task.platform,
            subject: task.subject,
            error: answer.left.message
          })
          return yield* record(task, "failed", 0, answer.left.message)
        }
        const status = answer.right.coverage[0]?.status
        yield* record(
          task,
          status === "fetched" ? "refreshed" : status === "stored" ? "fresh" : "omitted",
          charged,
          answer.right.coverage[0]?.detail ?? null
        )
      }).pipe(Effect.orDie)

    /** One worker: takes tasks until interrupted. */
    const worker = Effect.forever(
      queue.take((task) => semaphoreOf(task.platform).withPermits(1)(handle(task)), { maxAttempts: 5 })
    )

    const progress = (pass: string) =>
      Effect.gen(function* () {
        const [p] = yield* sql<{
          total: number
          budget: string
        }>`SELECT total, budget FROM refresh_passes WHERE id = ${pass}`
        const rows = yield* sql<{ status: string; n: string }>`
          SELECT status, count(*) AS n FROM refresh_results WHERE pass_id = ${pass} GROUP BY status`
        const [spent] = yield* sql<{ credits: string | null }>`
          SELECT -sum(credits) AS credits FROM ledger WHERE key_id = ${`refresh:${pass}`} AND kind = 'capture'`
        const n = (s: string) => Number(rows.find((r) => r.status === s)?.n ?? 0)
        return {
          pass,
          total: Number(p?.total ?? 0),
          done: rows.reduce((a, r) => a + Number(r.n), 0),
          refreshed: n("refreshed"),
          fresh: n("fresh"),
          omitted: n("omitted"),
          failed: n("failed"),
          overBudget: n("over_budget"),
          credits: Number(spent?.credits ?? 0),
          budget: Number(p?.budget ?? settings.budget)
        } satisfies Progress
      }).pipe(Effect.orDie)

    /** One pass: plan it or join it, work the queue until every task of the pass has a result. */
    const runPass = (
      pass: string,
      platform: string | undefined,
      onProgress: (p: Progress) => Effect.Effect<void> = () => Effect.void
    ) =>
      Effect.scoped(
        Effect.gen(function* () {
          yield* checkAccount
          yield* ledger.releaseExpired(DateTime.toDate(yield* DateTime.now))
          const planned = yield* plan(pass, platform).pipe(Effect.orDie)
          if (!planned) yield* Effect.logInfo("joining refresh pass", { pass })
          for (let i = 0; i < settings.concurrency; i++) yield* Effect.forkScoped(worker)
          let last = yield* progress(pass)
          while (last.done < last.total) {
            yield* onProgress(last)
            yield* Effect.sleep(Duration.millis(250))
            last = yield* progress(pass)
          }
          yield* onProgress(last)
          return last
        })
      )

    /** What a pass would refresh and cost now, with the same quote as a real call; spends nothing. */
    const dryRun = (platform: string | undefined) =>
      Effect.gen(function* () {
        yield* checkAccount
        const entities = yield* due(platform)
        const caller = { accountId: settings.accountId, keyId: "refresh:dry-run", prefix: "refresh" }
        let spent = 0
        let stopped = false
        const out: Array<Planned> = []
        for (const e of entities) {
          const quote = yield* refreshing(
            calls.call(caller, e.platform, { request: e.request, estimateOnly: true })
          ).pipe(
            Effect.map((a) => a.estimate?.credits ?? 0),
            Effect.orElseSucceed(() => 0)
          )
          const within = !stopped && spent + quote <= settings.budget
          if (within) spent += quote
          else stopped = true
          out.push({ platform: e.platform, op: e.op, subject: e.subject, credits: quote, withinBudget: within })
        }
        return { entries: out, credits: spent, budget: settings.budget }
      })

    /** Passes planned in the last day and not finished: a runner restarted after a crash resumes them. */
    const unfinished = Effect.map(
      sql<{ id: string }>`SELECT p.id FROM refresh_passes p
        WHERE p.planned_at > now() - interval '1 day'
        AND p.total > (SELECT count(*) FROM refresh_results r WHERE r.pass_id = p.id)`,
      (rows) => rows.map((r) => r.id)
    ).pipe(Effect.orDie)

    /** Runs passes on the cron schedule (UTC), resuming unfinished ones first; never returns. */
    const scheduled = Effect.gen(function* () {
      const cron = Cron.unsafeParse(settings.cron, "UTC")
      for (const pass of yield* unfinished) yield* Effect.ignoreLogged(runPass(pass, undefined))
      while (true) {
        const now = DateTime.toDate(yield* DateTime.now)
        const at = Cron.next(cron, now)
        yield* Effect.logInfo("next refresh pass", { at: at.toISOString() })
        yield* Effect.sleep(Duration.millis(at.getTime() - now.getTime()))
        yield* Effect.ignoreLogged(runPass(passId(at, undefined), undefined))
      }
    })

    return { runPass, dryRun, progress, scheduled, checkAccount } as const
  })

/** The nightly schedule as a background layer (the server runs it in-process on the embedded database). */
export const scheduledLayer = (settings: Settings) =>
  Layer.scopedDiscard(
    Effect.gen(function* () {
      const engine = yield* make(settings)
      yield* Effect.forkScoped(engine.scheduled.pipe(Effect.retry(Schedule.spaced(Duration.minutes(1)))))
    })
  ).pipe(Layer.provide(queueLayer(settings)))
