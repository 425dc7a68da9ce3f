// Issue 22: two server processes over one PostgreSQL database behind a loopback balancer behave as one service for a
// key's rate limit (D12): the instances share its bucket, so at most the burst plus what the rate refills in the
// window (+10%) is admitted, however the balancer spreads the requests. The same setup with process-local buckets
// (SHARED_RATE_LIMITS=false) admits about twice the burst: the test tells them apart.
import { afterAll, assert, describe, it } from "@effect/vitest"
import * as Testing from "@pdr/store-pg/Testing"
import { Effect, Exit, Scope } from "effect"
import { balancer } from "./balancer.js"
import { type ServerProcess, spawnServer } from "./processes.js"

const serverUp = await Testing.serverAvailable()

const withSchema = async () => {
  const scope = Effect.runSync(Scope.make())
  const target = await Effect.runPromise(Scope.extend(Testing.freshServerSchema(), scope))
  if (target._tag !== "Server") throw new Error("expected a server target")
  return { url: target.url, close: () => Effect.runPromise(Scope.close(scope, Exit.void)) }
}

const adminCall = async (s: ServerProcess, path: string, body: unknown) => {
  const r = await fetch(`${s.admin}${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${s.token}`, "content-type": "application/json" },
    body: JSON.stringify(body)
  })
  return (await r.json()) as any
}

const rate = 2
const burst = 10

/** Two instances over one schema behind a balancer; `shared` chooses where the per-key buckets live. */
const twoInstances = async (shared: boolean, cleanups: Array<() => Promise<unknown>>) => {
  const schema = await withSchema()
  cleanups.push(schema.close)
  const env = {
    DATABASE_URL: schema.url,
    RATE_LIMIT_RPS: String(rate),
    RATE_LIMIT_BURST: String(burst),
    SHARED_RATE_LIMITS: String(shared)
  }
  const first = await spawnServer(env)
  cleanups.push(async () => first.child.kill("SIGKILL"))
  const second = await spawnServer(env)
  cleanups.push(async () => second.child.kill("SIGKILL"))
  const lb = await balancer([first.api, second.api])
  cleanups.push(lb.close)
  const account = await adminCall(first, "/admin/accounts", { name: "two", credits: 100 })
  const key = await adminCall(first, `/admin/accounts/${account.accountId}/keys`, { name: "two" })
  return { lb, key: key.key as string }
}

/** 60 authenticated requests through the balancer, 10 at a time: how many were admitted, in how long. */
const hammer = async (url: string, key: string) => {
  const t0 = performance.now()
  const statuses: Array<number> = []
  for (let round = 0; round < 6; round++) {
    const replies = await Promise.all(
      Array.from({ length: 10 }, () => fetch(`${url}/api/v1/balance`, { headers: { "x-api-key": key } }))
    )
    for (const r of replies) {
      statuses.push(r.status)
      await r.arrayBuffer()
    }
  }
  const seconds = (performance.now() - t0) / 1000
  return {
    admitted: statuses.filter((s) => s === 200).length,
    limited: statuses.filter((s) => s === 429).length,
    seconds
  }
}

describe.skipIf(!serverUp)("two instances, one service", () => {
  const cleanups: Array<() => Promise<unknown>> = []
  afterAll(async () => {
    for (const c of cleanups.reverse()) await c().catch(() => {})
  })

  it("D12: a key's rate limit holds across two instances behind a balancer (at most the burst + the refill, +10%)", async () => {
    const { lb, key } = await twoInstances(true, cleanups)
    const r = await hammer(lb.url, key)
    assert.deepStrictEqual(
      lb.served.map((n) => n >= 25),
      [true, true],
      `both instances served: ${lb.served}`
    )
    const bound = (burst + rate * r.seconds) * 1.1
    assert.isAtMost(r.admitted, bound, JSON.stringify(r))
    assert.isAtLeast(r.admitted, burst, JSON.stringify(r))
    assert.strictEqual(r.admitted + r.limited, 60)
  }, 60_000)

  it("the same with process-local buckets admits each instance's own burst (what the shared limit prevents)", async () => {
    const { lb, key } = await twoInstances(false, cleanups)
    const r = await hammer(lb.url, key)
    assert.isAbove(r.admitted, (burst + rate * r.seconds) * 1.1, JSON.stringify(r))
  }, 60_000)
})
