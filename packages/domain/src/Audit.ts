/**
 * The audit log of an account's dashboard (issue 24): sign-ins, keys created / renamed / rolled / revoked / limited,
 * members invited / joined / removed, resets issued, with who, when and from which address; append-only, kept a year.
 */
import { DateTime, Effect } from "effect"
import { AuditLog } from "./ports/AuditLog.js"

/** What an entry records. */
export type Action =
  | "signed in"
  | "key created"
  | "key renamed"
  | "key rolled"
  | "key revoked"
  | "key limit set"
  | "member invited"
  | "invitation resent"
  | "invitation cancelled"
  | "member joined"
  | "member role changed"
  | "member removed"
  | "password changed"
  | "password reset issued"
  | "password reset used"
  | "low-balance threshold set"

/** How long entries are kept. */
export const retentionYears = 1

/** The audit log as a service over the AuditLog port; time from the Clock. */
export class Audit extends Effect.Service<Audit>()("@pdr/domain/Audit", {
  effect: Effect.gen(function* () {
    const log = yield* AuditLog
    const record = Effect.fn("Audit.record")(function* (entry: {
      readonly accountId: string
      readonly actor: string
      readonly address: string
      readonly action: Action
      readonly subject: string
    }) {
      yield* log.append({ ...entry, at: DateTime.toDate(yield* DateTime.now) })
    })
    const page = (accountId: string, before: number | undefined, limit: number) => log.page(accountId, before, limit)
    /** Deletes the entries past their retention; how many. */
    const purgeExpired = Effect.fn("Audit.purgeExpired")(function* () {
      const now = yield* DateTime.now
      return yield* log.purge(DateTime.toDate(DateTime.subtract(now, { years: retentionYears })))
    })
    return { record, page, purgeExpired } as const
  })
}) {}
