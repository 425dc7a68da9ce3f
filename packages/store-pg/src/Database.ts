/** The SQL client of the store: a real PostgreSQL server when DATABASE_URL is set, else the embedded default. */
import { PgClient } from "@effect/sql-pg"
import { Config, Effect, Layer, Option, Redacted } from "effect"
import * as Embedded from "./Embedded.js"
import * as Migrations from "./Migrations.js"

/** Where the data lives. */
export type Target =
  | { readonly _tag: "Server"; readonly url: string; readonly maxConnections?: number }
  | { readonly _tag: "Embedded"; readonly dataDir: string | undefined }

/** PgClient (and SqlClient) on a target, with the migrations run. */
export const layer = (target: Target) =>
  Layer.unwrapScoped(
    Effect.gen(function* () {
      const url = target._tag === "Server" ? target.url : yield* Embedded.start(target.dataDir)
      const client = PgClient.layer({
        url: Redacted.make(url),
        maxConnections: target._tag === "Embedded" ? 1 : (target.maxConnections ?? 10),
        applicationName: "pdr"
      })
      return Layer.effectDiscard(Migrations.run).pipe(Layer.provideMerge(client))
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
