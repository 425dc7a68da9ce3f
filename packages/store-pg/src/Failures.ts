/**
 * What a failed write's cause says about writing it again (issue 22's buffered writes: call records, demand). The
 * database refused it (its own answer with a SQLSTATE: a constraint, a value it cannot take): written again, it fails
 * again the same way. The database was not reached or dropped the connection, was shutting down, had no connection
 * left, or rolled the statement back as a deadlock victim: written again once it answers, it succeeds.
 */
import type { SqlError } from "@effect/sql/SqlError"
import { Cause } from "effect"
import { connectionCut, readOnlyServer, refusedByDatabase, unanswered } from "./PgLedger.js"

const isSqlError = (u: unknown): u is SqlError => (u as { readonly _tag?: unknown } | null)?._tag === "SqlError"

// SQLSTATEs of a database that did not take the statement for a reason of its own state, not the statement's:
// 08 connection exception, 53 insufficient resources (53300 too many connections, 53100 disk full), 58 system error
// (I/O), 57P01-57P03 shutting down or not accepting connections (pg_terminate_backend is 57P01), 57014 a statement
// cancelled (statement_timeout), 55P03 a lock not available, 25006 a read-only transaction (a standby, mid-failover),
// 40001 / 40P01 serialization failure / deadlock
const notTheWrite = /^(08|53|58|57P0[1-3]|57014|55P03|25006|40001|40P01)/

/** Whether the database refused this write (see above); an interruption alone is not a refusal. */
export const refusedWrite = (cause: Cause.Cause<unknown>): boolean => {
  const errors: Array<unknown> = [...Cause.failures(cause), ...Cause.defects(cause)]
  if (errors.length === 0) return false
  const sql = errors.find(isSqlError)
  // not a failure of the database (a bug in the write itself): written again, it fails again
  if (sql === undefined) return true
  if (!refusedByDatabase(sql)) return false
  return !notTheWrite.test(String((sql.cause as { readonly code: string }).code))
}

/**
 * Whether a statement failed because its connection was cut under it (`PgLedger.connectionCut`): run again on another
 * connection, it is answered; not a connection that could not be had, nor a statement without an answer in time.
 */
export const cutUnder = (cause: Cause.Cause<unknown>): boolean =>
  [...Cause.failures(cause), ...Cause.defects(cause)].some((e) => isSqlError(e) && connectionCut(e))

/**
 * Whether a statement failed because the database took no writes (`PgLedger.readOnlyServer`: a standby, or the old
 * primary after a failover); reached, not down.
 */
export const readOnly = (cause: Cause.Cause<unknown>): boolean =>
  [...Cause.failures(cause), ...Cause.defects(cause)].some((e) => isSqlError(e) && readOnlyServer(e))

/** Whether a statement failed for want of an answer in `DATABASE_ANSWER_TIMEOUT_MS` (`PgLedger.unanswered`). */
export const unansweredIn = (cause: Cause.Cause<unknown>): boolean =>
  [...Cause.failures(cause), ...Cause.defects(cause)].some((e) => isSqlError(e) && unanswered(e))

/**
 * The operator's line when a process cannot start because the database at `url` is not reached (the cause's first
 * SQL error did not reach it) or refused the session (its user, password or database): where (host, port and database,
 * never the user or password) and why; undefined for any other failure.
 */
export const unreachableAtStart = (cause: Cause.Cause<unknown>, url: string): string | undefined => {
  const errors: Array<unknown> = [...Cause.failures(cause), ...Cause.defects(cause)]
  const sql = errors.find(isSqlError)
  if (sql === undefined) return undefined
  // reached, and it refused the session itself: class 28 (no or a wrong user or password), 3D000 (no such database)
  const refusedSession = /^(28|3D000)/.test(String((sql.cause as { readonly code?: unknown } | undefined)?.code))
  if (!refusedSession && refusedWrite(Cause.fail(sql))) return undefined
  let where = "the database"
  try {
    const u = new URL(url)
    where = `the database at ${u.hostname}:${u.port || "5432"}${u.pathname}`
  } catch {}
  const inner = sql.cause instanceof Error ? sql.cause.message : undefined
  return refusedSession
    ? `${where} refused the connection (${inner ?? sql.message}): are DATABASE_URL's user, password and database right?`
    : `${where} could not be reached (${inner ?? sql.message}): is PostgreSQL running there, and is DATABASE_URL right?`
}
