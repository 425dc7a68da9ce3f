/** The Ledger port on PostgreSQL: accounts, the append-only ledger, holds, and the settle transaction (D8). */
import { SqlClient } from "@effect/sql"
import type { SqlError } from "@effect/sql/SqlError"
import { Instants, Ledger as L, type Measurements as M } from "@pdr/domain"
import { Cause, DateTime, Duration, Effect, Either, Layer, Option, Predicate, Schedule } from "effect"
import * as GroupCommit from "./GroupCommit.js"
import { ledgerLockTimeoutMs } from "./Migrations.js"
import { date, num, utc } from "./Rows.js"

/**
 * An account row as an Account. Every field is made here by its column's conversion, so the class's validation of them
 * is skipped (issue 22: every paid call's settle answers its account; as PgKeyStore's keys).
 */
const toAccount = (r: Record<string, unknown>) =>
  new L.Account(
    {
      id: String(r["id"]),
      name: String(r["name"]),
      balance: num(r["balance"]),
      held: num(r["held"]),
      createdAt: utc(r["created_at"])
    },
    true
  )

const toHold = (r: Record<string, unknown>) =>
  new L.Hold({
    id: String(r["id"]),
    accountId: String(r["account_id"]),
    keyId: (r["key_id"] as string | null) ?? null,
    amount: num(r["amount"]),
    status: r["status"] as L.Hold["status"],
    captured: num(r["captured"]),
    expiresAt: utc(r["expires_at"])
  })

/** A `ledger` row as a LedgerEntry (also read by PgUsageReports' ledger pages). */
export const toEntry = (r: Record<string, unknown>) =>
  new L.LedgerEntry({
    id: num(r["id"]),
    accountId: String(r["account_id"]),
    kind: r["kind"] as "grant" | "capture",
    credits: num(r["credits"]),
    reason: String(r["reason"]),
    keyId: (r["key_id"] as string | null) ?? null,
    holdId: (r["hold_id"] as string | null) ?? null,
    at: utc(date(r["created_at"]))
  })

/**
 * Whether the database answered this failure (an error with its SQLSTATE: the statement, and its transaction, were
 * rolled back) rather than the connection failing before its answer came (then nobody knows whether it committed).
 */
export const refusedByDatabase = (e: SqlError): boolean => {
  // the server's ErrorResponse (node-postgres' and PGlite's DatabaseError) has a severity and a SQLSTATE; a socket
  // error (ECONNRESET, EPIPE, "Connection terminated unexpectedly") has neither a severity nor, always, a code
  const cause = e.cause as { readonly code?: unknown; readonly severity?: unknown } | undefined
  return typeof cause?.severity === "string" && typeof cause.code === "string" && /^[0-9A-Z]{5}$/.test(cause.code)
}

/**
 * Whether the server rolled the statement's transaction back as a deadlock victim (40P01) or a serialization failure
 * (40001): nothing of it happened, so it is run again. Concurrent batches lock their accounts in one order, but the
 * rows they write (reveals, idempotency records, measurements) can still meet in another order: seen once in CI as a
 * 500 on concurrent identical reveals.
 */
const transient = (e: unknown): boolean => {
  const code = (e as { readonly _tag?: unknown; readonly cause?: { readonly code?: unknown } } | undefined)?.cause?.code
  return (e as { readonly _tag?: unknown })?._tag === "SqlError" && (code === "40P01" || code === "40001")
}

/** A statement run again (at once, then after 10 and 20 ms) when it was chosen as a deadlock victim. */
export const againOnDeadlock = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  // issue 22: the retry's schedule driver (two refs, its iteration in the context, a catch) is set up only once the
  // statement failed as a victim; the retry then starts from that failure, so the runs and their delays are as before
  Effect.catchIf(effect, transient, (first) => {
    let failed = false
    return Effect.retry(
      Effect.suspend(() => {
        if (failed) return effect
        failed = true
        return Effect.fail(first)
      }),
      {
        while: (e: E) => transient(e),
        schedule: Schedule.exponential(Duration.millis(10)),
        times: 4
      }
    ) as Effect.Effect<A, E, R>
  })

/**
 * Whether a statement failed because it waited its lock timeout (55P03: the ledger's functions wait at most
 * `lockTimeout` for a row another session keeps locked, migration 0042): refused, nothing of it happened.
 */
