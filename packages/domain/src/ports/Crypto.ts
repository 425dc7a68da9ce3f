/** Cryptographic primitives the domain needs but may not import: random bytes and SHA-256. */
import { Context, type Effect } from "effect"

/** Port: a cryptographic random source and SHA-256. */
export class Crypto extends Context.Tag("@pdr/domain/Crypto")<
  Crypto,
  {
    /** `n` bytes from a cryptographic random source. */
    readonly randomBytes: (n: number) => Effect.Effect<Uint8Array>
    /** Lower-case hex SHA-256 digest of the UTF-8 text. */
    readonly sha256: (text: string) => Effect.Effect<string>
  }
>() {}
