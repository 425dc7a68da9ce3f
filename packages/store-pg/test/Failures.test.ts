// D102: what a failed buffered write's cause says (Failures.refusedWrite), on PostgreSQL and the embedded default: the
// database's own refusal of the statement (a constraint, a value) is a refusal; a connection refused or lost, a
// backend terminated (57P01), a deadlock victim and an interruption are not (written again, they succeed).
import { createServer } from "node:net"
import { SqlClient, SqlError } from "@effect/sql"
import { assert, describe, it, layer } from "@effect/vitest"
import { Cause, Effect, Exit, FiberId } from "effect"
import pg from "pg"
import { Database, Failures } from "../src/index.js"
import * as Testing from "../src/Testing.js"
import { services } from "./layers.js"

const targets = await Testing.targets()

/** The cause of a failed effect. */
const causeOf = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.map(Effect.exit(effect), (exit) => (Exit.isFailure(exit) ? exit.cause : Cause.empty))

/** A connection the server end closes at once (as a database that drops it). */
const lost = Effect.flatMap(Effect.promise(Testing.droppedConnection), (cause) =>
  Effect.fail(new SqlError.SqlError({ cause, message: "lost" }))
)

/** A connection refused (nothing listens on the port). */
const refused = Effect.tryPromise({
  try: async () => {
    const server = createServer()
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
    const port = (server.address() as { port: number }).port
    await new Promise<void>((resolve) => server.close(() => resolve()))
    await new pg.Client({ host: "127.0.0.1", port, user: "x", database: "x" }).connect()
  },
  catch: (cause) => new SqlError.SqlError({ cause, message: "refused" })
})

const withCode = (code: string) =>
  new SqlError.SqlError({ cause: Object.assign(new Error(code), { code, severity: "FATAL" }), message: code })

for (const t of targets) {
  describe.skipIf(!t.enabled)(`Failures.refusedWrite on ${t.name}`, () => {
    layer(services(t.target), { timeout: "60 seconds" })((it) => {
      it.effect("the database's own refusal is a refusal, as a failure or as a defect", () =>
        Effect.gen(function* () {
          const sql = yield* SqlClient.SqlClient
          yield* sql`CREATE TEMP TABLE refusals (id int PRIMARY KEY, n int CHECK (n > 0))`
          assert.isTrue(Failures.refusedWrite(yield* causeOf(sql`INSERT INTO refusals VALUES (1, 0)`)), "a check")
          yield* sql`INSERT INTO refusals VALUES (1, 1)`
          const duplicate = yield* causeOf(Effect.orDie(sql`INSERT INTO refusals VALUES (1, 1)`))
          assert.isTrue(Failures.refusedWrite(duplicate), "a unique key, as a defect")
          assert.isTrue(Failures.refusedWrite(yield* causeOf(sql`SELECT 1 / 0`)), "a division by zero")
        })
      )
    })
  })
}

describe("Failures.refusedWrite: a database not reached is not a refusal", () => {
  it.effect(
    "a connection lost or refused, a backend terminated or shutting down, too many connections, a deadlock victim, an interruption",
    () =>
      Effect.gen(function* () {
        assert.isFalse(Failures.refusedWrite(yield* causeOf(lost)), "a connection closed by the other end")
        assert.isFalse(Failures.refusedWrite(yield* causeOf(refused)), "a connection refused")
        assert.isFalse(
          Failures.refusedWrite(yield* causeOf(Effect.orDie(refused))),
          "a connection refused, as a defect"
        )
        for (const code of [
          "57P01",
          "57P03",
          "57014",
          "55P03",
          "25006",
          "53300",
          "53100",
          "58030",
          "08006",
          "40P01",
          "40001"
        ])
          assert.isFalse(Failures.refusedWrite(Cause.fail(withCode(code))), code)
        assert.isTrue(Failures.refusedWrite(Cause.fail(withCode("23505"))), "a unique violation is the write's own")
        assert.isFalse(Failures.refusedWrite(Cause.interrupt(FiberId.none)), "an interruption")
        assert.isFalse(Failures.refusedWrite(Cause.empty), "no failure")
        assert.isTrue(
          Failures.refusedWrite(Cause.die(new TypeError("a bug"))),
          "not the database's: a bug, refused again"
        )
      })
  )
})

// D127, D130: a connection the database refuses for now is waited for (DATABASE_CONNECT_WAIT_MS); one it refuses for
// good (no such role or database, a wrong password), or a statement it was sent, is not
describe("Database.refusedForNow: a new connection refused for a moment", () => {
  const acquire = (code: string, message = code) =>
    new SqlError.SqlError({
      cause: Object.assign(new Error(message), { code }),
      message: "Failed to acquire connection for transaction"
    })
  it("a restart, a moving address or name, no slot left: waited for; a refusal of the session or a sent statement: not", () => {
    for (const code of ["ECONNREFUSED", "EHOSTUNREACH", "ENETUNREACH", "EAI_AGAIN", "ECONNRESET", "57P03", "53300"])
      assert.isTrue(Database.refusedForNow(acquire(code)), code)
    for (const code of ["28P01", "28000", "3D000", "ENOTFOUND", "42P01"])
      assert.isFalse(Database.refusedForNow(acquire(code)), code)
    assert.isTrue(Database.refusedForNow(acquire("", "Connection terminated unexpectedly")), "ended as it was made")
    assert.isFalse(
      Database.refusedForNow(
        new SqlError.SqlError({ cause: withCode("53300").cause, message: "Failed to execute statement" })
      ),
      "a statement that was sent"
    )
  })
})