export const lockTimedOut = (cause: Cause.Cause<unknown>): boolean =>
  [...Cause.failures(cause), ...Cause.defects(cause)].some(
    (e) => isSqlError(e) && (e.cause as { readonly code?: unknown } | undefined)?.code === "55P03"
  )

/** The lock timeout of the ledger's functions (migration 0042). */
export const lockTimeout = Duration.millis(ledgerLockTimeoutMs)

/**
 * A ledger statement that waited its lock timeout, run again 50 ms later, for as long as the lock is held: a call
 * whose account another session keeps locked waits for it as before the timeout (its connection given back between
 * tries); a group-committed write is set apart instead (`GroupCommit`'s `isolate`).
 */
export const waitingOnLocks = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.catchAllCause(effect, (cause) =>
    lockTimedOut(cause)
      ? Effect.zipRight(Effect.sleep(GroupCommit.isolatedRetryMs), waitingOnLocks(effect))
      : Effect.failCause(cause)
  )

const orDie = <A, E>(effect: Effect.Effect<A, E | SqlError>) =>
  Effect.catchTag(effect as Effect.Effect<A, SqlError>, "SqlError", (e) => Effect.die(e)) as Effect.Effect<
    A,
    Exclude<E, SqlError>
  >

/** The records of a settle as JSON, for jsonb_to_recordset. */
const recordsJson = (records: M.SettleRecords, holdId: string | null) => ({
  measurements: JSON.stringify(
    records.measurements.map((m) => ({
      platform: m.platform,
      op: m.op,
      entity: m.entity,
      freshness_key: m.freshnessKey,
      measured_at: Instants.iso(m.measuredAt),
      rows: m.rows,
      rows_asked: m.rowsAsked,
      exhaustive: m.exhaustive,
      found: m.found,
      source: m.source,
      hold_id: m.holdId ?? holdId
    }))
  ),
  points: JSON.stringify(
    records.points.map((p) => ({
      platform: p.platform,
      entity: p.entity,
      store: p.store,
      stay: p.stay,
      measured_at: Instants.iso(p.measuredAt),
      metrics: p.metrics,
      source: p.source
    }))
  ),
  reveals: JSON.stringify(
    records.reveals.map((r) => ({
      account_id: r.accountId,
      person: r.person,
      part: r.part,
      status: r.status,
      value: r.value,
      revealed_at: Instants.iso(r.at),
      source: r.source,
      credits: r.credits ?? 0
    }))
  )
})

/**
 * The settle of a call as one statement (pdr_settle, migration 0006): with a hold still held, the data, the capture of
 * `capture` plus the price of the reveals written (never above the hold), the release of the rest and the capture
 * entry, in one transaction; without one, the data. The account after it and what was captured; no row when the hold
 * is not held.
 */
const settleStatement = (
  sql: SqlClient.SqlClient,
  holdId: string | null,
  accountId: string,
  capture: number,
  reason: string,
  records: M.SettleRecords,
  kept: L.KeptAnswer | undefined
) => {
  const json = recordsJson(records, holdId)
  // with an answer to keep, pdr_settle_keep (migration 0025) completes its idempotency record in the same transaction
  return againOnDeadlock(
    kept === undefined
      ? sql`SELECT * FROM pdr_settle(${holdId}, ${accountId}, ${capture}, ${reason},
        ${json.measurements}::jsonb, ${json.points}::jsonb, ${json.reveals}::jsonb)`
      : sql`SELECT * FROM pdr_settle_keep(${holdId}, ${accountId}, ${capture}, ${reason},
        ${json.measurements}::jsonb, ${json.points}::jsonb, ${json.reveals}::jsonb,
        ${kept.key}, ${kept.status}, ${kept.answer})`
  )
}

/**
 * A draw from a shared hold as one statement (pdr_draw / pdr_draw_keep, migration 0031; with its claim's claimant,
 * D115: only while the claim is still that run's, migration 0041).
 */
