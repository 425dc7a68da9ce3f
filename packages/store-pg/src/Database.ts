/** The SQL client of the store: a real PostgreSQL server when DATABASE_URL is set, else the embedded default. */

import { Reactivity } from "@effect/experimental"
import { SqlClient, type SqlConnection } from "@effect/sql"
import type { SqlError } from "@effect/sql/SqlError"
import { SqlError as SqlErrorClass } from "@effect/sql/SqlError"
import { PgClient } from "@effect/sql-pg"
import { Setting } from "@pdr/domain"
import { Config, Context, Effect, Layer, Option, Redacted } from "effect"
import * as Embedded from "./Embedded.js"
import * as Migrations from "./Migrations.js"
import { neverSent, readOnlyServer, unansweredMessage } from "./PgLedger.js"

/** Where the data lives. */
export type Target =
  | {
      readonly _tag: "Server"
      readonly url: string
      readonly maxConnections?: number
      /** How long a statement waits for the database's answer before its connection is taken for lost (0: never). */
      readonly answerTimeoutMs?: number
      /**
       * How long statements wait for a connection while the database refuses new ones (a restart, a failover's
       * switch: `refusedForNow`), from the first refusal, trying again every 100 ms, before they fail as the database
       * not reached (0: at once); past it, they fail at once until a connection is had again.
       */
      readonly connectWaitMs?: number
      /**
       * The server ends a session of ours left idle in a transaction this long (`idle_in_transaction_session_timeout`,
       * set on each connection before its first statement; 0: the server's own setting): a process cut off from the
       * database in the middle of a transaction no longer keeps its rows locked until the server notices the
       * connection is gone (hours, without keepalives). Default `defaultIdleInTransactionMs`.
       */
      readonly idleInTransactionMs?: number
    }
  | { readonly _tag: "Embedded"; readonly dataDir: string | undefined }

/**
 * A connection whose statements cannot be interrupted: a fiber interrupted in the middle of one (a client that
 * disconnects, a timeout, a lost lease, a long call's heartbeat at the call's end, SIGTERM) waits for the statement
 * to end, and the interruption goes on from there (a transaction then rolls back as for any other exit).
 *
 * Why: @effect/sql-pg cancels an interrupted statement with `SELECT pg_cancel_backend(pid)` from another connection
 * and then gives the connection back to the pool. The cancel is a signal to the backend process, not to a statement:
 * when it is handled after the statement ended (the backend busy, the machine loaded), it cancels the next statement
 * run on that connection, someone else's (stop 39: long calls answered 500 with SqlError 57014 in another call's
 * INSERT). On the embedded default's single connection the cancel waited for that connection. Our statements are
 * short; waiting for one is cheaper than a statement of another request failing. Streams are left as they are (the
 * store reads none).
 */
const uninterruptibleStatements = (
  connection: SqlConnection.Connection,
  onFailure: (e: SqlError) => void = () => {}
): SqlConnection.Connection => {
  const run = <A>(statement: Effect.Effect<A, SqlError>) =>
    Effect.uninterruptible(Effect.tapError(statement, (e) => Effect.sync(() => onFailure(e))))
  return {
    execute: (sql, params, transformRows) => run(connection.execute(sql, params, transformRows)),
    executeRaw: (sql, params) => run(connection.executeRaw(sql, params)),
    executeValues: (sql, params) => run(connection.executeValues(sql, params)),
    executeUnprepared: (sql, params, transformRows) => run(connection.executeUnprepared(sql, params, transformRows)),
    executeStream: connection.executeStream
  }
}

/**
 * What the watch reads of a pooled node-postgres client: its statement waiting for an answer (`_activeQuery`, pg 8's
 * field behind the deprecated `activeQuery` getter; LostConnection.test fails if it goes) and its socket.
 */
interface PgConnection {
  readonly _activeQuery?: object | null
  readonly connection?: { readonly stream?: { readonly destroy: (error: Error) => void } }
  readonly once: (event: "end", listener: () => void) => void
  /** Ends the session (marked ending at once: given back then, the pool drops it rather than hand it out). */
  readonly end: () => unknown
  readonly query: (text: string) => Promise<unknown>
}

/**
 * The default of `Target.idleInTransactionMs`: our transactions run their statements one after another with nothing
 * waited for between them (a few ms), so a session idle in one for 10 s has lost its process.
 */
