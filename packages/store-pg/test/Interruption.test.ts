// Interrupting a fiber in the middle of a statement (a client that disconnects, a timeout, a lost lease, the end of a
// long call's heartbeat, SIGTERM) lets the statement finish instead of cancelling it (Database.uninterruptibleStatements).
// @effect/sql-pg cancels with `pg_cancel_backend(pid)`, a signal to the connection's backend that can arrive after
// the statement ended and the connection went back to the pool, and then cancels the next statement run there:
// stop 39's long calls answered 500 with SqlError 57014 in an INSERT of another call. On the embedded default (one
// connection) the cancel itself waited for that connection, 5 s per interruption.

import { SqlClient } from "@effect/sql"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Fiber, Layer, Schedule } from "effect"
import * as Database from "../src/Database.js"
import * as Testing from "../src/Testing.js"

const targets = await Testing.targets()

describe.each(targets)("interrupting a statement ($name)", ({ name, enabled, target }) => {
  const withSql = <A, E>(f: (sql: SqlClient.SqlClient) => Effect.Effect<A, E>) =>
    Effect.gen(function* () {
      const ctx = yield* Layer.build(Database.layer(yield* target))
      const sql = yield* Effect.provide(SqlClient.SqlClient, ctx)
      yield* sql`CREATE TABLE IF NOT EXISTS interrupted (n int)`
      yield* sql`DELETE FROM interrupted`
      return yield* f(sql)
    })

  /** Waits (up to 5 s) until a statement starting with `text` runs on the server. */
  const running = (sql: SqlClient.SqlClient, text: string) =>
    sql<{
      n: number
    }>`SELECT count(*)::int AS n FROM pg_stat_activity WHERE state = 'active' AND starts_with(query, ${text})`.pipe(
      Effect.repeat({ until: (rows) => (rows[0]?.n ?? 0) > 0, schedule: Schedule.spaced("5 millis") }),
      Effect.timeoutFail({ duration: "5 seconds", onTimeout: () => new Error(`${text}... never ran`) })
    )

  it.scopedLive.skipIf(!enabled)(
    "lets the statement finish: its write is made, no cancel is sent, the interruption waits for it",
    () =>
      withSql((sql) =>
        Effect.gen(function* () {
          const fiber = yield* Effect.fork(sql`INSERT INTO interrupted SELECT 1 FROM pg_sleep(1)`)
          yield* Effect.sleep("100 millis")
          // on the server: interrupted only once the statement runs there (a loaded machine may not have sent it yet)
          if (name === "postgres") yield* running(sql, "INSERT INTO interrupted SELECT 1 FROM pg_sleep")
          const started = Date.now()
          yield* Fiber.interrupt(fiber)
          const waited = Date.now() - started
          const rows = yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM interrupted`
          assert.strictEqual(rows[0]?.n, 1, "the interrupted INSERT was cancelled")
          // The embedded default runs its statements on this thread: the statement is over before the interruption.
          if (name === "postgres") assert.isAtLeast(waited, 100, "the interruption did not wait for the statement")
          assert.isBelow(waited, 4_000, "the interruption stalled")
        })
      ),
    60_000
  )

  it.scopedLive.skipIf(!enabled)(
    "in a transaction: the statement finishes, the transaction rolls back, the connection serves the next ones",
    () =>
      withSql((sql) =>
        Effect.gen(function* () {
          const fiber = yield* Effect.fork(
            sql.withTransaction(
              Effect.zipRight(
                sql`INSERT INTO interrupted SELECT 1 FROM pg_sleep(0.3)`,
                sql`INSERT INTO interrupted VALUES (2)`
              )
            )
          )
          yield* Effect.sleep("100 millis")
          yield* Fiber.interrupt(fiber)
          for (let i = 0; i < 20; i++) {
            const rows = yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM interrupted`
            assert.strictEqual(rows[0]?.n, 0, "the interrupted transaction was committed")
          }
        })
      ),
    60_000
  )

  it.scopedLive.skipIf(!enabled)(
    "a statement interrupted at any point leaves nothing to cancel the next one on its connection",
    () =>
      withSql((sql) =>
        Effect.gen(function* () {
          const failures: Array<string> = []
          for (let i = 0; i < 60; i++) {
            const fiber = yield* Effect.fork(sql`SELECT pg_sleep(0.002)`)
            yield* Effect.sleep(`${(i % 30) * 0.1} millis`)
            yield* Fiber.interrupt(fiber)
            const next = yield* Effect.either(sql`INSERT INTO interrupted SELECT ${i} FROM pg_sleep(0.002)`)
            if (next._tag === "Left") failures.push(`${i}: ${String(next.left.cause)}`)
          }
          assert.deepStrictEqual(failures, [])
          const rows = yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM interrupted`
          assert.strictEqual(rows[0]?.n, 60)
        })
      ),
    60_000
  )

  it.scopedLive.skipIf(!enabled || name !== "postgres")(
    "statements interrupted while they wait for a connection take none from the pool for good",
    () =>
      Effect.gen(function* () {
        const ctx = yield* Layer.build(Database.layer(yield* Testing.freshServerSchema(2)))
        const sql = yield* Effect.provide(SqlClient.SqlClient, ctx)
        const busy = yield* Effect.fork(
          Effect.all([sql`SELECT pg_sleep(0.4)`, sql`SELECT pg_sleep(0.4)`], { concurrency: 2 })
        )
        yield* Effect.sleep("50 millis")
        const waiting = yield* Effect.fork(
          Effect.all(
            Array.from({ length: 10 }, () => sql`SELECT 1`),
            { concurrency: 10 }
          )
        )
        yield* Effect.sleep("50 millis")
        yield* Fiber.interrupt(waiting)
        yield* Fiber.join(busy)
        const after = yield* Effect.all(
          Array.from({ length: 20 }, () => sql`SELECT 1`),
          { concurrency: 20 }
        ).pipe(Effect.timeout("5 seconds"), Effect.either)
        assert.isTrue(after._tag === "Right", "the pool lost its connections to interrupted statements")
      }),
    60_000
  )
})