const drawStatementOf = (
  sql: SqlClient.SqlClient,
  input: {
    readonly holdId: string | null
    readonly accountId: string
    readonly capture: number
    readonly reason: string
    readonly records: M.SettleRecords
    readonly kept?: L.KeptAnswer | undefined
  }
) => {
  const json = recordsJson(input.records, input.holdId)
  const { holdId, accountId, capture, reason, kept } = input
  return againOnDeadlock(
    kept === undefined
      ? sql`SELECT * FROM pdr_draw(${holdId}, ${accountId}, ${capture}, ${reason},
        ${json.measurements}::jsonb, ${json.points}::jsonb, ${json.reveals}::jsonb)`
      : sql`SELECT * FROM pdr_draw_keep(${holdId}, ${accountId}, ${capture}, ${reason},
        ${json.measurements}::jsonb, ${json.points}::jsonb, ${json.reveals}::jsonb,
        ${kept.key}, ${kept.status}, ${kept.answer}, ${kept.claimant ?? null}::text)`
  )
}

/** How the holds and settles of concurrent calls share statements (issue 22). */
export interface GroupCommitOptions {
  /** At most this many writes in one statement; 1 runs each call's hold and settle alone. */
  readonly maxBatch: number
  /** At most this many batch statements at the database at once (of holds, and of settles); more writes wait. */
  readonly maxInFlight: number
}

/** Group commit's defaults: batches of up to 128 writes, 4 at the database at once. */
export const groupCommitDefaults: GroupCommitOptions = { maxBatch: 128, maxInFlight: 4 }

type PlaceHold = Parameters<L.Ledger["Type"]["placeHold"]>[0]
type Settle = Parameters<L.Ledger["Type"]["settle"]>[0]
type SettleRow = Record<string, unknown>

/**
 * Whether the statement never left: no connection could be had for it (@effect/sql-pg's "Failed to acquire
 * connection", "... for transaction": the pool's connect failed or timed out before anything was sent), so nothing of
 * it can have happened, as with a refusal.
 */
export const neverSent = (e: SqlError): boolean => e.message.startsWith("Failed to acquire connection")

const isSqlError = (u: unknown): u is SqlError => Predicate.isTagged(u, "SqlError")

/**
 * Whether a failed batch's connection was lost (it may have committed), rather than the database refusing it or the
 * batch never being sent.
 */
const lostConnection = (failure: Cause.Cause<SqlError>) =>
  Option.match(Cause.failureOption(failure), {
    onNone: () => false,
    onSome: (e) => !refusedByDatabase(e) && !neverSent(e)
  })

/**
 * Whether the server ended the statement's session before it committed (57P01 `pg_terminate_backend` or an immediate
 * shutdown, 57P02, 57P03: a FATAL answer to the statement in flight): its transaction was rolled back, so nothing of it
 * happened, and unlike the statement's own refusals it succeeds on another connection.
 */
export const sessionEnded = (e: SqlError): boolean =>
  /^57P0[1-3]$/.test(String((e.cause as { readonly code?: unknown } | undefined)?.code))

/**
 * Whether the statement was refused because its connection's server takes no writes now (25006: a standby, or the old
 * primary after a failover, still reached by connections made before the address moved, or by a new one that resolved
 * the old address): rolled back, so nothing of it happened, and it succeeds on a connection to the new primary.
 * `Database` closes such a connection once its statement ends, so the pool connects again rather than handing it out.
 */
export const readOnlyServer = (e: SqlError): boolean =>
  (e.cause as { readonly code?: unknown } | undefined)?.code === "25006"

/**
 * Whether a statement's connection was cut (lost under it; a pooled connection that had already lost its server,
 * node-postgres' "Client has encountered a connection error and is not queryable"; its session ended by the server; or
 * its server read-only, `readOnlyServer`) rather than the statement refused or never sent: run again on another
 * connection, it is answered.
 */
export const connectionCut = (e: SqlError): boolean =>
  (sessionEnded(e) || readOnlyServer(e) || (!refusedByDatabase(e) && !neverSent(e))) && !unanswered(e)

/** The error of a statement whose connection the answer watch (`Database.makeWatch`) closed. */
export const unansweredMessage = (ms: number) =>
  `no answer from the database in ${ms} ms: the connection was taken for lost and closed`

/**
 * Whether the statement failed because it had no answer in `DATABASE_ANSWER_TIMEOUT_MS` (the watch closed its
 * connection): a lost connection too, but not run again at once: it already waited its bound, and a database that does
 * not answer one statement rarely answers the next in time (a request would wait the bound twice).
 */
export const unanswered = (e: SqlError): boolean =>
  /^no answer from the database in \d+ ms/.test(
    String((e.cause as { readonly message?: unknown } | undefined)?.message)
  )

