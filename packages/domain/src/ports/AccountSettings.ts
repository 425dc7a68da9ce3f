/** Port: an account's own dashboard settings (the low-balance threshold). */
import { Context, type Effect, type Option } from "effect"

/** Port: account settings. */
export class AccountSettings extends Context.Tag("@pdr/domain/AccountSettings")<
  AccountSettings,
  {
    readonly lowBalanceThreshold: (accountId: string) => Effect.Effect<Option.Option<number>>
    readonly setLowBalanceThreshold: (accountId: string, threshold: Option.Option<number>) => Effect.Effect<void>
  }
>() {}
