/** Identifiers and secrets drawn from the cryptographic random source, in base62. */
import { Effect } from "effect"
import type { Crypto } from "./ports/Crypto.js"

const alphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

/** `length` base62 characters, unbiased (bytes of 248 and above are drawn again). */
export const base62 = (crypto: Crypto["Type"], length: number): Effect.Effect<string> => {
  // (a chain rather than a generator: an id is made on every paid call, issue 22)
  const more = (out: string): Effect.Effect<string> =>
    out.length >= length
      ? Effect.succeed(out)
      : Effect.flatMap(crypto.randomBytes(length * 2), (bytes) => {
          let next = out
          for (const b of bytes) {
            if (b < 248 && next.length < length) next += alphabet[b % 62]
          }
          return more(next)
        })
  return more("")
}

/** A new id with a readable prefix, e.g. `acct_...`. */
export const make = (crypto: Crypto["Type"], prefix: string): Effect.Effect<string> =>
  Effect.map(base62(crypto, 16), (s) => `${prefix}_${s}`)
