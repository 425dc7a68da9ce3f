// Issue 19: "the per-platform limit holds across all runners". Two spawned runners refresh pinned storefront entities
// through the native storefront adapter against a loopback store in the public products.json format, which answers
// after 300 ms and counts the requests in flight at once: never more than REFRESH_PLATFORM_CONCURRENCY, whatever the
// number of runners; each entity fetched once and refreshed once.
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import { Core } from "@pdr/core"
import { Catalogue, Demand, Freshness } from "@pdr/domain"
import * as Testing from "@pdr/store-pg/Testing"
import * as Fixtures from "@pdr/upstream-http/testing"
import { Effect, ManagedRuntime } from "effect"
import { afterEach, describe, expect, it } from "vitest"
import * as F from "./fixtures.js"

const server = await Testing.serverAvailable()
const closing: Array<() => Promise<void>> = []
afterEach(async () => {
  for (const close of closing.splice(0)) await close()
})

/** A store host that answers each products.json after `delayMs`, counting the requests in flight at once. */
const slowStores = async (delayMs: number) => {
  let inFlight = 0
  let most = 0
  const asked = new Map<string, number>()
  const host = http.createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://localhost")
    const m = /^\/([^/]+)\/products\.json$/.exec(url.pathname)
    inFlight++
    most = Math.max(most, inFlight)
    setTimeout(() => {
      inFlight--
      if (!m) {
        res.writeHead(404, { "content-type": "application/json" }).end('{"errors":"Not Found"}')
        return
      }
      asked.set(m[1]!, (asked.get(m[1]!) ?? 0) + 1)
      const page = Number(url.searchParams.get("page") ?? 1)
      const products = page === 1 ? Fixtures.products(m[1]!, 12) : []
      res.writeHead(200, { "content-type": "application/json; charset=utf-8" }).end(JSON.stringify({ products }))
    }, delayMs)
  })
  await new Promise<void>((resolve) => host.listen(0, "127.0.0.1", resolve))
  closing.push(() => new Promise<void>((resolve) => host.close(() => resolve())))
  return { url: `http://127.0.0.1:${(host.address() as AddressInfo).port}`, most: () => most, asked }
}

describe.skipIf(!server)("the per-platform limit across runners", () => {
  it("two runners at REFRESH_PLATFORM_CONCURRENCY=2: at most 2 requests at the store at once; each entity fetched and refreshed once", async () => {
    const w = await F.world(0)
    closing.push(w.close)
    const stores = Array.from({ length: 12 }, (_, i) => `store${i}`)
    // pinned as `pnpm admin track add` pins them: one storefront each
    const op = Catalogue.findOp("storefronts", "products")!
    const runtime = ManagedRuntime.make(Core.layer({ target: { _tag: "Server", url: w.url, maxConnections: 2 } }))
    await runtime.runPromise(
      Effect.flatMap(Demand.Demand, (demand) =>
        demand.pin(
          stores.map((s) => {
            const subject = `https://${s}.shop.example`
            const request = { op: "products", subjects: [subject] }
            return {
              freshnessKey: Freshness.key(op, subject, Freshness.answerFields(request, undefined)),
              platform: "storefronts",
              op: "products",
              subject,
              request
            }
          })
        )
      )
    )
    await runtime.dispose()
    const host = await slowStores(300)
    const env = w.env({
      UPSTREAMS: "storefronts=storefront",
      STOREFRONT_ORIGINS: `https://*.shop.example=${host.url}/*`,
      REFRESH_PLATFORM_CONCURRENCY: "2",
      REFRESH_CONCURRENCY: "4"
    })
    const a = F.spawnRunner(["once"], env)
    const b = F.spawnRunner(["once"], env)
    expect(await a.exited, a.output()).toBe(0)
    expect(await b.exited, b.output()).toBe(0)
    expect(host.most(), "requests at the store at once").toBeLessThanOrEqual(2)
    expect(host.most(), a.output() + b.output()).toBeGreaterThanOrEqual(1)
    expect([...host.asked.values()]).toEqual(stores.map(() => 1))
    const points = await F.query(
      w.url,
      "SELECT entity, count(DISTINCT measured_at)::int AS n, min(source) AS source FROM history_values WHERE platform = 'storefronts' GROUP BY entity"
    )
    expect(points.length).toBe(12)
    for (const p of points) expect([p.n, p.source], p.entity).toEqual([1, "storefront"])
    expect(await F.passInvariants(w.url, F.todaysPass())).toMatchObject(F.heldInvariants)
  }, 120_000)
})
