/** Port: where API keys are kept (only their digest and visible prefix). */
import { Context, type Effect, Option, Schema } from "effect"
import type { Decision, Policy } from "../RateLimits.js"

/** A stored API key: never the key itself, only its SHA-256 digest and its visible prefix. */
export class StoredKey extends Schema.Class<StoredKey>("StoredKey")({
  id: Schema.String,
  accountId: Schema.String,
  name: Schema.String,
  prefix: Schema.String,
  createdAt: Schema.DateTimeUtcFromSelf,
  expiresAt: Schema.OptionFromSelf(Schema.DateTimeUtcFromSelf),
  revokedAt: Schema.OptionFromSelf(Schema.DateTimeUtcFromSelf),
  lastUsedAt: Schema.OptionFromSelf(Schema.DateTimeUtcFromSelf),
  calls: Schema.Number,
  creditsSpent: Schema.Number,
  /** The optional monthly credit limit (issue 24). */
  monthlyCreditLimit: Schema.optionalWith(Schema.OptionFromSelf(Schema.Number), { default: () => Option.none() }),
  /** Credits captured this UTC month (listings only; 0 elsewhere). */
  creditsThisMonth: Schema.optionalWith(Schema.Number, { default: () => 0 }),
  /** The key that replaced this one in a roll, if any. */
  replacedBy: Schema.optionalWith(Schema.OptionFromSelf(Schema.String), { default: () => Option.none() })
}) {}

/** What is written when a key is created. */
export interface NewKey {
  readonly id: string
  readonly accountId: string
  readonly name: string
  readonly prefix: string
  readonly digest: string
  readonly expiresAt: Option.Option<Date>
  readonly monthlyCreditLimit?: Option.Option<number>
}

/** Usage of one key since the last flush (call counts are not money and may trail, D6). */
export interface KeyUsage {
  readonly keyId: string
  readonly calls: number
  readonly lastUsedAt: Date
}

/** Calls of one key on one UTC day (`YYYY-MM-DD`) for one platform and op, since the last flush (D20 usage). */
export interface DailyUsage {
  readonly keyId: string
  readonly day: string
  readonly platform: string
  readonly op: string
  readonly calls: number
}

/**
 * One flush's counts under its id (D104): written at most once, so a flush whose write failed after it committed (its
 * answer lost with the connection) is sent again as it was and not counted twice.
 */
export interface UsageBatch {
  readonly id: string
  readonly usage: ReadonlyArray<KeyUsage>
  readonly daily: ReadonlyArray<DailyUsage>
}

/** Port: API key storage. */
export class KeyStore extends Context.Tag("@pdr/domain/KeyStore")<
  KeyStore,
  {
    readonly insert: (key: NewKey) => Effect.Effect<StoredKey>
    /**
     * The key with this digest and its account's spendable credits, read from the store on every call (no cache
     * may outlive a revocation). With `take`, a store that keeps the per-key buckets (`RateLimits.Buckets`
     * `inKeyStore`) also takes one token from the found key's bucket of that policy in the same read and answers its
     * `decision`, whatever the key's state; a store that keeps none answers no decision.
     */
    readonly findByDigest: (
      digest: string,
      take?: Policy
    ) => Effect.Effect<
      Option.Option<{ readonly key: StoredKey; readonly spendable: number; readonly decision?: Decision | undefined }>
    >
    readonly find: (keyId: string) => Effect.Effect<Option.Option<StoredKey>>
    readonly list: (accountId: string) => Effect.Effect<ReadonlyArray<StoredKey>>
    readonly rename: (keyId: string, name: string) => Effect.Effect<boolean>
    /** A roll: the key expires at `at` (unless it expires sooner) and names its replacement. */
    readonly retire: (keyId: string, at: Date, replacedBy: string) => Effect.Effect<boolean>
    readonly setMonthlyLimit: (keyId: string, limit: Option.Option<number>) => Effect.Effect<boolean>
    /** Marks the key revoked now; false when it was unknown or already revoked. */
    readonly revoke: (keyId: string) => Effect.Effect<boolean>
    /**
     * Adds each batch's call counts to the keys and its daily counts per platform and op, in one transaction, once per
     * batch id: a batch whose id was written before (its earlier write committed though its answer was lost) adds
     * nothing.
     */
    readonly recordUsage: (batches: ReadonlyArray<UsageBatch>) => Effect.Effect<void>
  }
>() {}
