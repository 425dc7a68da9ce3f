/**
 * Open circuits shared by the server instances over one PostgreSQL database (issue 22): an instance that opens a
 * host's circuit writes until when; every instance reads the open ones every `pollMs` (default 250 ms) into memory,
 * so the upstream policy checks them without a round trip and a host found failing by one instance is known to the
 * others within a second. Kept in the unlogged `circuits` table (a crash forgets them: the hosts are probed again).
 */
import { SqlClient } from "@effect/sql"
import { Clock, Effect, Schedule } from "effect"
import { num } from "./Rows.js"

/** The shared circuits, polled while the scope is open. */
export const make = (pollMs = 250) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    let open = new Map<string, number>()
    const poll = Effect.flatMap(Clock.currentTimeMillis, (now) =>
      sql`SELECT host, open_until_ms FROM circuits WHERE open_until_ms > ${now}`.pipe(
        Effect.tap((rows) =>
          Effect.sync(() => {
            open = new Map(rows.map((r) => [String(r["host"]), num(r["open_until_ms"])]))
          })
        )
      )
    )
    // a database out of reach is said once, with its cause, and again when the circuits are read again (not every
    // `pollMs` for as long as it lasts: four lines a second with their stacks)
    let failing = 0
    yield* poll.pipe(
      Effect.matchCauseEffect({
        onSuccess: () => {
          if (failing === 0) return Effect.void
          const n = failing
          failing = 0
          return Effect.logWarning(`the shared circuits are read again after ${n} failed reads`)
        },
        onFailure: (cause) =>
          failing++ === 0 ? Effect.logWarning("the shared circuits could not be read; read again", cause) : Effect.void
      }),
      Effect.repeat(Schedule.spaced(`${pollMs} millis`)),
      Effect.forkScoped
    )
    return {
      opened: (host: string, untilMs: number) =>
        sql`INSERT INTO circuits (host, open_until_ms) VALUES (${host}, ${untilMs})
            ON CONFLICT (host) DO UPDATE SET open_until_ms = greatest(circuits.open_until_ms, EXCLUDED.open_until_ms)`.pipe(
          Effect.asVoid,
          Effect.catchAllCause((cause) => Effect.logWarning("an open circuit could not be shared", cause))
        ),
      openUntil: (host: string) => open.get(host),
      closeAll: Effect.flatMap(Clock.currentTimeMillis, (now) =>
        sql<{ host: string }>`DELETE FROM circuits WHERE open_until_ms > ${now} RETURNING host`.pipe(
          // this process probes them at once, not after its next read
          Effect.tap(() =>
            Effect.sync(() => {
              open = new Map()
            })
          ),
          Effect.map((rows) => rows.map((r) => String(r.host)))
        )
      )
    }
  })
