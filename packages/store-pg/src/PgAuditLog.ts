/** The AuditLog port on PostgreSQL: an append-only table (a trigger refuses updates and early deletes). */
import { SqlClient } from "@effect/sql"
import { AuditLog } from "@pdr/domain"
import { Effect, Layer } from "effect"
import { date, num } from "./Rows.js"

/** The AuditLog adapter. */
export const make = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  return AuditLog.AuditLog.of({
    append: (e) =>
      sql`INSERT INTO audit_log (account_id, at, actor, address, action, subject)
          VALUES (${e.accountId}, ${e.at}, ${e.actor}, ${e.address}, ${e.action}, ${e.subject})`.pipe(
        Effect.asVoid,
        Effect.orDie
      ),
    page: (accountId, before, limit) =>
      (before === undefined
        ? sql`SELECT * FROM audit_log WHERE account_id = ${accountId} ORDER BY id DESC LIMIT ${limit}`
        : sql`SELECT * FROM audit_log WHERE account_id = ${accountId} AND id < ${before}
              ORDER BY id DESC LIMIT ${limit}`
      ).pipe(
        Effect.map((rows) =>
          rows.map((r) => ({
            id: num(r["id"]),
            accountId: String(r["account_id"]),
            at: date(r["at"]),
            actor: String(r["actor"]),
            address: String(r["address"]),
            action: String(r["action"]),
            subject: String(r["subject"])
          }))
        ),
        Effect.orDie
      ),
    // the trigger lets only entries past a year go; the database's own clock has the last word
    purge: (before) =>
      sql`DELETE FROM audit_log WHERE at < least(${before}::timestamptz, now() - interval '1 year') RETURNING id`.pipe(
        Effect.map((rows) => rows.length),
        Effect.orDie
      )
  })
})

/** The AuditLog port on the SqlClient. */
export const layer = Layer.effect(AuditLog.AuditLog, make)