export const defaultIdleInTransactionMs = 10_000

/**
 * The connections whose statement has waited longer than `answerTimeoutMs` for the database's answer are taken for
 * lost and closed (issues 19 and 22, a dropped connection): a connection whose path is gone without a word (a host
 * failed over or powered off, a NAT or firewall entry dropped) gets no error for about 15 minutes (the kernel's
 * retransmissions), or never when its peer's kernel still acknowledges, so a request waited that long and a runner's
 * worker stalled. Closed, the statement fails as the database not reached (no SQLSTATE: `Failures.refusedWrite` says
 * so), the pool drops the connection and the next statement takes a new one. Every `checkEveryMs` the clients are
 * looked at: a statement is timed from the first look that finds it waiting (node-postgres' active query), so it is
 * closed between `answerTimeoutMs` and `answerTimeoutMs + checkEveryMs` after it was sent; nothing is added to a
 * statement's own path. A statement that legitimately runs longer (none of the service's: its statements are short
 * and batched; the migrations run before the watch starts) would be closed too: `DATABASE_ANSWER_TIMEOUT_MS` sets it.
 */
export const makeWatch = (answerTimeoutMs: number) => {
  const clients = new Set<PgConnection>()
  const waitingSince = new WeakMap<object, number>()
  const track = (client: PgConnection | undefined) => {
    if (client === undefined || clients.has(client)) return
    clients.add(client)
    client.once("end", () => clients.delete(client))
  }
  /** Closes the connections whose statement has waited too long; answers how many. */
  const check = (now: number): number => {
    let closed = 0
    for (const client of clients) {
      const waiting = client._activeQuery
      if (waiting === null || waiting === undefined) continue
      const since = waitingSince.get(waiting)
      if (since === undefined) waitingSince.set(waiting, now)
      else if (now - since >= answerTimeoutMs) {
        clients.delete(client)
        closed++
        client.connection?.stream?.destroy(new Error(unansweredMessage(answerTimeoutMs)))
      }
    }
    return closed
  }
  return { track, check }
}

/**
 * Whether a connection could not be had because the database refuses new ones for now: nothing listening on its port
 * (ECONNREFUSED: the server restarting, a failover switching), its address not reached for now (EHOSTUNREACH,
 * ENETUNREACH: a virtual address moving to the new primary; EAI_AGAIN: its name not resolved for now, a DNS-based
 * failover), the connection reset or ended as it was made, or the
 * session refused while the server starts up or shuts down (57P03) or because it has no connection slot left (53300:
 * `max_connections` taken by other clients, or by more instances' pools than it allows; the pool's own connections
 * answer the wait as they are given back). Nothing of the statement was sent: it can wait.
 */
export const refusedForNow = (e: SqlError): boolean => {
  if (!neverSent(e)) return false
  const cause = e.cause as { readonly code?: unknown; readonly message?: unknown } | undefined
  return (
    cause?.code === "ECONNREFUSED" ||
    cause?.code === "EHOSTUNREACH" ||
    cause?.code === "ENETUNREACH" ||
    cause?.code === "EAI_AGAIN" ||
    cause?.code === "ECONNRESET" ||
    cause?.code === "57P03" ||
    cause?.code === "53300" ||
    /^Connection terminated( unexpectedly)?$/.test(String(cause?.message))
  )
}

/** The default of `DATABASE_CONNECT_WAIT_MS`. */
export const defaultConnectWaitMs = 5_000

/**
 * Since when, and why, the database has refused new connections (`refusedForNow`), until a connection is had again:
 * what a readiness probe says while its statement waits for a connection (a restart), rather than only that it had
 * no answer in time.
 */
export class Refusals extends Context.Tag("@pdr/store-pg/Database/Refusals")<
  Refusals,
  { readonly current: () => { readonly since: number; readonly reason: string } | undefined }
>() {}

/** The refusals seen by one client (kept by its acquirer). */
const refusalState = () => {
  let current: { readonly since: number; readonly reason: string } | undefined
  return {
    current: () => current,
    refused: (reason: string) => {
      current ??= { since: Date.now(), reason }
      return current
    },
    connected: () => {
      current = undefined
    }
  }
}

