/**
 * Token buckets shared by every server instance over one PostgreSQL database (issue 22, D12): the same policy and
 * answers as the domain's process-local `RateLimits.buckets`, kept in the unlogged `rate_buckets` table on the
 * database's clock. The takes of one turn of the event loop go in one statement (`Coalesce`), so a busy instance adds
 * one statement per turn, not one per request.
 */
import { SqlClient } from "@effect/sql"
import { RateLimits } from "@pdr/domain"
import { Effect } from "effect"
import * as Coalesce from "./Coalesce.js"
import { num } from "./Rows.js"

/** Buckets of `policy` in the database, with the shape of the domain's `RateLimits.buckets`, kept with the keys. */
export const buckets = (policy: RateLimits.Policy) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const ask = (take: boolean) =>
      Coalesce.make((keys: ReadonlyArray<string>) =>
        sql`SELECT * FROM pdr_take_tokens(${policy.name}, ${keys}::text[], ${policy.perSecond}, ${policy.burst}, ${take})`.pipe(
          Effect.map((rows) => {
            const byOrd = new Map(rows.map((r) => [num(r["ord"]), r]))
            return keys.map((_, i) => {
              const r = byOrd.get(i + 1)!
              // the decision of a take is whether it took a token: `tokens` is what is left after it
              return RateLimits.decision(policy, num(r["tokens"]), r["allowed"] === true)
            })
          }),
          Effect.orDie
        )
      )
    const take = yield* ask(true)
    const peek = yield* ask(false)
    // the same table PgKeyStore's read of a key takes from (pdr_admit): one round trip for the key and its token
    return { policy, take, peek, inKeyStore: true } satisfies RateLimits.Buckets
  })
