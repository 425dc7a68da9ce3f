/** The domain's Crypto port on node:crypto. */

import { createHash, randomBytes } from "node:crypto"
import { Crypto } from "@pdr/domain"
import { Effect, Layer } from "effect"

// issue 22: random bytes drawn from the CSPRNG 4 KiB at a time (as RequestId's), each handed out once: an id (a paid
// call's hold id, 32 bytes) costs no call into the random source of its own
const poolSize = 4096
let pool = Buffer.alloc(0)
let offset = 0

/** `n` fresh bytes from the cryptographic random source (a copy: never shared with another draw). */
const draw = (n: number): Uint8Array => {
  if (n > poolSize) return new Uint8Array(randomBytes(n))
  if (offset + n > pool.length) {
    pool = randomBytes(poolSize)
    offset = 0
  }
  const out = new Uint8Array(pool.subarray(offset, offset + n))
  offset += n
  return out
}

/** Crypto from node:crypto: a CSPRNG and SHA-256. */
export const layer = Layer.succeed(
  Crypto.Crypto,
  Crypto.Crypto.of({
    randomBytes: (n) => Effect.sync(() => draw(n)),
    sha256: (text) => Effect.sync(() => createHash("sha256").update(text, "utf8").digest("hex"))
  })
)
