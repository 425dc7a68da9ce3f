/** The KeySpend port on PostgreSQL: a key's captures since an instant plus what its calls hold now (issue 24). */
import { SqlClient } from "@effect/sql"
import { KeySpend } from "@pdr/domain"
import { Effect, Layer } from "effect"
import { againWhileCut } from "./PgLedger.js"
import { num } from "./Rows.js"

/** The KeySpend adapter: one statement over the ledger's key index and the held holds. */
export const make = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  return KeySpend.KeySpend.of({
    spentSince: (keyId, since) =>
      // a read on a paid call's path: run again while its connection is cut (a database restarting under it)
      againWhileCut(sql`SELECT
            coalesce((SELECT -sum(l.credits) FROM ledger l
                      WHERE l.key_id = ${keyId} AND l.kind = 'capture' AND l.created_at >= ${since}), 0)
          + coalesce((SELECT sum(h.amount) FROM holds h WHERE h.key_id = ${keyId} AND h.status = 'held'), 0)
            AS spent`).pipe(
        Effect.map((rows) => num(rows[0]?.["spent"] ?? 0)),
        Effect.orDie
      )
  })
})

/** The KeySpend port on the SqlClient. */
export const layer = Layer.effect(KeySpend.KeySpend, make)
