/** Port: accounts, their append-only ledger of grants and captures, and holds. */
import { Context, type Effect, type Option, Schema } from "effect"
import { WireId, wire } from "../ErrorCodes.js"
import type { SettleRecords } from "./Measurements.js"

/** An account (an org): balance = grants - captures, never negative; spendable = balance - active holds. */
export class Account extends Schema.Class<Account>("Account")({
  id: Schema.String,
  name: Schema.String,
  balance: Schema.Number,
  held: Schema.Number,
  createdAt: Schema.DateTimeUtcFromSelf
}) {
  /** Credits that can be held now. */
  get spendable(): number {
    return this.balance - this.held
  }
}

/** One ledger entry. Grants are positive, captures negative. */
export class LedgerEntry extends Schema.Class<LedgerEntry>("LedgerEntry")({
  id: Schema.Number,
  accountId: Schema.String,
  kind: Schema.Literal("grant", "capture"),
  credits: Schema.Number,
  reason: Schema.String,
  keyId: Schema.NullOr(Schema.String),
  holdId: Schema.NullOr(Schema.String),
  at: Schema.DateTimeUtcFromSelf
}) {}

/** A hold on spendable credits for one paid call. */
export class Hold extends Schema.Class<Hold>("Hold")({
  id: Schema.String,
  accountId: Schema.String,
  keyId: Schema.NullOr(Schema.String),
  amount: Schema.Number,
  status: Schema.Literal("held", "captured", "released", "expired"),
  captured: Schema.Number,
  expiresAt: Schema.DateTimeUtcFromSelf
}) {}

/** What closing a hold did: credits its draws captured, and credits released. */
export interface Closed {
  readonly captured: number
  readonly released: number
}

/** The hold could not be placed: spendable credits do not cover it. */
export class HoldRefused extends Schema.TaggedError<HoldRefused>()("HoldRefused", {
  required: Schema.Number,
  available: Schema.Number
}) {}

/** No account has this id. */
export class AccountNotFound extends Schema.TaggedError<AccountNotFound>()("AccountNotFound", {
  accountId: Schema.String
}) {
  override get message() {
    return `no account ${this.accountId}`
  }
  get [WireId]() {
    return wire("not_found")
  }
}

/** The hold is no longer held (already settled, released or expired). */
export class HoldNotHeld extends Schema.TaggedError<HoldNotHeld>()("HoldNotHeld", { holdId: Schema.String }) {}

/**
 * The settle's statement was sent but its answer never came (the connection was lost): the transaction may or may
 * not have committed, so the call may or may not have been billed. A refusal by the database is not this: it rolls
 * the transaction back.
 */
export class SettleOutcomeUnknown extends Schema.TaggedError<SettleOutcomeUnknown>()("SettleOutcomeUnknown", {
  detail: Schema.String
}) {
  override get message() {
    return "the call's billing could not be confirmed (the database connection was lost while it was recorded): it may have been billed once; GET /api/v1/balance tells, and a retry with the same Idempotency-Key is never billed twice"
  }
  get [WireId]() {
    return wire("internal")
  }
}

/**
 * An answer to keep for an idempotency key (D16), written by the settle in its own transaction: its JSON text is
 * `before`, then the cost object only the settle knows (`{"creditsCharged":N,"creditsRemaining":M}`), then `after`.
 */
export interface KeptAnswer {
  /** The account's idempotency key whose record the answer completes. */
  readonly key: string
  readonly status: number
  /**
   * The answer without its cost, as JSON text (`{"data":[...],"coverage":[...],<envelope>}`): the settle keeps it with
   * the cost it computes as one record, `{"answer": ..., "cost": {"creditsCharged", "creditsRemaining"}}`, which
   * `Answers.renderKept` renders as the live answer is rendered.
   */
  readonly answer: string
  /**
   * D115: the claim's claimant (`Idempotency.run`'s). A draw (`draw: true`) writes only while the key's claim is still
   * in flight and this claimant's, and otherwise draws and writes nothing (answered `HoldNotHeld`): a draw whose
   * statement reaches the database after its claim was dropped (a retry may have run the call again) charges nothing.
   * A settle of a hold of its own is fenced by that hold instead (D114: the claim is dropped once it is released).
   */
  readonly claimant?: string | undefined
}