/**
 * The SqlClient of the store: @effect/sql-pg's pool and compiler, every statement run through
 * `uninterruptibleStatements` on a connection taken from the pool for it (or the transaction's), as PgClient does;
 * with `watch`, each connection taken is watched (`makeWatch`).
 */
const client = (
  config: PgClient.PgClientConfig,
  watch: ReturnType<typeof makeWatch> | undefined,
  connectWaitMs: number,
  refusals: ReturnType<typeof refusalState>,
  idleInTransactionMs: number
) =>
  Layer.scoped(
    SqlClient.SqlClient,
    Effect.gen(function* () {
      const pg = yield* PgClient.make(config)
      // the pooled clients whose session has its settings (`idleInTransactionMs`): set once, before their first
      // statement; a set that fails is a connection not had ("Failed to acquire connection": nothing was sent)
      const prepared = new WeakSet<object>()
      const prepare = (pooled: PgConnection | undefined): Effect.Effect<void, SqlError> =>
        pooled === undefined || idleInTransactionMs <= 0 || prepared.has(pooled)
          ? Effect.void
          : Effect.tryPromise({
              try: () => pooled.query(`SET idle_in_transaction_session_timeout = ${Math.floor(idleInTransactionMs)}`),
              catch: (cause) =>
                new SqlErrorClass({ cause, message: "Failed to acquire connection: its session could not be set up" })
            }).pipe(
              Effect.tap(() => Effect.sync(() => prepared.add(pooled))),
              Effect.asVoid
            )
      // taking a connection is not interrupted either: PgClient's `reserve` ignores an interruption while it waits
      // for the pool, and the connection the pool hands over later would never be given back
      //
      // A connection whose server answered that it takes no writes (25006, `readOnlyServer`: a standby, or the old
      // primary after a failover, reached at an address that has since moved) is closed once it is given back (after
      // its transaction's ROLLBACK): kept, the pool handed it out again and again and every write on it failed for as
      // long as it lived (a busy pool's connections never idle out); closed, the next statement connects again and
      // reaches the new primary. Its statement is run again on another connection (`PgLedger.connectionCut`).
      const reserve = Effect.uninterruptible(
        Effect.flatMap(pg.reserve, (connection) => {
          // (@effect/sql-pg's reserved connection keeps its pooled client as `pg`)
          const pooled = (connection as { readonly pg?: PgConnection }).pg
          watch?.track(pooled)
          let readOnly = false
          // a finalizer added after the reservation's runs before its release: the session is ended (node-postgres
          // marks it ending at once), so the pool drops it when it is given back rather than hand it to a waiting
          // statement (a socket destroyed here instead failed the next statement on it with the close's error)
          return Effect.as(
            Effect.zipRight(
              Effect.addFinalizer(() =>
                Effect.sync(() => {
                  if (readOnly) pooled?.end()
                })
              ),
              prepare(pooled)
            ),
            uninterruptibleStatements(connection, (e) => {
              if (readOnlyServer(e)) readOnly = true
            })
          )
        })
      )
      // While the database refuses new connections (a restart takes a few seconds), a statement waits for one,
      // trying every 100 ms, rather than failing at once: the requests of a restart are answered after it, not 500.
      // The wait is the outage's, not each statement's: from the first refusal, statements wait until
      // `connectWaitMs` after it, then fail at once until a connection is had again (a request of several statements
      // in a longer outage does not wait the bound once per statement). The waits can be interrupted; a try cannot.
      const waiting = (e: SqlError) => {
        if (!refusedForNow(e)) return false
        const cause = e.cause as { readonly message?: unknown } | undefined
        const { since } = refusals.refused(String(cause?.message ?? e.message))
        return connectWaitMs > 0 && Date.now() - since < connectWaitMs
      }
      const acquirer: typeof reserve = Effect.suspend(() => reserve).pipe(
        Effect.tap(() => Effect.sync(refusals.connected)),
        Effect.catchIf(waiting, () => Effect.zipRight(wallSleep(100), acquirer))
      )
      return yield* SqlClient.make({
        acquirer,
        transactionAcquirer: acquirer,
        compiler: PgClient.makeCompiler(),
        spanAttributes: [["db.system.name", "postgresql"]]
      })
    })
  ).pipe(Layer.provide(Reactivity.layer))

