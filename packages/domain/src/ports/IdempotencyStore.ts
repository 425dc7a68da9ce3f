/** Port: kept answers of idempotent requests (D16), scoped to the account. */
import { Context, type Effect } from "effect"

/** What a first look at an idempotency key finds. */
export type Begin =
  | { readonly _tag: "Started" }
  | { readonly _tag: "Replay"; readonly status: number; readonly body: unknown }
  | { readonly _tag: "Mismatch" }
  | { readonly _tag: "InFlight" }

/** Port: idempotency records. */
export class IdempotencyStore extends Context.Tag("@pdr/domain/IdempotencyStore")<
  IdempotencyStore,
  {
    /**
     * Claims the key for this request, atomically: a new key, an expired record, or an in-flight record started
     * before `staleBefore` (its caller died) is claimed; otherwise says what is there. The claim is `claimant`'s: its
     * end (`complete`, `abandon`) with that claimant acts only while the claim is still that claimant's, so a caller
     * that stalled past the stale bound and wakes never ends the claim another took over since.
     */
    readonly begin: (input: {
      readonly accountId: string
      readonly key: string
      readonly claimant: string
      readonly fingerprint: string
      readonly now: Date
      readonly staleBefore: Date
      readonly expiresAt: Date
    }) => Effect.Effect<Begin>
    /** Keeps the completed answer (only while the claim is `claimant`'s, when one is given). */
    readonly complete: (input: {
      readonly accountId: string
      readonly key: string
      readonly claimant?: string
      readonly status: number
      readonly body: unknown
    }) => Effect.Effect<void>
    /**
     * Renews an in-flight claim (its `started_at` set to `now`): a call still running past the stale bound (a long
     * call's provider run takes minutes) keeps its key, so the same key sent again is in flight, never run twice.
     * False when the claim is no longer in flight (completed, or dropped).
     */
    readonly renew: (input: {
      readonly accountId: string
      readonly key: string
      readonly now: Date
    }) => Effect.Effect<boolean>
    /**
     * Forgets a claim whose call did not complete (so a retry runs again): only while it is `claimant`'s, when one is
     * given (without one: whoever's it is, as a takeover of a dead call's key does).
     */
    readonly abandon: (input: {
      readonly accountId: string
      readonly key: string
      readonly claimant?: string
    }) => Effect.Effect<void>
    /** Deletes records past their retention; returns how many. */
    readonly purgeExpired: (now: Date) => Effect.Effect<number>
  }
>() {}
