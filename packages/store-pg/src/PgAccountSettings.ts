/** The AccountSettings port on PostgreSQL: one optional row per account. */
import { SqlClient } from "@effect/sql"
import { AccountSettings } from "@pdr/domain"
import { Effect, Layer, Option } from "effect"
import { againWhileCut } from "./PgLedger.js"
import { num } from "./Rows.js"

/** The AccountSettings adapter. */
export const make = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  return AccountSettings.AccountSettings.of({
    lowBalanceThreshold: (accountId) =>
      againWhileCut(sql`SELECT low_balance_threshold FROM account_settings WHERE account_id = ${accountId}`).pipe(
        Effect.map((rows) => {
          const v = rows[0]?.["low_balance_threshold"]
          return v === undefined || v === null ? Option.none() : Option.some(num(v))
        }),
        Effect.orDie
      ),
    setLowBalanceThreshold: (accountId, threshold) =>
      // the same value written twice changes nothing: run again while its connection is cut
      againWhileCut(sql`INSERT INTO account_settings (account_id, low_balance_threshold)
          VALUES (${accountId}, ${Option.getOrNull(threshold)})
          ON CONFLICT (account_id) DO UPDATE SET low_balance_threshold = EXCLUDED.low_balance_threshold`).pipe(
        Effect.asVoid,
        Effect.orDie
      )
  })
})

/** The AccountSettings port on the SqlClient. */
export const layer = Layer.effect(AccountSettings.AccountSettings, make)