/** The default of `DATABASE_ANSWER_TIMEOUT_MS`. */
export const defaultAnswerTimeoutMs = 30_000

/**
 * A wait on the machine's clock, not the Clock service: the watch times sockets, and a test clock moved by hours
 * (sessions, the audit log's year) would otherwise run its checks thousands of times.
 */
const wallSleep = (ms: number) =>
  Effect.async<void>((resume) => {
    const timer = setTimeout(() => resume(Effect.void), ms)
    return Effect.sync(() => clearTimeout(timer))
  })

/**
 * Checks `watch` every `checkEveryMs` for as long as the scope is open, logging the connections it closes (one line a
 * check).
 */
const watching = (watch: ReturnType<typeof makeWatch>, answerTimeoutMs: number) => {
  const checkEveryMs = Math.max(50, Math.min(1_000, Math.floor(answerTimeoutMs / 4)))
  return Effect.forkScoped(
    Effect.forever(
      Effect.zipRight(
        wallSleep(checkEveryMs),
        Effect.suspend(() => {
          const closed = watch.check(Date.now())
          return closed === 0
            ? Effect.void
            : Effect.logWarning(
                `${closed} database connection${closed === 1 ? "" : "s"} closed: a statement had no answer from the database in ${answerTimeoutMs} ms (taken for a lost connection; the statement failed as the database not reached)`
              )
        })
      )
    )
  )
}

/** SqlClient on a target, with the migrations run (then, on a server, its connections watched: `makeWatch`). */
export const layer = (target: Target) =>
  Layer.unwrapScoped(
    Effect.gen(function* () {
      const url = target._tag === "Server" ? target.url : yield* Embedded.start(target.dataDir)
      // the embedded database runs in this process: no path to it can be lost
      const answerTimeoutMs = target._tag === "Server" ? (target.answerTimeoutMs ?? defaultAnswerTimeoutMs) : 0
      const connectWaitMs = target._tag === "Server" ? (target.connectWaitMs ?? defaultConnectWaitMs) : 0
      const refusals = refusalState()
      const watch = answerTimeoutMs > 0 ? makeWatch(answerTimeoutMs) : undefined
      const sql = client(
        {
          url: Redacted.make(url),
          maxConnections: target._tag === "Embedded" ? 1 : (target.maxConnections ?? 10),
          applicationName: "pdr",
          // a new connection's handshake, and a wait for a pooled one, are bounded the same (node-postgres' pool
          // applies its connection timeout to both)
          ...(answerTimeoutMs > 0 ? { connectTimeout: answerTimeoutMs } : {})
        },
        watch,
        connectWaitMs,
        refusals,
        target._tag === "Server" ? (target.idleInTransactionMs ?? defaultIdleInTransactionMs) : 0
      )
      // the watch starts once the migrations are run (a migration on a large table may legitimately take minutes)
      return Layer.scopedDiscard(
        watch === undefined
          ? Effect.asVoid(Migrations.run)
          : Effect.andThen(Migrations.run, Effect.asVoid(watching(watch, answerTimeoutMs)))
      ).pipe(Layer.provideMerge(Layer.merge(sql, Layer.succeed(Refusals, { current: refusals.current }))))
    })
  )

/** Reads DATABASE_URL and DATA_DIR (default `.data`). */
export const targetConfig = Config.all({
  url: Config.option(Config.string("DATABASE_URL")),
  dataDir: Config.string("DATA_DIR").pipe(Config.withDefault(".data")),
  pool: Setting.integer("DATABASE_POOL", 10, { least: 1 }),
  // 0: never
  answerTimeoutMs: Setting.integer("DATABASE_ANSWER_TIMEOUT_MS", defaultAnswerTimeoutMs, { least: 0 }),
  // 0: at once
  connectWaitMs: Setting.integer("DATABASE_CONNECT_WAIT_MS", defaultConnectWaitMs, { least: 0 })
}).pipe(
  Config.map(
    ({ url, dataDir, pool, answerTimeoutMs, connectWaitMs }): Target =>
      Option.match(url, {
        onNone: () => ({ _tag: "Embedded", dataDir }),
        onSome: (url) => ({ _tag: "Server", url, maxConnections: pool, answerTimeoutMs, connectWaitMs })
      })
  )
)
