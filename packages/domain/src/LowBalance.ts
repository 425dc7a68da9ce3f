/** An account's optional low-balance threshold (issue 24): the dashboard warns while spendable credits are below it. */
import { Effect, Option } from "effect"
import { InvalidInput } from "./Keys.js"
import { AccountSettings } from "./ports/AccountSettings.js"

/** The threshold as a service over the AccountSettings port. */
export class LowBalance extends Effect.Service<LowBalance>()("@pdr/domain/LowBalance", {
  effect: Effect.gen(function* () {
    const settings = yield* AccountSettings
    const threshold = (accountId: string) => settings.lowBalanceThreshold(accountId)
    /** Sets (a whole number of credits, 1 or more) or clears (none) the threshold. */
    const setThreshold = Effect.fn("LowBalance.setThreshold")(function* (
      accountId: string,
      value: Option.Option<number>
    ) {
      if (Option.isSome(value) && !(Number.isSafeInteger(value.value) && value.value >= 1 && value.value <= 1e12)) {
        return yield* new InvalidInput({ field: "threshold", message: "must be a whole number of credits, 1 or more" })
      }
      yield* settings.setLowBalanceThreshold(accountId, value)
    })
    /** The threshold when `spendable` is below it. */
    const below = (accountId: string, spendable: number) =>
      Effect.map(
        threshold(accountId),
        Option.filter((t) => spendable < t)
      )
    return { threshold, setThreshold, below } as const
  })
}) {}
