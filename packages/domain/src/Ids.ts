/** Identifiers and secrets drawn from the cryptographic random source, in base62. */
import { Effect } from "effect"
import type { Crypto } from "./ports/Crypto.js"

const alphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

/** `length` base62 characters, unbiased (bytes of 248 and above are drawn again). */
export const base62 = (crypto: Crypto["Type"], length: number): Effect.Effect<string> =>
  Effect.gen(function* () {
    let out = ""
    while (out.length < length) {
      const bytes = yield* crypto.randomBytes(length * 2)
      for (const b of bytes) {
        if (b < 248 && out.length < length) out += alphabet[b % 62]
      }
    }
    return out
  })

/** A new id with a readable prefix, e.g. `acct_...`. */
export const make = (crypto: Crypto["Type"], prefix: string): Effect.Effect<string> =>
  Effect.map(base62(crypto, 16), (s) => `${prefix}_${s}`)
