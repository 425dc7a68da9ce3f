/**
 * The FetchLeases port on PostgreSQL (migration 0021, issue 22): one row per fetch in flight, taken with an upsert that
 * only replaces a lease that ran out, given back by its token. The takes and the releases of concurrent calls are
 * group-committed (GroupCommit: one statement per turn of the event loop), so a paid call pays no extra round trip of
 * its own. A store that does not answer never blocks a call: the take then answers an empty token (fetch alone, as
 * without leases) and the release is dropped (the lease runs out).
 */
import { randomUUID } from "node:crypto"
import { SqlClient } from "@effect/sql"
import { FetchLeases } from "@pdr/domain"
import { Effect, Either, Layer, Option } from "effect"
import * as GroupCommit from "./GroupCommit.js"

interface Take {
  readonly key: string
  readonly token: string
  readonly ms: number
}

/** The adapter. */
export const make = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient

  const fetchAlone = (reason: unknown) =>
    Effect.as(
      Effect.logWarning("fetch lease not taken: fetching alone", {
        detail: reason instanceof Error ? reason.message : String(reason)
      }),
      Option.some("")
    )

  const takeAlone = ({ key, token, ms }: Take) =>
    sql`INSERT INTO fetch_leases (key, token, until)
        VALUES (${key}, ${token}, now() + ${Math.round(ms)} * interval '1 millisecond')
        ON CONFLICT (key) DO UPDATE SET token = EXCLUDED.token, until = EXCLUDED.until
          WHERE fetch_leases.until < now()
        RETURNING token`.pipe(
      Effect.map((rows) => (rows.length > 0 ? Option.some(token) : Option.none())),
      Effect.catchAll(fetchAlone)
    )

  const take = yield* GroupCommit.make({
    run: (asks: ReadonlyArray<Take>) => {
      // one upsert may not touch a row twice: a key asked twice in a batch is taken by its first ask only
      const first = new Map<string, Take>()
      for (const a of asks) if (!first.has(a.key)) first.set(a.key, a)
      const batch = [...first.values()]
      return sql`INSERT INTO fetch_leases (key, token, until)
          SELECT x.key, x.token, now() + x.ms * interval '1 millisecond'
          FROM jsonb_to_recordset(${JSON.stringify(
            batch.map((a) => ({ key: a.key, token: a.token, ms: Math.round(a.ms) }))
          )}::jsonb) AS x(key text, token text, ms bigint)
          ON CONFLICT (key) DO UPDATE SET token = EXCLUDED.token, until = EXCLUDED.until
            WHERE fetch_leases.until < now()
          RETURNING key, token`.pipe(
        Effect.map((rows) => {
          const taken = new Set(rows.map((r) => `${r["key"]}\u0000${r["token"]}`))
          return asks.map((a) =>
            Either.right(taken.has(`${a.key}\u0000${a.token}`) ? Option.some(a.token) : Option.none<string>())
          )
        })
      )
    },
    alone: takeAlone,
    retry: takeAlone,
    maxBatch: 128,
    maxInFlight: 4
  })

  const releaseAlone = ({ key, token }: { readonly key: string; readonly token: string }) =>
    sql`DELETE FROM fetch_leases WHERE key = ${key} AND token = ${token}`.pipe(
      Effect.asVoid,
      Effect.catchAll((e) => Effect.logWarning("fetch lease not given back: it runs out", { detail: e.message }))
    )

  const release = yield* GroupCommit.make({
    run: (asks: ReadonlyArray<{ readonly key: string; readonly token: string }>) =>
      sql`DELETE FROM fetch_leases l
          USING jsonb_to_recordset(${JSON.stringify(asks)}::jsonb) AS x(key text, token text)
          WHERE l.key = x.key AND l.token = x.token`.pipe(Effect.as(asks.map(() => Either.right<void>(undefined)))),
    alone: releaseAlone,
    retry: releaseAlone,
    maxBatch: 128,
    maxInFlight: 4
  })

  return FetchLeases.FetchLeases.of({
    take: (key, ms) => take({ key, token: randomUUID(), ms }),
    renew: (key, token, ms) =>
      sql`UPDATE fetch_leases SET until = now() + ${Math.round(ms)} * interval '1 millisecond'
          WHERE key = ${key} AND token = ${token} RETURNING key`.pipe(
        Effect.map((rows) => rows.length > 0),
        // a store that does not answer: keep trying (the lease may still be ours)
        Effect.orElseSucceed(() => true)
      ),
    release: (key, token) => release({ key, token })
  })
})

/** The FetchLeases port on the SqlClient. */
export const layer = Layer.effect(FetchLeases.FetchLeases, make)
