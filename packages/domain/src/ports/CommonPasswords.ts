/** Port: a list of common (breached, guessable) passwords that are refused. */
import { Context, type Effect } from "effect"

/** Port: the common-password list. */
export class CommonPasswords extends Context.Tag("@pdr/domain/CommonPasswords")<
  CommonPasswords,
  {
    /** True when the password (compared case-insensitively) is on the list. */
    readonly includes: (password: string) => Effect.Effect<boolean>
  }
>() {}
