/**
 * Limits (D12): token buckets per API key, and a stricter one per client address for failed authentications.
 * Process-local (each server instance enforces its own share). Time comes from Effect's Clock.
 */
import { Clock, Context, Effect } from "effect"

/** A bucket's policy: `burst` tokens, refilled at `perSecond`. */
export interface Policy {
  readonly name: string
  readonly perSecond: number
  readonly burst: number
}

/** The state of a bucket after a take, for the draft-10 `RateLimit` headers. */
export interface Decision {
  readonly allowed: boolean
  /** Whole tokens left. */
  readonly remaining: number
  /** Seconds until the next token (0 while some are left). */
  readonly resetSeconds: number
}

/** The decision of a bucket holding `tokens` (after a take, what is left), and whether the ask got a token. */
export const decision = (policy: Policy, tokens: number, allowed: boolean): Decision => ({
  allowed,
  remaining: Math.max(0, Math.floor(tokens)),
  resetSeconds: tokens >= 1 ? 0 : Math.ceil((1 - tokens) / policy.perSecond)
})

/** A set of token buckets keyed by a string (a key id, a client address). */
export interface Buckets {
  readonly policy: Policy
  /** Takes one token if there is one. */
  readonly take: (key: string) => Effect.Effect<Decision>
  /** Whether a token is there, without taking it. */
  readonly peek: (key: string) => Effect.Effect<Decision>
  /**
   * The buckets are kept in the key store's database (one limit for every instance over it), keyed by key id: the
   * key store's read of a request's key can take the key's token in the same round trip (`KeyStore.findByDigest`).
   */
  readonly inKeyStore?: boolean
}

/** `RateLimit-Policy: "name";q=<burst>;w=<seconds to refill the burst>`. */
export const policyHeader = (p: Policy) => `"${p.name}";q=${p.burst};w=${Math.max(1, Math.ceil(p.burst / p.perSecond))}`

/** `RateLimit: "name";r=<remaining>;t=<seconds>`. */
export const stateHeader = (p: Policy, d: Decision) => `"${p.name}";r=${d.remaining};t=${d.resetSeconds}`

/** Token buckets in this process's memory. */
export const buckets = (policy: Policy, maxKeys = 100_000): Buckets => {
  const state = new Map<string, { tokens: number; at: number }>()
  const refill = (key: string, now: number) => {
    const b = state.get(key) ?? { tokens: policy.burst, at: now }
    // a clock that steps back refills nothing (and takes nothing away)
    b.tokens = Math.min(policy.burst, b.tokens + (Math.max(0, now - b.at) / 1000) * policy.perSecond)
    b.at = Math.max(b.at, now)
    if (!state.has(key)) {
      if (state.size >= maxKeys) {
        const oldest = state.keys().next()
        if (!oldest.done) state.delete(oldest.value)
      }
      state.set(key, b)
    }
    return b
  }
  const decide = (b: { tokens: number }, allowed: boolean) => decision(policy, b.tokens, allowed)
  return {
    policy,
    take: (key: string) =>
      Effect.map(Clock.currentTimeMillis, (now) => {
        const b = refill(key, now)
        if (b.tokens < 1) return decide(b, false)
        b.tokens -= 1
        return decide(b, true)
      }),
    peek: (key: string) =>
      Effect.map(Clock.currentTimeMillis, (now) => decide(refill(key, now), refill(key, now).tokens >= 1))
  }
}

/** The limits of one server instance. */
export class RateLimits extends Context.Tag("@pdr/domain/RateLimits")<
  RateLimits,
  { readonly perKey: Buckets; readonly failedAuth: Buckets }
>() {
  /** Default policies: 20 requests/s with a burst of 40 per key; 10 failed authentications, then 1 per 10 s, per address. */
  static readonly defaults = {
    perKey: { name: "default", perSecond: 20, burst: 40 },
    failedAuth: { name: "auth", perSecond: 0.1, burst: 10 }
  } as const

  /** Limits with these policies. */
  static readonly make = (perKey: Policy, failedAuth: Policy) => ({
    perKey: buckets(perKey),
    failedAuth: buckets(failedAuth)
  })
}
