/**
 * The API key lifecycle (D6): generation in the `key_live_` format, SHA-256 digest and visible prefix, the states
 * active / revoked / expired, and one `Unauthorized` outcome whatever the reason.
 */
import { DateTime, Effect, Exit, Option, Ref, Schema } from "effect"
import { WireId, wire } from "./ErrorCodes.js"
import * as Ids from "./Ids.js"
import { Crypto } from "./ports/Crypto.js"
import { type DailyUsage, KeyStore, type StoredKey, type UsageBatch } from "./ports/KeyStore.js"
import { AccountNotFound, Ledger } from "./ports/Ledger.js"
import type * as RateLimits from "./RateLimits.js"

/** The fixed live-key prefix. */
export const livePrefix = "key_live_"

/** The shape of a full key: the live prefix and 32 base62 characters. */
export const keyPattern = /^key_live_[0-9A-Za-z]{32}$/

/** The visible part of a key: the live prefix and the next 4 characters. */
export const visiblePrefix = (key: string): string => key.slice(0, livePrefix.length + 4)

/** 401 `unauthorized`: missing, malformed, unknown, revoked or expired; the reason is never told. */
export class Unauthorized extends Schema.TaggedError<Unauthorized>()("Unauthorized", {}) {
  override get message() {
    return "A valid API key is required: send it as X-API-Key or Authorization: Bearer."
  }
  get [WireId]() {
    return wire("unauthorized")
  }
}

/** Operator input that cannot be acted on (the message says which field and why). */
export class InvalidInput extends Schema.TaggedError<InvalidInput>()("InvalidInput", {
  field: Schema.String,
  message: Schema.String
}) {
  get [WireId]() {
    return wire("invalid_request", [{ path: this.field, message: this.message }], `${this.field} ${this.message}`)
  }
}

/** No key has this id. */
export class KeyNotFound extends Schema.TaggedError<KeyNotFound>()("KeyNotFound", { keyId: Schema.String }) {
  override get message() {
    return `no key ${this.keyId}`
  }
  get [WireId]() {
    return wire("not_found")
  }
}

/** The authenticated caller of a request. */
export interface Caller {
  readonly accountId: string
  readonly keyId: string
  readonly prefix: string
  /** The account's spendable credits when the key was read (answers of calls that spend nothing report it). */
  readonly spendable?: number
  /** The key's monthly credit limit, when it has one (checked at the hold, issue 24). */
  readonly monthlyCreditLimit?: number
}

/** An admitted request: its caller, and the decision of the caller's key's rate limit (refused when not allowed). */
export interface Admitted {
  readonly caller: Caller
  readonly decision: RateLimits.Decision
}

/** The credentials as sent: the `X-API-Key` header and the `Authorization` header, if any. */
export interface Credentials {
  readonly apiKey: string | undefined
  readonly authorization: string | undefined
}

/** A key's state at an instant. */
export type KeyState = "active" | "revoked" | "expired"

/** The state of a stored key at `now`: revoked wins; expired from the instant of its expiry on. */
export const stateAt = (key: StoredKey, now: DateTime.Utc): KeyState =>
  Option.isSome(key.revokedAt)
    ? "revoked"
    : Option.isSome(key.expiresAt) && !DateTime.lessThan(now, key.expiresAt.value)
      ? "expired"
      : "active"

/**
 * The key the credentials carry, or undefined when they carry none that could be valid: both headers sent and
 * different, an `Authorization` that is not `Bearer <key>`, or a value not of the key format.
 */
export const presentedKey = (credentials: Credentials): string | undefined => {
  const fromHeader = credentials.apiKey?.trim()
  let fromBearer: string | undefined
  if (credentials.authorization !== undefined) {
    const match = /^Bearer[ ]+(\S+)\s*$/.exec(credentials.authorization)
    if (!match) return undefined
    fromBearer = match[1]
  }
  if (fromHeader !== undefined && fromBearer !== undefined && fromHeader !== fromBearer) return undefined
  const key = fromHeader ?? fromBearer
  return key !== undefined && keyPattern.test(key) ? key : undefined
}

/** The longest grace period of a roll: 24 hours. */
export const maxGraceSeconds = 86_400

/** A digest that no stored key has: looked up for absent or malformed keys so every refusal costs the same. */
const decoy = `${livePrefix}${"0".repeat(32)}!`

