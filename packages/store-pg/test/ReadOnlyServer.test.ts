// D124 (a failover): the pool's connections to a server that takes no writes (25006: a standby, or the old primary
// after a failover, reached at an address that has since moved) are closed once they answer so, and the statement is
// run again on another connection. Before, such a connection was handed out again and again (a busy pool's
// connections never idle out), and every write on it failed for as long as it lived, after the new primary had taken
// over. Here a role's sessions are made read-only (`default_transaction_read_only`) while the pool connects, then the
// role's new sessions writable again: the pool holds connections that refuse writes, as after a failover, while new
// ones take them.
import { SqlClient } from "@effect/sql"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Layer } from "effect"
import { Database, PgLedger } from "../src/index.js"
import * as Testing from "../src/Testing.js"

const serverOk = await Testing.serverAvailable()

/** Runs `text` as the superuser of the test server. */
const admin = (text: string) => Effect.promise(() => Testing.asSuperuser(text))

describe.skipIf(!serverOk)("a pooled connection to a server that takes no writes", () => {
  it.scopedLive("is closed once it refuses a write, and the write is made on a new connection", () =>
    Effect.gen(function* () {
      const target = yield* Testing.freshServerSchema()
      if (target._tag !== "Server") throw new Error("expected a server target")
      const schema = new URL(target.url).searchParams.get("options")!.replace("-c search_path=", "")
      const role = `pdr_ro_${schema.slice(2)}`
      yield* Effect.acquireRelease(admin(`CREATE ROLE ${role} LOGIN; GRANT ALL ON SCHEMA ${schema} TO ${role}`), () =>
        admin(`DROP SCHEMA IF EXISTS ${schema} CASCADE; DROP OWNED BY ${role}; DROP ROLE ${role}`)
      )
      const url = new URL(target.url)
      url.username = role
      const context = yield* Layer.build(Database.layer({ ...target, url: url.toString(), maxConnections: 2 }))
      const sql = yield* Effect.provide(SqlClient.SqlClient, context)
      yield* sql`CREATE TABLE written (n integer)`

      // the role's sessions read-only; the pool's connections cut, then both made again (read-only) and given back
      yield* admin(`ALTER ROLE ${role} SET default_transaction_read_only = on`)
      yield* admin(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = '${role}'`)
      yield* Effect.sleep("200 millis")
      const readOnly = yield* Effect.all(
        [sql`SELECT current_setting('transaction_read_only') AS ro, pg_sleep(0.1)`, sql`SELECT pg_sleep(0.1)`],
        { concurrency: 2 }
      )
      expect(readOnly[0]![0]!["ro"]).toBe("on")
      // the server takes writes again for new sessions (the new primary): the pooled ones still refuse them
      yield* admin(`ALTER ROLE ${role} RESET default_transaction_read_only`)

      // a write on a pooled connection: refused (25006), run again on another (as every statement safe to repeat
      // is, `againWhileCut`), written on a new connection
      yield* PgLedger.againWhileCut(sql`INSERT INTO written VALUES (1)`)
      // no connection that refuses writes is left in the pool: each next write is written on its first run
      for (let n = 2; n <= 6; n++) {
        const exit = yield* Effect.exit(sql`INSERT INTO written VALUES (${n})`)
        expect(Exit.isSuccess(exit), `write ${n}: ${Exit.isFailure(exit) ? String(exit.cause) : ""}`).toBe(true)
      }
      // concurrent writes too (both of the pool's connections)
      yield* Effect.all([sql`INSERT INTO written VALUES (7)`, sql`INSERT INTO written VALUES (8)`], {
        concurrency: 2
      })
      const rows = yield* sql<{ n: number }>`SELECT n FROM written ORDER BY n`
      expect(rows.map((r) => r.n)).toEqual([1, 2, 3, 4, 5, 6, 7, 8])
      const sessions = yield* sql<{
        ro: string
      }>`SELECT current_setting('transaction_read_only') AS ro`
      expect(sessions[0]!.ro).toBe("off")
    })
  )

  it("a read-only refusal counts as a connection to replace, not a refusal of the statement", () => {
    const refusal = (code: string) =>
      ({ _tag: "SqlError", message: "x", cause: { code, severity: "ERROR" } }) as unknown as Parameters<
        typeof PgLedger.connectionCut
      >[0]
    expect(PgLedger.connectionCut(refusal("25006"))).toBe(true)
    expect(PgLedger.readOnlyServer(refusal("25006"))).toBe(true)
    expect(PgLedger.connectionCut(refusal("23505"))).toBe(false)
    expect(PgLedger.connectionCut(refusal("42P01"))).toBe(false)
  })
})
