/** The demo account of a first start on an empty embedded database: credits and a key, printed once. */
import { Accounts, Keys } from "@pdr/domain"
import { Console, Effect } from "effect"

/** Demo credits granted on a first start. */
export const demoCredits = 1000

/** Creates the demo account and key when no account exists yet; prints the key once, labelled. */
export const seed = Effect.gen(function* () {
  const accounts = yield* Accounts.Accounts
  const keys = yield* Keys.Keys
  if ((yield* accounts.list()).length > 0) return
  const account = yield* accounts.create({ name: "Demo", credits: demoCredits })
  const created = yield* keys.create({ accountId: account.id, name: "demo key" })
  yield* Console.log(
    [
      "",
      "  DEMO ACCOUNT (first start on an empty data directory)",
      `  account: ${account.id}  credits: ${demoCredits}`,
      `  DEMO API KEY (shown once, not stored): ${created.key}`,
      ""
    ].join("\n")
  )
})