/** The key lifecycle as a service over the KeyStore, Ledger and Crypto ports. */
export class Keys extends Effect.Service<Keys>()("@pdr/domain/Keys", {
  effect: Effect.gen(function* () {
    const store = yield* KeyStore
    const ledger = yield* Ledger
    const crypto = yield* Crypto
    const usage = yield* Ref.make(new Map<string, { calls: number; lastUsedAt: Date }>())
    const daily = yield* Ref.make(new Map<string, DailyUsage>())

    /** The key's read; with `limit`, the one that also takes the key's token when the store keeps its buckets. */
    // (issue 22: a chain rather than a generator: every request passes here; the clock read in the step that decides)
    const check = (
      credentials: Credentials,
      limit?: RateLimits.Buckets
    ): Effect.Effect<{ readonly caller: Caller; readonly decision: RateLimits.Decision | undefined }, Unauthorized> => {
      const key = presentedKey(credentials)
      return Effect.flatMap(crypto.sha256(key ?? decoy), (digest) =>
        Effect.flatMap(store.findByDigest(digest, limit?.inKeyStore === true ? limit.policy : undefined), (found) =>
          Effect.clockWith((clock) => {
            const now = DateTime.unsafeMake(clock.unsafeCurrentTimeMillis())
            if (key === undefined || Option.isNone(found) || stateAt(found.value.key, now) !== "active") {
              return Effect.fail(new Unauthorized())
            }
            const stored = found.value.key
            const caller: Caller = {
              accountId: stored.accountId,
              keyId: stored.id,
              prefix: stored.prefix,
              spendable: found.value.spendable,
              ...(Option.isSome(stored.monthlyCreditLimit)
                ? { monthlyCreditLimit: stored.monthlyCreditLimit.value }
                : {})
            }
            return Effect.succeed({ caller, decision: found.value.decision })
          })
        )
      )
    }

    const authenticate = (credentials: Credentials) => Effect.map(check(credentials), (checked) => checked.caller)

    /**
     * A request's admission (D6, D12): the caller of valid credentials and one token of its key's bucket in `limit`.
     * When the store keeps the buckets (`inKeyStore`) the key's read takes the token too: one round trip.
     */
    const admit = (credentials: Credentials, limit: RateLimits.Buckets): Effect.Effect<Admitted, Unauthorized> =>
      Effect.flatMap(check(credentials, limit), ({ caller, decision }) =>
        decision === undefined
          ? Effect.map(limit.take(caller.keyId), (taken): Admitted => ({ caller, decision: taken }))
          : Effect.succeed<Admitted>({ caller, decision })
      )

    const create = Effect.fn("Keys.create")(function* (input: {
      readonly accountId: string
      readonly name: string
      readonly expiresAt?: Date | undefined
      readonly monthlyCreditLimit?: Option.Option<number>
    }) {
      const name = yield* checkName(input.name)
      if (input.monthlyCreditLimit !== undefined) yield* checkLimit(input.monthlyCreditLimit)
      const now = yield* DateTime.now
      if (input.expiresAt !== undefined) {
        if (Number.isNaN(input.expiresAt.getTime())) {
          return yield* new InvalidInput({ field: "expires", message: "must be an ISO-8601 instant" })
        }
        if (input.expiresAt.getTime() <= DateTime.toEpochMillis(now)) {
          return yield* new InvalidInput({ field: "expires", message: "must be in the future" })
        }
      }
      if (Option.isNone(yield* ledger.findAccount(input.accountId))) {
        return yield* new AccountNotFound({ accountId: input.accountId })
      }
      const key = `${livePrefix}${yield* Ids.base62(crypto, 32)}`
      const stored = yield* store.insert({
        id: yield* Ids.make(crypto, "kid"),
        accountId: input.accountId,
        name,
        prefix: visiblePrefix(key),
        digest: yield* crypto.sha256(key),
        expiresAt: Option.fromNullable(input.expiresAt),
        monthlyCreditLimit: input.monthlyCreditLimit ?? Option.none()
      })
      return { key, stored }
    })

    const checkLimit = (limit: Option.Option<number>) =>
      Option.isSome(limit) && !(Number.isSafeInteger(limit.value) && limit.value >= 1 && limit.value <= 1e12)
        ? Effect.fail(new InvalidInput({ field: "limit", message: "must be a whole number of credits, 1 or more" }))
        : Effect.void

    const checkName = (raw: string) => {
      const name = raw.trim()
      return name.length === 0 || name.length > 100
        ? Effect.fail(new InvalidInput({ field: "name", message: "must be 1 to 100 characters" }))
        : Effect.succeed(name)
    }

    /** The key of this account, or KeyNotFound (another account's key is not found). */
    const ofAccount = Effect.fn("Keys.ofAccount")(function* (keyId: string, accountId: string) {
      const found = yield* store.find(keyId)
      if (Option.isNone(found) || found.value.accountId !== accountId) return yield* new KeyNotFound({ keyId })
      return found.value
    })

    const rename = Effect.fn("Keys.rename")(function* (keyId: string, accountId: string, rawName: string) {
      const key = yield* ofAccount(keyId, accountId)
      const name = yield* checkName(rawName)
      yield* store.rename(key.id, name)
      return { before: key.name, after: name, key }
    })

    /**
     * A roll: a new key with the same name and limit; the old one stays valid `graceSeconds` (0 to 86,400) and then
     * expires. Only an active key rolls.
     */
    const roll = Effect.fn("Keys.roll")(function* (keyId: string, accountId: string, graceSeconds: number) {
      const old = yield* ofAccount(keyId, accountId)
      if (!Number.isInteger(graceSeconds) || graceSeconds < 0 || graceSeconds > maxGraceSeconds) {
        return yield* new InvalidInput({ field: "grace", message: "must be 0 to 24 hours" })
      }
      const now = yield* DateTime.now
      if (stateAt(old, now) !== "active") {
        return yield* new InvalidInput({ field: "grace", message: "only an active key can be rolled" })
      }
      const created = yield* create({
        accountId,
        name: old.name,
        expiresAt: Option.getOrUndefined(Option.map(old.expiresAt, DateTime.toDate)),
        monthlyCreditLimit: old.monthlyCreditLimit
      }).pipe(Effect.catchTag("AccountNotFound", (e) => Effect.die(e)))
      const until = new Date(DateTime.toEpochMillis(now) + graceSeconds * 1000)
      yield* store.retire(old.id, until, created.stored.id)
      return { ...created, old, oldValidUntil: until }
    })

    /** Sets or clears (none) the key's monthly credit limit: a whole number of credits, 1 to 10^12. */
    const setMonthlyLimit = Effect.fn("Keys.setMonthlyLimit")(function* (
      keyId: string,
      accountId: string,
      limit: Option.Option<number>
    ) {
      const key = yield* ofAccount(keyId, accountId)
      yield* checkLimit(limit)
      yield* store.setMonthlyLimit(key.id, limit)
      return key
    })

    /** Revokes the key; with `accountId`, only a key of that account (another account's key is not found). */
    const revoke = Effect.fn("Keys.revoke")(function* (keyId: string, accountId?: string) {
      const found = yield* store.find(keyId)
      if (Option.isNone(found) || (accountId !== undefined && found.value.accountId !== accountId)) {
        return yield* new KeyNotFound({ keyId })
      }
      const revoked = yield* store.revoke(keyId)
      return { keyId, alreadyRevoked: !revoked }
    })

    const list = Effect.fn("Keys.list")(function* (accountId: string) {
      if (Option.isNone(yield* ledger.findAccount(accountId))) return yield* new AccountNotFound({ accountId })
      yield* flushUsage()
      return yield* store.list(accountId)
    })

    /** Counts a call in memory; {@link flushUsage} writes the counts (no hot-row write per call, D6). */
    // (the clock read where the count is made: every request passes here, issue 22)
    const recordCall = (keyId: string) =>
      Effect.clockWith((clock) =>
        Ref.update(usage, (m) => {
          const entry = m.get(keyId)
          m.set(keyId, { calls: (entry?.calls ?? 0) + 1, lastUsedAt: new Date(clock.unsafeCurrentTimeMillis()) })
          return m
        })
      )

    /** Counts an answered op call per key, UTC day, platform and op, in the same buffer (D20 usage). */
    const recordOp = (keyId: string, platform: string, op: string) =>
      Effect.clockWith((clock) =>
        Ref.update(daily, (m) => {
          // the UTC day, as `DateTime.formatIso` of the current time writes it
          const day = new Date(clock.unsafeCurrentTimeMillis()).toISOString().slice(0, 10)
          const id = `${keyId}\t${day}\t${platform}\t${op}`
          const entry = m.get(id)
          m.set(id, { keyId, day, platform, op, calls: (entry?.calls ?? 0) + 1 })
          return m
        })
      )

    // One flush at a time: a flush that finds the buffers empty because another has taken them waits for that
    // one's write, so a page that flushes before it reads sees every call answered before it (the dashboard's
    // "last used" read while the periodic flush was writing showed "never": stop 40's CI). Each flush's counts are a
    // batch with an id of its own (D104): a write that fails or is interrupted keeps its batches, as they were, for the
    // next flush, which sends them again with its own; the store adds a batch once per id, so a write that committed
    // though its answer was lost (the connection dropped after the commit) is not counted twice.
    const flushing = yield* Effect.makeSemaphore(1)
    let unwritten: ReadonlyArray<UsageBatch> = []
    const flushUsage = Effect.fn("Keys.flushUsage")(function* () {
      return yield* flushing.withPermits(1)(
        // the counts taken from the buffers are in a batch to write or kept before an interruption can come: only the
        // write itself is interruptible (and then kept, as a failure is)
        Effect.uninterruptibleMask((restore) =>
          Effect.gen(function* () {
            const pending = yield* Ref.getAndSet(usage, new Map())
            const days = yield* Ref.getAndSet(daily, new Map())
            const batches =
              pending.size === 0 && days.size === 0
                ? unwritten
                : [
                    ...unwritten,
                    {
                      id: yield* Ids.make(crypto, "usage"),
                      usage: [...pending].map(([keyId, u]) => ({ keyId, ...u })),
                      daily: [...days.values()]
                    }
                  ]
            if (batches.length === 0) return 0
            unwritten = []
            yield* restore(store.recordUsage(batches)).pipe(
              Effect.onExit((exit) =>
                Effect.sync(() => {
                  if (Exit.isFailure(exit)) unwritten = batches
                })
              )
            )
            return pending.size
          })
        )
      )
    })

    return {
      authenticate,
      admit,
      create,
      rename,
      roll,
      setMonthlyLimit,
      revoke,
      list,
      recordCall,
      recordOp,
      flushUsage
    } as const
  })
}) {}
