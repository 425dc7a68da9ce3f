/**
 * The request being answered: its id, sent as `x-request-id` and in every body (D4, D5), and the headers its answer
 * carries whatever its status (rate-limit state, idempotent replay). One mutable record per request, set once by the
 * Fallback middleware, so adding a header is not a fiber-ref update and the headers are applied in one place.
 */

import { randomBytes } from "node:crypto"
import { Effect, FiberRef } from "effect"

/** A request's id and the headers of its answer. */
export interface State {
  readonly id: string
  readonly headers: Record<string, string>
  /** What the request's log line tells (issue 25): the caller's key id (never the key) and the credits charged. */
  keyId?: string
  credits?: number
}

const outside: State = Object.freeze({ id: "req_none", headers: Object.freeze({}) as Record<string, string> })

/** The current request's state (`req_none` outside a request). */
export const current = FiberRef.unsafeMake<State>(outside)

/** A fresh state for a new request. */
export const start = (): State => {
  const id = make()
  return { id, headers: { "x-request-id": id } }
}

/**
 * Changes the current request's state (nothing outside a request): one step of the fiber's runtime, the state read
 * from the fiber itself (issue 22: `FiberRef.get` and `Effect.map` are four).
 */
export const update = (f: (state: State) => void): Effect.Effect<void> =>
  Effect.withFiberRuntime((fiber) => {
    const state = fiber.getFiberRef(current)
    if (state !== outside) f(state)
    return Effect.void
  })

/** Notes the key id or the credits of the current request for its log line (nothing outside a request). */
export const note = (fields: { readonly keyId?: string; readonly credits?: number }) =>
  update((state) => Object.assign(state, fields))

/** Adds headers to the current request's answer (nothing outside a request). */
export const addHeaders = (headers: Record<string, string>) => update((state) => Object.assign(state.headers, headers))

// random bytes are drawn 4 KiB at a time: an id costs no call into the random source of its own
let pool = Buffer.alloc(0)
let offset = 0

/** A new request id: `req_` and 20 hex digits from a cryptographic random source. */
export const make = (): string => {
  if (offset + 10 > pool.length) {
    pool = randomBytes(4096)
    offset = 0
  }
  const id = pool.toString("hex", offset, offset + 10)
  offset += 10
  return `req_${id}`
}
