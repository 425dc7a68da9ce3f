/** Port: the append-only audit log of an account's dashboard (who did what, when, from which address). */
import { Context, type Effect } from "effect"

/** One audit entry. */
export interface AuditEntry {
  readonly id: number
  readonly accountId: string
  readonly at: Date
  /** The member's email, or `operator`. */
  readonly actor: string
  readonly address: string
  readonly action: string
  /** What was acted on, in words (a key's name and prefix, a member's email). */
  readonly subject: string
}

/** Port: the audit log. */
export class AuditLog extends Context.Tag("@pdr/domain/AuditLog")<
  AuditLog,
  {
    readonly append: (entry: Omit<AuditEntry, "id">) => Effect.Effect<void>
    /** Newest first, entries with an id below `before` when given. */
    readonly page: (
      accountId: string,
      before: number | undefined,
      limit: number
    ) => Effect.Effect<ReadonlyArray<AuditEntry>>
    /** Deletes entries older than `before` (their retention is over); how many. */
    readonly purge: (before: Date) => Effect.Effect<number>
  }
>() {}