/** Port: the credit ledger. */
export class Ledger extends Context.Tag("@pdr/domain/Ledger")<
  Ledger,
  {
    readonly createAccount: (input: { readonly id: string; readonly name: string }) => Effect.Effect<Account>
    readonly findAccount: (accountId: string) => Effect.Effect<Option.Option<Account>>
    readonly listAccounts: () => Effect.Effect<ReadonlyArray<Account>>
    /** Appends a grant and raises the balance, in one transaction. */
    readonly grant: (input: {
      readonly accountId: string
      readonly credits: number
      readonly reason: string
    }) => Effect.Effect<Account, AccountNotFound>
    /** Places a hold atomically, only when spendable credits cover it. */
    readonly placeHold: (input: {
      readonly id: string
      readonly accountId: string
      readonly keyId: string | null
      readonly amount: number
      readonly expiresAt: Date
    }) => Effect.Effect<Hold, HoldRefused>
    /**
     * One transaction: captures `capture` (<= the hold) and releases the rest, appends the capture to the ledger,
     * and writes the records that were paid for.
     */
    readonly settle: (input: {
      /** The hold to capture from; null for a settle that charges nothing (capture must then be 0). */
      readonly holdId: string | null
      readonly accountId: string
      /** The capture for everything but contact reveals, whose `credits` are added only for parts newly bought. */
      readonly capture: number
      readonly reason: string
      readonly records: SettleRecords
      /** The answer to keep for an idempotency key of `accountId`, in the same transaction (a crash keeps both or neither). */
      readonly kept?: KeptAnswer | undefined
      /**
       * Issue 19: the hold is shared by several settles (a refresh batch's: one hold for its entities' quotes). The
       * capture is drawn from it (never above what is left of it; the records and the kept answer written with it, as
       * any settle's) and the hold stays held for the next draw; `close` ends it. The account's row is not written by
       * a draw: what the hold's draws took is captured, with one ledger entry, when the hold is closed (by its holder,
       * a takeover or the expiry sweep), so spendable credits (balance - held) are exact throughout.
       */
      readonly draw?: boolean | undefined
      /**
       * Issue 22: the fetch leases (FetchLeases, on the same store) this call's fetches hold, which the store may give
       * back in the settle's own transaction (so only with the results stored); `leasesReleased` then says it did. A
       * settle that did not (it ran alone, or its hold was not held) leaves them to the caller.
       */
      readonly leases?: ReadonlyArray<{ readonly key: string; readonly token: string }> | undefined
    }) => Effect.Effect<
      {
        readonly account: Account
        readonly captured: number /** the kept answer's text, if one was kept */
        readonly kept?: string
        /** The settle gave back the `leases` it was given, in its transaction. */
        readonly leasesReleased?: boolean
      },
      HoldNotHeld | SettleOutcomeUnknown
    >
    /** Releases a hold whole (a call that failed); a shared hold is closed (`close`). */
    readonly release: (holdId: string) => Effect.Effect<void>
    /**
     * Ends a hold still held (issue 19): what settles drew from it is captured (one ledger entry) and the rest released,
     * in one transaction; none when it was no longer held (settled, closed before, or expired). Exactly one caller gets
     * the figures of a hold, so a refresh batch's unspent budget is given back once, by its runner or by a takeover.
     */
    readonly close: (holdId: string) => Effect.Effect<Option.Option<Closed>>
    /**
     * Keeps a hold held until at least `expiresAt` (a long call renews its hold with its lease, issue 21); false when
     * it is no longer held (settled, released by a takeover, or expired).
     */
    readonly extend: (holdId: string, expiresAt: Date) => Effect.Effect<boolean>
    /**
     * Marks holds past their expiry as expired and releases them (a shared hold's draws are captured, as `close`
     * does); returns how many.
     */
    readonly releaseExpired: (now: Date) => Effect.Effect<number>
    readonly holds: (accountId: string) => Effect.Effect<ReadonlyArray<Hold>>
    readonly entries: (accountId: string, limit: number) => Effect.Effect<ReadonlyArray<LedgerEntry>>
    /** Sum of grants and of captures (as a positive number) of an account, for audits. */
    readonly totals: (accountId: string) => Effect.Effect<{ readonly grants: number; readonly captures: number }>
  }
>() {}
