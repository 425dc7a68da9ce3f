/** Port: what an API key has spent in a month, for its optional monthly credit limit (enforced at the hold). */
import { Context, type Effect } from "effect"

/** Port: a key's spend. */
export class KeySpend extends Context.Tag("@pdr/domain/KeySpend")<
  KeySpend,
  {
    /** Credits the key captured since `since` plus the credits its calls hold now. */
    readonly spentSince: (keyId: string, since: Date) => Effect.Effect<number>
  }
>() {}
