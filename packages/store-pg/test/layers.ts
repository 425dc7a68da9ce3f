// The domain services on the Postgres adapters over one storage target, for the store's own tests.
import { Accounts, Keys } from "@pdr/domain"
import { Effect, Layer, type Scope } from "effect"
import { Database, NodeCrypto, PgKeyStore, PgLedger, PgMeasurements } from "../src/index.js"

export const services = (target: Effect.Effect<Database.Target, never, Scope.Scope>) =>
  Layer.mergeAll(Keys.Keys.Default, Accounts.Accounts.Default).pipe(
    Layer.provideMerge(Layer.mergeAll(PgLedger.layer, PgKeyStore.layer, PgMeasurements.layer, NodeCrypto.layer)),
    Layer.provideMerge(Layer.unwrapScoped(Effect.map(target, Database.layer)))
  )
