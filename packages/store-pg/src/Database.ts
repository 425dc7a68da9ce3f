/** The SQL client of the store: a real PostgreSQL server when DATABASE_URL is set, else the embedded default. */

import { Reactivity } from "@effect/experimental"
import { SqlClient, type SqlConnection } from "@effect/sql"
import { PgClient } from "@effect/sql-pg"
import { Config, Effect, Layer, Option, Redacted } from "effect"
import * as Embedded from "./Embedded.js"
import * as Migrations from "./Migrations.js"

/** Where the data lives. */
export type Target =
  | { readonly _tag: "Server"; readonly url: string; readonly maxConnections?: number }
  | { readonly _tag: "Embedded"; readonly dataDir: string | undefined }

/**
 * A connection whose statements cannot be interrupted: a fiber interrupted in the middle of one (a client that
 * disconnects, a timeout, a lost lease, a long call's heartbeat at the call's end, SIGTERM) waits for the statement
 * to end, and the interruption goes on from there (a transaction then rolls back as for any other exit).
 *
 * Why: @effect/sql-pg cancels an interrupted statement with `SELECT pg_cancel_backend(pid)` from another connection
 * and then gives the connection back to the pool. The cancel is a signal to the backend process, not to a statement:
 * when it is handled after the statement ended (the backend busy, the machine loaded), it cancels the next statement
 * run on that connection, someone else's (stop 39: long calls answered 500 with SqlError 57014 in another call's
 * INSERT). On the embedded default's single connection the cancel waited for that connection. Our statements are
 * short; waiting for one is cheaper than a statement of another request failing. Streams are left as they are (the
 * store reads none).
 */
const uninterruptibleStatements = (connection: SqlConnection.Connection): SqlConnection.Connection => ({
  execute: (sql, params, transformRows) => Effect.uninterruptible(connection.execute(sql, params, transformRows)),
  executeRaw: (sql, params) => Effect.uninterruptible(connection.executeRaw(sql, params)),
  executeValues: (sql, params) => Effect.uninterruptible(connection.executeValues(sql, params)),
  executeUnprepared: (sql, params, transformRows) =>
    Effect.uninterruptible(connection.executeUnprepared(sql, params, transformRows)),
  executeStream: connection.executeStream
})

/**
 * The SqlClient of the store: @effect/sql-pg's pool and compiler, every statement run through
 * `uninterruptibleStatements` on a connection taken from the pool for it (or the transaction's), as PgClient does.
 */
const client = (config: PgClient.PgClientConfig) =>
  Layer.scoped(
    SqlClient.SqlClient,
    Effect.gen(function* () {
      const pg = yield* PgClient.make(config)
      // taking a connection is not interrupted either: PgClient's `reserve` ignores an interruption while it waits
      // for the pool, and the connection the pool hands over later would never be given back
      const acquirer = Effect.uninterruptible(Effect.map(pg.reserve, uninterruptibleStatements))
      return yield* SqlClient.make({
        acquirer,
        transactionAcquirer: acquirer,
        compiler: PgClient.makeCompiler(),
        spanAttributes: [["db.system.name", "postgresql"]]
      })
    })
  ).pipe(Layer.provide(Reactivity.layer))

/** SqlClient on a target, with the migrations run. */
export const layer = (target: Target) =>
  Layer.unwrapScoped(
    Effect.gen(function* () {
      const url = target._tag === "Server" ? target.url : yield* Embedded.start(target.dataDir)
      const sql = client({
        url: Redacted.make(url),
        maxConnections: target._tag === "Embedded" ? 1 : (target.maxConnections ?? 10),
        applicationName: "pdr"
      })
      return Layer.effectDiscard(Migrations.run).pipe(Layer.provideMerge(sql))
    })
  )

/** Reads DATABASE_URL and DATA_DIR (default `.data`). */
export const targetConfig = Config.all({
  url: Config.option(Config.string("DATABASE_URL")),
  dataDir: Config.string("DATA_DIR").pipe(Config.withDefault(".data")),
  pool: Config.integer("DATABASE_POOL").pipe(Config.withDefault(10))
}).pipe(
  Config.map(
    ({ url, dataDir, pool }): Target =>
      Option.match(url, {
        onNone: () => ({ _tag: "Embedded", dataDir }),
        onSome: (url) => ({ _tag: "Server", url, maxConnections: pool })
      })
  )
)
