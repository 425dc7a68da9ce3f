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

/** `RateLimit-Policy: "name";q=<burst>;w=<seconds to refill the burst>`. */
export const policyHeader = (p: Policy) => `"${p.name}";q=${p.burst};w=${Math.max(1, Math.ceil(p.burst / p.perSecond))}`

/** `RateLimit: "name";r=<remaining>;t=<seconds>`. */
export const stateHeader = (p: Policy, d: Decision) => `"${p.name}";r=${d.remaining};t=${d.resetSeconds}`

/** A set of token buckets keyed by a string (a key id, a client address). */
export const buckets = (policy: Policy, maxKeys = 100_000) => {
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
  const decide = (b: { tokens: number }, allowed: boolean): Decision => ({
    allowed,
    remaining: Math.max(0, Math.floor(b.tokens)),
    resetSeconds: b.tokens >= 1 ? 0 : Math.ceil((1 - b.tokens) / policy.perSecond)
  })
  return {
    policy,
    /** Takes one token if there is one. */
    take: (key: string) =>
      Effect.map(Clock.currentTimeMillis, (now) => {
        const b = refill(key, now)
        if (b.tokens < 1) return decide(b, false)
        b.tokens -= 1
        return decide(b, true)
      }),
    /** Whether a token is there, without taking it. */
    peek: (key: string) =>
      Effect.map(Clock.currentTimeMillis, (now) => decide(refill(key, now), refill(key, now).tokens >= 1))
  }
}

/** The limits of one server instance. */
export class RateLimits extends Context.Tag("@pdr/domain/RateLimits")<
  RateLimits,
  { readonly perKey: ReturnType<typeof buckets>; readonly failedAuth: ReturnType<typeof buckets> }
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
