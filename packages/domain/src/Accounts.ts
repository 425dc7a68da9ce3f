/** Accounts and credits (D7): creation, operator grants, and what an account holds. */
import { Effect, Option } from "effect"
import * as Ids from "./Ids.js"
import { InvalidInput } from "./Keys.js"
import { Crypto } from "./ports/Crypto.js"
import { AccountNotFound, Ledger } from "./ports/Ledger.js"

const isWholeCredits = (n: number) => Number.isSafeInteger(n) && n > 0

/** Operator-side account management over the Ledger port. */
export class Accounts extends Effect.Service<Accounts>()("@pdr/domain/Accounts", {
  effect: Effect.gen(function* () {
    const ledger = yield* Ledger
    const crypto = yield* Crypto

    const grant = Effect.fn("Accounts.grant")(function* (input: {
      readonly accountId: string
      readonly credits: number
      readonly reason: string
    }) {
      if (!isWholeCredits(input.credits)) {
        return yield* new InvalidInput({ field: "credits", message: "must be a positive whole number of credits" })
      }
      const reason = input.reason.trim()
      if (reason.length === 0 || reason.length > 200) {
        return yield* new InvalidInput({ field: "reason", message: "must be 1 to 200 characters" })
      }
      return yield* ledger.grant({ accountId: input.accountId, credits: input.credits, reason })
    })

    const create = Effect.fn("Accounts.create")(function* (input: {
      readonly name: string
      readonly credits?: number | undefined
    }) {
      const name = input.name.trim()
      if (name.length === 0 || name.length > 100) {
        return yield* new InvalidInput({ field: "name", message: "must be 1 to 100 characters" })
      }
      if (input.credits !== undefined && input.credits !== 0 && !isWholeCredits(input.credits)) {
        return yield* new InvalidInput({ field: "credits", message: "must be a whole number of credits, 0 or more" })
      }
      const account = yield* ledger.createAccount({ id: yield* Ids.make(crypto, "acct"), name })
      if (input.credits === undefined || input.credits === 0) return account
      return yield* Effect.orDie(
        ledger.grant({ accountId: account.id, credits: input.credits, reason: "initial grant" })
      )
    })

    const find = Effect.fn("Accounts.find")(function* (accountId: string) {
      const found = yield* ledger.findAccount(accountId)
      if (Option.isNone(found)) return yield* new AccountNotFound({ accountId })
      return found.value
    })

    const show = Effect.fn("Accounts.show")(function* (accountId: string) {
      const account = yield* find(accountId)
      const holds = yield* ledger.holds(accountId)
      const entries = yield* ledger.entries(accountId, 20)
      return { account, holds, entries }
    })

    return { create, grant, find, show, list: ledger.listAccounts } as const
  })
}) {}