/** The wait before a statement whose connection was cut runs again (the pool meanwhile drops the broken idle ones). */
export const againAfterCut = Schedule.spaced(Duration.millis(10))

/**
 * A statement safe to run twice (a read, or a write whose second run changes nothing), run again while its
 * connection is cut (`connectionCut`), up to three times, 10 ms apart: a request is not failed for a connection of the
 * pool that another connection can replace.
 */
export const againWhileCut = <A, E, R>(statement: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.retry(statement, {
    while: (e: E) => isSqlError(e) && connectionCut(e),
    times: 3,
    schedule: againAfterCut
  })

/** The hold a placed ask made (the batch answers only refusals); its fields are the ask's, typed: not validated again. */
const placed = (ask: PlaceHold) =>
  new L.Hold(
    {
      id: ask.id,
      accountId: ask.accountId,
      keyId: ask.keyId,
      amount: ask.amount,
      status: "held",
      captured: 0,
      expiresAt: DateTime.unsafeMake(ask.expiresAt)
    },
    true
  )

/** The Ledger adapter, with group commit (issue 22). */
export const makeWith = (options: GroupCommitOptions) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    const drawStatement = (input: Settle) => drawStatementOf(sql, input)

    const findAccount = (accountId: string) =>
      orDie(sql`SELECT * FROM accounts WHERE id = ${accountId}`).pipe(
        Effect.map((rows) => Option.map(Option.fromNullable(rows[0]), toAccount))
      )

    const spendable = (accountId: string) =>
      orDie(sql`SELECT balance - held AS spendable FROM accounts WHERE id = ${accountId}`).pipe(
        Effect.map((rows) => (rows[0] ? num(rows[0]["spendable"]) : 0))
      )

    // issue 19: a hold ends in one statement (pdr_close_hold, migration 0031) that locks its account before it, as
    // every statement writing both does; a shared hold's draws are captured there
    const closeHold = (holdId: string) =>
      orDie(againOnDeadlock(sql`SELECT * FROM pdr_close_hold(${holdId}, 'released')`)).pipe(
        Effect.map((rows) =>
          Option.map(Option.fromNullable(rows[0]), (r) => ({
            captured: num(r["captured"]),
            released: num(r["released"])
          }))
        )
      )

    // ---- one call alone: the statements as they were before group commit ----
    // (issue 22: a chain rather than a generator: a lone hold of a paid call runs here)
    const placeStatement = ({ id, accountId, keyId, amount, expiresAt }: PlaceHold) =>
      Effect.flatMap(
        againOnDeadlock(sql`SELECT * FROM pdr_place_hold(${id}, ${accountId}, ${keyId}, ${amount}, ${expiresAt})`),
        (rows) =>
          rows.length === 0
            ? Effect.flatMap(spendable(accountId), (available) =>
                Effect.fail(new L.HoldRefused({ required: amount, available }))
              )
            : Effect.succeed(toHold(rows[0]!))
      )

    /**
     * A hold placed again after a statement of it lost its connection: that statement may have committed, so the
     * hold's id may be taken (this statement waits for its transaction to end before it can tell), and the hold is
     * then that statement's. Placed again up to three times while its own connection is cut too (an idle pooled one the
     * same cut broke, "not queryable", or one cut while it ran).
     */
    const placeAfterLoss = (ask: PlaceHold): Effect.Effect<L.Hold, L.HoldRefused | SqlError> =>
      placeStatement(ask).pipe(
        Effect.retry({ while: (e) => isSqlError(e) && connectionCut(e), times: 3, schedule: againAfterCut }),
        Effect.catchTag("SqlError", (e) =>
          (e.cause as { readonly code?: unknown } | undefined)?.code === "23505"
            ? Effect.flatMap(sql`SELECT * FROM holds WHERE id = ${ask.id}`, (rows) =>
                rows[0] === undefined ? Effect.fail(e) : Effect.succeed(toHold(rows[0]))
              )
            : Effect.fail(e)
        )
      )

    /**
     * A hold alone (a batch of one, or a write of a batch the database refused or that was never sent); when its own
     * statement loses its connection it is placed again (`placeAfterLoss`) rather than failing the call: a lost
     * connection is the pool's, not the call's (issue 22, D24).
     */
    const placeAlone = (ask: PlaceHold) =>
      orDie(
        placeStatement(ask).pipe(
          Effect.catchTag("SqlError", (e) => (connectionCut(e) ? placeAfterLoss(ask) : Effect.fail(e)))
        )
      )

    /** A hold of a failed batch, alone: after a lost connection, the batch's own hold if it committed. */
    const placeAgain = (ask: PlaceHold, failure: Cause.Cause<SqlError>) =>
      lostConnection(failure) ? orDie(placeAfterLoss(ask)) : placeAlone(ask)

    const settled = (input: Settle, row: SettleRow | undefined, leasesReleased = false) =>
      row === undefined
        ? Either.left(new L.HoldNotHeld({ holdId: input.holdId ?? "" }))
        : Either.right({
            account: toAccount(row),
            captured: num(row["captured"]),
            ...(input.kept === undefined ? {} : { kept: String(row["kept"]) }),
            ...(leasesReleased ? { leasesReleased } : {})
          })

    // a refusal rolled the settle back and a settle never sent did nothing (a defect: nothing was billed); a lost
    // answer leaves it unknown, and so does a session the server ended under it (57P0x) or a server that took no
    // writes (25006, mid-failover): rolled back too, but then the look after a loss (`settleOne`) settles it on
    // another connection rather than failing the call
    const classified = <A, E>(effect: Effect.Effect<A, E | SqlError>) =>
      Effect.catchTag(effect as Effect.Effect<A, SqlError>, "SqlError", (e) =>
        (refusedByDatabase(e) && !sessionEnded(e) && !readOnlyServer(e)) || neverSent(e)
          ? Effect.die(e)
          : Effect.fail(new L.SettleOutcomeUnknown({ detail: e.message }))
      ) as Effect.Effect<A, Exclude<E, SqlError> | L.SettleOutcomeUnknown>

    // after a batch that lost its connection: the look at what it did is tried again at once while its own connection
    // is cut too (the pool's idle connections are cut too, and one may be handed out before it is known to be broken:
    // its ROLLBACK then fails "not queryable"; or one is cut while the look runs; the look is safe to repeat, it
    // settles only what the batch did not), up to 10 times; then any failure leaves the settle unknown (the batch may
    // have committed), a transaction's too (`withTransaction` makes a failed COMMIT or ROLLBACK a defect)
    const afterLoss = <A, E>(effect: Effect.Effect<A, E | SqlError>) =>
      (effect as Effect.Effect<A, SqlError>).pipe(
        Effect.catchAllDefect((d) => (isSqlError(d) ? Effect.fail(d) : Effect.die(d))),
        Effect.retry({ while: connectionCut, times: 10 }),
        Effect.catchTag("SqlError", (e) =>
          Effect.fail(new L.SettleOutcomeUnknown({ detail: `after a batch whose connection was lost: ${e.message}` }))
        )
      ) as Effect.Effect<A, Exclude<E, SqlError> | L.SettleOutcomeUnknown>

    const settleAlone = (input: Settle) =>
      classified(
        Effect.suspend(() =>
          input.holdId === null && input.capture !== 0
            ? Effect.die(new Error("a settle without a hold cannot capture"))
            : input.draw === true && input.holdId !== null
              ? drawStatement(input)
              : settleStatement(
                  sql,
                  input.holdId,
                  input.accountId,
                  input.capture,
                  input.reason,
                  input.records,
                  input.kept
                )
        )
      ).pipe(Effect.flatMap((rows) => settled(input, rows[0])))

    /**
     * A draw whose statement (a batch's, or its own) lost its connection: it may have committed, and a draw leaves no
     * mark on its hold that tells (the hold stays held); its claim does (D115): the hold's row and then the claim's are
     * read under their locks (as every draw locks them, so after its transaction ended if it was still running). A
     * claim this run's and done was kept by that draw: its answer is that draw's (the account as it is now, the capture
     * the kept answer says); one still this run's and in flight is drawn here (a statement arriving later finds it done
     * and draws nothing). Without a claim, the outcome is unknown, and the caller's idempotency record answers a retry.
     */
    const drawLook = (input: Settle) => {
      const kept = input.kept
      if (kept?.claimant === undefined)
        return Effect.fail(
          new L.SettleOutcomeUnknown({ detail: "the connection was lost while the draw was recorded" })
        )
      return afterLoss(
        sql.withTransaction(
          Effect.gen(function* () {
            yield* sql`SELECT 1 FROM holds WHERE id = ${input.holdId} FOR UPDATE`
            const claim = yield* sql`SELECT state, claimant, body FROM idempotency
              WHERE account_id = ${input.accountId} AND key = ${kept.key} FOR UPDATE`
            if (claim[0]?.["state"] !== "done" || claim[0]?.["claimant"] !== kept.claimant)
              return yield* drawStatementOf(sql, input)
            const body = String(claim[0]?.["body"])
            const charged = (JSON.parse(body) as { readonly cost?: { readonly creditsCharged?: number } }).cost
              ?.creditsCharged
            const account = yield* sql`SELECT * FROM accounts WHERE id = ${input.accountId}`
            return account.map((a) => ({ ...a, captured: charged ?? input.capture, kept: body }))
          })
        )
      ).pipe(Effect.flatMap((rows) => settled(input, rows[0])))
    }

    /**
     * A settle whose statement (a batch's, or its own) lost its connection: it may have committed. The hold's row is
     * read under its lock, after its account's (so after that statement's transaction ended, if it was still running),
     * and a hold it captured answers with what it wrote (the account, the capture, the kept answer); a hold still held
     * is settled here. Whatever this look fails on (a connection not to be had included), the outcome stays unknown.
     */
    const settleLook = (input: Settle) =>
      afterLoss(
        sql.withTransaction(
          Effect.gen(function* () {
            // the account's row first, as every settle locks it: this waits for one still running to end
            yield* sql`SELECT 1 FROM accounts WHERE id = ${input.accountId} FOR NO KEY UPDATE`
            const hold = yield* sql`SELECT status, captured FROM holds WHERE id = ${input.holdId} FOR UPDATE`
            if (hold[0]?.["status"] !== "captured")
              return yield* settleStatement(
                sql,
                input.holdId,
                input.accountId,
                input.capture,
                input.reason,
                input.records,
                input.kept
              )
            const account = yield* sql`SELECT * FROM accounts WHERE id = ${input.accountId}`
            const kept =
              input.kept === undefined
                ? []
                : yield* sql`SELECT body FROM idempotency WHERE account_id = ${input.accountId} AND key = ${input.kept.key}`
            return account.map((a) => ({ ...a, captured: hold[0]!["captured"], kept: kept[0]?.["body"] }))
          })
        )
      ).pipe(Effect.flatMap((rows) => settled(input, rows[0])))

    /** What a settle or a draw whose statement lost its connection did (a settle without a hold: unknown). */
    const lookAfterLoss = (input: Settle, unknown: L.SettleOutcomeUnknown) =>
      input.holdId === null ? Effect.fail(unknown) : input.draw === true ? drawLook(input) : settleLook(input)

    /**
     * A settle or a draw alone (a batch of one, or a write of a batch the database refused or that was never sent);
     * when its own statement loses its connection, it looks at what that statement did, as a lost batch's writes do,
     * rather than answering unknown.
     */
    const settleOne = (input: Settle) =>
      Effect.catchTag(settleAlone(input), "SettleOutcomeUnknown", (unknown) => lookAfterLoss(input, unknown))

    /** A draw of a failed batch, alone: after a lost connection, what the batch did (`drawLook`). */
    const drawAgain = (input: Settle, failure: Cause.Cause<SqlError>) =>
      lostConnection(failure) ? drawLook(input) : settleOne(input)

    /** A settle of a failed batch, alone: after a lost connection, what the batch did (`settleLook`). */
    const settleAgain = (input: Settle, failure: Cause.Cause<SqlError>) =>
      lostConnection(failure) ? settleLook(input) : settleOne(input)

    // ---- group commit (issue 22): the holds and the settles of one turn of the event loop in one statement each ----
    // an account whose row another session keeps locked (a transaction left open in psql, a process cut off in the
    // middle of one) is set apart: its writes wait alone, the batches of the other accounts go on
    const lockedAccounts = (writes: "holds" | "settles") => ({
      keyOf: (ask: { readonly accountId: string }) => ask.accountId,
      lockTimedOut,
      onLocked: (accountId: string) =>
        Effect.logWarning(
          `account ${accountId}: a row its ${writes} write is locked by another session for more than ${Duration.format(lockTimeout)}; they wait for it apart, the other accounts' go on`
        )
    })
    const placeGrouped = yield* GroupCommit.make({
      ...options,
      run: (asks: ReadonlyArray<PlaceHold>) =>
        againOnDeadlock(
          sql`SELECT * FROM pdr_place_holds(${asks.map((a) => a.id)}::text[], ${asks.map((a) => a.accountId)}::text[],
            ${asks.map((a) => a.keyId)}::text[], ${asks.map((a) => a.amount)}::bigint[],
            ${asks.map((a) => a.expiresAt.toISOString())}::timestamptz[])`
        ).pipe(
          Effect.map((rows) => {
            const refused = new Map(rows.map((r) => [num(r["ord"]), num(r["available"])]))
            return asks.map((a, i) => {
              const available = refused.get(i + 1)
              return available === undefined
                ? Either.right(placed(a))
                : Either.left(new L.HoldRefused({ required: a.amount, available }))
            })
          })
        ),
      alone: placeAlone,
      retry: (ask, failure) => waitingOnLocks(placeAgain(ask, failure)),
      isolate: lockedAccounts("holds")
    })

    /**
     * The settles (`pdr_settle_batch_keep`) or, issue 19, the draws from shared holds (`pdr_draw_batch_keep`: they lock
     * holds only) of one turn of the event loop in one statement.
     */
    const keptBatch = (fn: "pdr_settle_batch_keep" | "pdr_draw_batch_keep", retry: typeof settleAgain) =>
      GroupCommit.make({
        ...options,
        run: (asks: ReadonlyArray<Settle>) =>
          Effect.suspend(() => {
            const json = asks.map((a) => recordsJson(a.records, a.holdId))
            const args = sql`${asks.map((a) => a.holdId)}::text[],
            ${asks.map((a) => a.accountId)}::text[], ${asks.map((a) => a.capture)}::bigint[],
            ${asks.map((a) => a.reason)}::text[], ${json.map((j) => j.measurements)}::text[],
            ${json.map((j) => j.points)}::text[], ${json.map((j) => j.reveals)}::text[],
            ${asks.map((a) => a.kept?.key ?? null)}::text[], ${asks.map((a) => a.kept?.status ?? null)}::integer[],
            ${asks.map((a) => a.kept?.answer ?? null)}::text[]${
              // D115: a draw keeps its answer only under its own claim (migration 0041)
              fn === "pdr_draw_batch_keep" ? sql`, ${asks.map((a) => a.kept?.claimant ?? null)}::text[]` : sql``
            }`
            // issue 22: the fetch leases of the asks that settled given back in the same transaction (a draw's are
            // left to its caller); an ask not settled keeps its leases, given back by its caller after it settles
            const leases =
              fn === "pdr_settle_batch_keep"
                ? asks.flatMap((a, i) => (a.leases ?? []).map((l) => [i + 1, l] as const))
                : []
            return againOnDeadlock(
              leases.length === 0
                ? sql`SELECT * FROM ${sql.literal(fn)}(${args})`
                : sql`WITH s AS (SELECT * FROM ${sql.literal(fn)}(${args})),
                    released AS (
                      DELETE FROM fetch_leases l
                      USING unnest(${leases.map(([i]) => i)}::integer[], ${leases.map(([, l]) => l.key)}::text[],
                                   ${leases.map(([, l]) => l.token)}::text[]) AS x(ord, key, token)
                      WHERE l.key = x.key AND l.token = x.token AND x.ord IN (SELECT s.ord FROM s))
                    SELECT * FROM s`
            ).pipe(Effect.map((rows) => ({ rows, released: leases.length > 0 })))
          }).pipe(
            Effect.map(({ rows, released }) => {
              const byOrd = new Map(rows.map((r) => [num(r["ord"]), r]))
              return asks.map((a, i) =>
                settled(a, byOrd.get(i + 1), released && a.leases !== undefined && a.leases.length > 0)
              )
            })
          ),
        alone: settleOne,
        retry: (ask, failure) => waitingOnLocks(retry(ask, failure)),
        ...(fn === "pdr_settle_batch_keep" ? { isolate: lockedAccounts("settles") } : {})
      })
    const settleGrouped = yield* keptBatch("pdr_settle_batch_keep", settleAgain)
    const drawGrouped = yield* keptBatch("pdr_draw_batch_keep", drawAgain)

    // issue 19: the closes of one turn in one statement (a refresh batch's hold is closed at each batch's end: alone,
    // each would lock the account's row through its own commit). After a lost connection a close of the batch is run
    // alone: a hold the batch closed then answers none, and its release is not given back to a pass budget (the pass
    // may end early, never over its budget)
    const closeGrouped = yield* GroupCommit.make({
      ...options,
      run: (ids: ReadonlyArray<string>) =>
        againOnDeadlock(sql`SELECT * FROM pdr_close_holds(${ids}::text[])`).pipe(
          Effect.map((rows) => {
            const byOrd = new Map(rows.map((r) => [num(r["ord"]), r]))
            return ids.map((_, i) =>
              Either.right(
                Option.map(Option.fromNullable(byOrd.get(i + 1)), (r) => ({
                  captured: num(r["captured"]),
                  released: num(r["released"])
                }))
              )
            )
          })
        ),
      alone: closeHold,
      retry: (id: string) => closeHold(id)
    })

    return L.Ledger.of({
      createAccount: ({ id, name }) =>
        orDie(sql`INSERT INTO accounts (id, name) VALUES (${id}, ${name}) RETURNING *`).pipe(
          Effect.map((rows) => toAccount(rows[0]!))
        ),
      findAccount,
      listAccounts: () =>
        orDie(sql`SELECT * FROM accounts ORDER BY created_at, id`).pipe(Effect.map((rows) => rows.map(toAccount))),
      grant: ({ accountId, credits, reason }) =>
        orDie(
          sql.withTransaction(
            Effect.gen(function* () {
              const rows =
                yield* sql`UPDATE accounts SET balance = balance + ${credits} WHERE id = ${accountId} RETURNING *`
              if (rows.length === 0) return yield* new L.AccountNotFound({ accountId })
              yield* sql`INSERT INTO ledger (account_id, kind, credits, reason) VALUES (${accountId}, 'grant', ${credits}, ${reason})`
              return toAccount(rows[0]!)
            })
          )
        ),
      placeHold: options.maxBatch > 1 ? placeGrouped : (ask) => waitingOnLocks(placeAlone(ask)),
      // a settle without a hold (nothing to charge) is rare and runs alone
      settle: (input) =>
        input.holdId === null || options.maxBatch <= 1
          ? waitingOnLocks(settleOne(input))
          : input.draw === true
            ? drawGrouped(input)
            : settleGrouped(input),
      release: (holdId) => Effect.asVoid(closeHold(holdId)),
      close: options.maxBatch > 1 ? closeGrouped : closeHold,
      extend: (holdId, expiresAt) =>
        orDie(
          sql`UPDATE holds SET expires_at = greatest(expires_at, ${expiresAt})
              WHERE id = ${holdId} AND status = 'held' RETURNING id`
        ).pipe(Effect.map((rows) => rows.length > 0)),
      // issue 19: the accounts locked before their holds (pdr_release_expired, migration 0031), as the group-committed
      // holds and settles lock them: the sweep locked holds first, and could deadlock with a settle of the same holds
      releaseExpired: (now) =>
        orDie(againOnDeadlock(sql`SELECT pdr_release_expired(${now}) AS n`)).pipe(
          Effect.map((rows) => num(rows[0]?.["n"] ?? 0))
        ),
      holds: (accountId) =>
        orDie(sql`SELECT * FROM holds WHERE account_id = ${accountId} AND status = 'held' ORDER BY created_at`).pipe(
          Effect.map((rows) => rows.map(toHold))
        ),
      entries: (accountId, limit) =>
        orDie(sql`SELECT * FROM ledger WHERE account_id = ${accountId} ORDER BY id DESC LIMIT ${limit}`).pipe(
          Effect.map((rows) => rows.map(toEntry))
        ),
      totals: (accountId) =>
        orDie(sql`
        SELECT coalesce(sum(credits) FILTER (WHERE kind = 'grant'), 0) AS grants,
               coalesce(-sum(credits) FILTER (WHERE kind = 'capture'), 0) AS captures
        FROM ledger WHERE account_id = ${accountId}`).pipe(
          Effect.map((rows) => ({ grants: num(rows[0]?.["grants"]), captures: num(rows[0]?.["captures"]) }))
        )
    })
  })

/** The Ledger adapter with group commit's defaults. */
export const make = makeWith(groupCommitDefaults)

/** The Ledger port on the SqlClient. */
export const layer = Layer.effect(L.Ledger, make)

/** The Ledger port on the SqlClient, with these group commit settings. */
export const layerWith = (options: GroupCommitOptions) => Layer.effect(L.Ledger, makeWith(options))
