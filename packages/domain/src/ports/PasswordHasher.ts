/** Port: a memory-hard password hash (the domain may not import node:crypto). */
import { Context, type Effect } from "effect"

/** Port: hashes a password into a self-describing string and verifies a password against one. */
export class PasswordHasher extends Context.Tag("@pdr/domain/PasswordHasher")<
  PasswordHasher,
  {
    /** A salted hash of the password, with its parameters. */
    readonly hash: (password: string) => Effect.Effect<string>
    /** Whether the password matches the hash (a constant-time comparison). */
    readonly verify: (hash: string, password: string) => Effect.Effect<boolean>
  }
>() {}
