import { Calls, Ledger, Measurements, Requests, Upstream } from "@pdr/domain"
import { Effect, Layer } from "effect"
import { crypto, memoryStore, scriptedUpstream } from "../../packages/domain/test/fakes.js"

await Effect.runPromise(
  Effect.gen(function* () {
    const store = memoryStore()
    const calls = yield* Effect.provide(
      Calls.Calls,
      Calls.Calls.Default.pipe(
        Layer.provide(
          Layer.mergeAll(
            Layer.succeed(Ledger.Ledger, store.ledger),
            Layer.succeed(Measurements.Measurements, store.reads),
            Layer.succeed(Upstream.Upstream, scriptedUpstream({ current: () => ({ kind: "deliver", rows: 1 }) })),
            crypto
          )
        )
      )
    )
    yield* store.ledger.createAccount({ id: "a", name: "a" })
    yield* store.ledger.grant({ accountId: "a", credits: 1e9, reason: "x" })
    const caller = { accountId: "a", keyId: "k", prefix: "p", spendable: 100 }
    const body = { request: { op: "places", subjects: Array.from({ length: 10 }, (_, i) => `ChIJbenchstored${i}`) } }
    yield* calls.call(caller, "maps", body)
    const decoded = yield* Requests.decode("maps", body)
    const N = 3000
    let t = performance.now()
    for (let i = 0; i < N; i++) yield* calls.plan(caller, decoded.op, decoded.request)
    console.log("plan us/op", (((performance.now() - t) * 1000) / N).toFixed(1))
    t = performance.now()
    for (let i = 0; i < N; i++) yield* calls.call(caller, "maps", body)
    console.log("call us/op", (((performance.now() - t) * 1000) / N).toFixed(1))
  })
)
