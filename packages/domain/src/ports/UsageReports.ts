/** Port: read models of an account's usage and ledger for the dashboard (counts from the key usage flush, credits from the ledger). */
import { Context, type Effect } from "effect"
import type { LedgerEntry } from "./Ledger.js"

/** Calls and credits of one key on one day for one platform and op. */
export interface UsageRow {
  /** `YYYY-MM-DD` (UTC). */
  readonly day: string
  readonly keyId: string
  readonly platform: string
  readonly op: string
  readonly calls: number
  readonly credits: number
}

/** Port: usage and ledger reads. */
export class UsageReports extends Context.Tag("@pdr/domain/UsageReports")<
  UsageReports,
  {
    /** Usage rows of the account from `since` (a UTC day) on, newest day first. */
    readonly usage: (accountId: string, since: string) => Effect.Effect<ReadonlyArray<UsageRow>>
    /** Ledger entries of the account, newest first, strictly older than the entry `before` when given. */
    readonly ledgerPage: (
      accountId: string,
      before: number | undefined,
      limit: number
    ) => Effect.Effect<ReadonlyArray<LedgerEntry>>
  }
>() {}
