/** The domain's Crypto port on node:crypto. */

import { createHash, randomBytes } from "node:crypto"
import { Crypto } from "@pdr/domain"
import { Effect, Layer } from "effect"

/** Crypto from node:crypto: a CSPRNG and SHA-256. */
export const layer = Layer.succeed(
  Crypto.Crypto,
  Crypto.Crypto.of({
    randomBytes: (n) => Effect.sync(() => new Uint8Array(randomBytes(n))),
    sha256: (text) => Effect.sync(() => createHash("sha256").update(text, "utf8").digest("hex"))
  })
)
