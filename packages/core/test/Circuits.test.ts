// Issue 22: two instances, one service. A host whose circuit one instance opened is known to another instance over
// the same PostgreSQL database within a second: the other answers at once without calling the host.
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { FetchHttpClient, HttpClientRequest } from "@effect/platform"
import { assert, describe, it } from "@effect/vitest"
import { Database, PgCircuits } from "@pdr/store-pg"
import * as Testing from "@pdr/store-pg/Testing"
import { Circuits, Policy } from "@pdr/upstream-http"
import { Duration, Effect, Either, Layer } from "effect"

const serverUp = await Testing.serverAvailable()

/** A host that always answers 503, counting its requests. */
const failingHost = Effect.acquireRelease(
  Effect.promise(async () => {
    const hits = { n: 0 }
    const server = createServer((_req, res) => {
      hits.n++
      res.writeHead(503, { "content-type": "application/json" })
      res.end("{}")
    })
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
    return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, hits, server }
  }),
  ({ server }) =>
    Effect.promise(
      () =>
        new Promise<void>((resolve) => {
          server.closeAllConnections()
          server.close(() => resolve())
        })
    )
)

const settings = (breakerFailures: number): Policy.Settings => ({
  unitBudget: Duration.millis(1500),
  perHost: 4,
  retries: 0,
  backoff: Duration.millis(20),
  breakerFailures,
  breakerPause: Duration.seconds(30)
})

describe.skipIf(!serverUp)("shared circuits", () => {
  it.scopedLive("a host whose circuit one instance opened is refused at once by another within a second", () =>
    Effect.gen(function* () {
      const host = yield* failingHost
      const target = yield* Testing.freshServerSchema()
      // an instance: its own connection pool, its own shared-circuits reader, its own policy
      const instance = (breakerFailures: number) =>
        Effect.gen(function* () {
          const db = yield* Layer.build(Database.layer(target))
          const circuits = yield* Effect.provide(PgCircuits.make(), db)
          return yield* Policy.make(settings(breakerFailures)).pipe(
            Effect.provideService(Circuits.Circuits, circuits),
            Effect.provide(FetchHttpClient.layer)
          )
        })
      const a = yield* instance(3)
      // b never opens a circuit by itself: only a circuit it hears of can stop it calling the host
      const b = yield* instance(1000)
      const send = (p: Policy.Policy) => Effect.either(p.unit("test", p.send(HttpClientRequest.get(`${host.url}/x`))))
      for (let i = 0; i < 3; i++) yield* send(a)
      const opened = performance.now()
      const first = yield* send(a)
      assert.isTrue(Either.isLeft(first) && /circuit open/.test(first.left.detail), "a's own circuit is open")
      let heard = Number.POSITIVE_INFINITY
      for (let i = 0; i < 30 && heard === Number.POSITIVE_INFINITY; i++) {
        const before = host.hits.n
        const r = yield* send(b)
        if (Either.isLeft(r) && /another instance/.test(r.left.detail)) {
          assert.strictEqual(host.hits.n, before, "b did not call the host")
          heard = performance.now() - opened
        } else yield* Effect.sleep("50 millis")
      }
      assert.isBelow(heard, 1000, "b heard of the open circuit within a second")
    })
  )
})
