/**
 * A key's optional monthly credit limit (issue 24): checked when a call's hold is placed. The month is the UTC
 * calendar month; a key's spend is what it captured this month plus what its calls in flight hold.
 */
import { DateTime, Effect, Schema } from "effect"
import { WireId, wire } from "./ErrorCodes.js"
import type { Caller } from "./Keys.js"
import type { KeySpend } from "./ports/KeySpend.js"

/** 402 `key_credit_limit`: the call's quote would take the key past its monthly limit; nothing was held or billed. */
export class KeyCreditLimitReached extends Schema.TaggedError<KeyCreditLimitReached>()("KeyCreditLimitReached", {
  required: Schema.Number,
  limit: Schema.Number,
  spentThisMonth: Schema.Number,
  resetsAt: Schema.String
}) {
  override get message() {
    return `this call is quoted at ${this.required} credits; this key's monthly credit limit is ${this.limit} and it has spent or holds ${this.spentThisMonth} this month (the month resets at ${this.resetsAt}); nothing was fetched or billed`
  }
  get [WireId]() {
    return wire("key_credit_limit", {
      required: this.required,
      limit: this.limit,
      spentThisMonth: this.spentThisMonth,
      resetsAt: this.resetsAt
    })
  }
}

/** The first instant of the UTC month of `now`, and of the next one. */
export const monthOf = (now: DateTime.Utc) => {
  const start = DateTime.startOf(now, "month")
  return { start, next: DateTime.add(start, { months: 1 }) }
}

/** Fails when `amount` more credits would take the caller's key past its monthly limit (no limit: nothing read). */
export const admit = (spend: KeySpend["Type"], caller: Caller, amount: number) =>
  Effect.gen(function* () {
    const limit = caller.monthlyCreditLimit
    if (limit === undefined || amount <= 0) return
    const month = monthOf(yield* DateTime.now)
    const spent = yield* spend.spentSince(caller.keyId, DateTime.toDate(month.start))
    if (spent + amount > limit) {
      return yield* new KeyCreditLimitReached({
        required: amount,
        limit,
        spentThisMonth: spent,
        resetsAt: DateTime.formatIso(month.next)
      })
    }
  })

/**
 * The check and the hold of a limited key, one call of that key at a time in this process, so calls racing on one
 * key cannot pass its limit together (across processes they still can, by at most the quotes placed in between).
 * A key without a limit runs its hold as it is.
 */
export const gate = (spend: KeySpend["Type"]) => {
  const gates = new Map<string, Effect.Semaphore>()
  return <A, E, R>(caller: Caller, amount: number, hold: Effect.Effect<A, E, R>) => {
    if (caller.monthlyCreditLimit === undefined) return hold
    let semaphore = gates.get(caller.keyId)
    if (semaphore === undefined) {
      semaphore = Effect.unsafeMakeSemaphore(1)
      gates.set(caller.keyId, semaphore)
    }
    return semaphore.withPermits(1)(Effect.zipRight(admit(spend, caller, amount), hold))
  }
}
