/** `pnpm refresh`: one run of the history refresh over the watch list, then exit (schedule it nightly). */

import { readFileSync } from "node:fs"
import { NodeRuntime } from "@effect/platform-node"
import { Calls } from "@pdr/domain"
import { Database, NodeCrypto, PgKeyStore, PgLedger, PgMeasurements } from "@pdr/store-pg"
import { Upstreams } from "@pdr/upstream-http"
import { SyntheticUpstream } from "@pdr/upstream-synthetic"
import { Config, Console, Effect, Layer, Schema } from "effect"
import * as Refresh from "./Refresh.js"

const settings = Config.all({
  accountId: Config.string("REFRESH_ACCOUNT_ID"),
  watchList: Config.string("REFRESH_WATCHLIST").pipe(Config.withDefault("watchlist.json"))
})

const main = Effect.gen(function* () {
  const { accountId, watchList } = yield* settings
  const target = yield* Database.targetConfig
  const knobs = yield* SyntheticUpstream.knobsConfig
  const entries = yield* Schema.decodeUnknown(Schema.parseJson(Refresh.WatchList))(readFileSync(watchList, "utf8"))
  const summary = yield* Refresh.run(accountId, entries).pipe(
    Effect.provide(
      Calls.Calls.Default.pipe(
        Layer.provide(
          Layer.mergeAll(
            PgLedger.layer,
            PgKeyStore.layer,
            PgMeasurements.layer,
            NodeCrypto.layer,
            Upstreams.layerConfig(knobs)
          )
        ),
        Layer.provide(Database.layer(target))
      )
    )
  )
  yield* Console.log(JSON.stringify(summary, null, 2))
  if (summary.failed > 0) return yield* Effect.fail(`${summary.failed} of ${summary.entries} entries failed`)
})

NodeRuntime.runMain(main)
