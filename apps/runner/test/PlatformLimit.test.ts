// Issue 19, with real upstream requests: two spawned runners refresh pinned storefront entities through the native
// storefront adapter against loopback stores in the public products.json format. "The per-platform limit holds across
// all runners": a host that answers after 300 ms and counts the requests in flight at once sees never more than
// REFRESH_PLATFORM_CONCURRENCY, whatever the number of runners; each entity fetched once and refreshed once. "Every
// task ends ... failed (with its reason, after retries with backoff for what is transient)": a store that is gone
// ends omitted (not found), one that keeps answering 503 ends failed with the upstream's reason, the others refresh.
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import { Core } from "@pdr/core"
import { Tracking } from "@pdr/domain"
import * as Testing from "@pdr/store-pg/Testing"
import * as Fixtures from "@pdr/upstream-http/testing"
import { ManagedRuntime } from "effect"
import { afterEach, describe, expect, it } from "vitest"
import * as F from "./fixtures.js"

const server = await Testing.serverAvailable()
const closing: Array<() => Promise<void>> = []
afterEach(async () => {
  for (const close of closing.splice(0)) await close()
})

/**
 * A store host that answers each products.json after `delayMs`, counting the requests in flight at once: `missing`
 * answers 404 as a store that is gone, `failing` 503 every time until `heal()`, `blip` 503 to its first two requests.
 */
const slowStores = async (delayMs: number) => {
  let healed = false
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
      if (m[1] === "missing" || (m[1] === "failing" && !healed) || (m[1] === "blip" && asked.get("blip")! <= 2)) {
        const status = m[1] === "missing" ? 404 : 503
        res.writeHead(status, { "content-type": "application/json" }).end('{"errors":"Not Found"}')
        return
      }
      const page = Number(url.searchParams.get("page") ?? 1)
      const products = page === 1 ? Fixtures.products(m[1]!, 12) : []
      res.writeHead(200, { "content-type": "application/json; charset=utf-8" }).end(JSON.stringify({ products }))
    }, delayMs)
  })
  await new Promise<void>((resolve) => host.listen(0, "127.0.0.1", resolve))
  closing.push(() => new Promise<void>((resolve) => host.close(() => resolve())))
  return {
    url: `http://127.0.0.1:${(host.address() as AddressInfo).port}`,
    most: () => most,
    asked,
    heal: () => {
      healed = true
    }
  }
}

/** Pins one storefront entity per store name (`https://<name>.shop.example`), as `pnpm admin track add` does. */
const pin = async (w: F.World, stores: ReadonlyArray<string>) => {
  const runtime = ManagedRuntime.make(Core.layer({ target: { _tag: "Server", url: w.url, maxConnections: 2 } }))
  // one pin per store (a request takes at most the op's subjects)
  for (const s of stores)
    await runtime.runPromise(Tracking.pin("storefronts", { op: "products", subjects: [`https://${s}.shop.example`] }))
  await runtime.dispose()
}

describe.skipIf(!server)("the per-platform limit across runners", () => {
  it("two runners at REFRESH_PLATFORM_CONCURRENCY=2: at most 2 requests at the store at once; each entity fetched and refreshed once", async () => {
    const w = await F.world(0)
    closing.push(w.close)
    const stores = Array.from({ length: 12 }, (_, i) => `store${i}`)
    await pin(w, stores)
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

  it("a store that is gone ends omitted, one that keeps failing ends failed with the upstream's reason after its attempts; the others refresh; exit 4", async () => {
    const w = await F.world(0)
    closing.push(w.close)
    const good = await slowStores(20)
    // the failing store on a host of its own, as a store is in the world: its open circuit is its host's alone
    const bad = await slowStores(20)
    await pin(w, ["store0", "store1", "store2", "store3", "missing", "failing"])
    const env = w.env({
      UPSTREAMS: "storefronts=storefront",
      STOREFRONT_ORIGINS: `https://failing.shop.example=${bad.url}/failing,https://*.shop.example=${good.url}/*`,
      REFRESH_MAX_ATTEMPTS: "3"
    })
    const a = F.spawnRunner(["once"], env)
    const b = F.spawnRunner(["once"], env)
    expect(await a.exited, a.output()).toBe(4)
    expect(await b.exited, b.output()).toBe(4)
    const summary = F.lastJson(a.stdout())
    expect(summary).toMatchObject({ outcome: "failures", total: 6, refreshed: 4, omitted: 1, failed: 1, left: 0 })
    const results = new Map(
      (await F.query(w.url, "SELECT freshness_key, status, detail, credits::int FROM refresh_results")).map((r) => [
        String(r.freshness_key).split("/")[4],
        r
      ])
    )
    expect(results.get("missing.shop.example")).toMatchObject({ status: "omitted", credits: 0 })
    expect(results.get("failing.shop.example")).toMatchObject({ status: "failed", credits: 0 })
    // the reason is the units' own, not only "failed upstream"
    expect(results.get("failing.shop.example")!.detail).toMatch(
      /^every unit of this call failed upstream; nothing was billed \(upstream_failed: .+\)$/
    )
    expect(a.output()).toContain("failed: storefronts/products/https://failing.shop.example/{}: every unit")
    // transient: asked again on each attempt (the adapter's own retries within each), never past the attempts
    expect(bad.asked.get("failing")).toBeGreaterThanOrEqual(3)
    for (const s of ["store0", "store1", "store2", "store3", "missing"]) expect(good.asked.get(s), s).toBe(1)
    expect(await F.passInvariants(w.url, F.todaysPass())).toMatchObject(F.heldInvariants)
  }, 120_000)

  it("`once --retry-failed` with no pass runs the pass; the failing store fixed, `once --retry-failed` the same day refreshes it alone: exit 0, the others not asked again", async () => {
    const w = await F.world(0)
    closing.push(w.close)
    const good = await slowStores(20)
    const bad = await slowStores(20)
    await pin(w, ["store0", "store1", "failing"])
    const env = w.env({
      UPSTREAMS: "storefronts=storefront",
      STOREFRONT_ORIGINS: `https://failing.shop.example=${bad.url}/failing,https://*.shop.example=${good.url}/*`,
      REFRESH_MAX_ATTEMPTS: "2"
    })
    // --retry-failed with no pass today says so and runs the pass (nothing failed to retry yet)
    const first = F.spawnRunner(["once", "--retry-failed"], env)
    expect(await first.exited, first.output()).toBe(4)
    expect(F.lastJson(first.stdout())).toMatchObject({ outcome: "failures", total: 3, refreshed: 2, failed: 1 })
    expect(first.output()).toContain('"no pass today to retry: running the pass"')
    expect(first.output()).not.toContain("retrying the failed entities")
    const askedBefore = bad.asked.get("failing")!
    // a plain rerun the same day prints the pass as it ended and asks no store
    const rerun = F.spawnRunner(["once"], env)
    expect(await rerun.exited, rerun.output()).toBe(4)
    expect(F.lastJson(rerun.stdout())).toMatchObject({ rerun: true, failed: 1 })
    expect(bad.asked.get("failing")).toBe(askedBefore)
    // the cause fixed: the failed entity is refreshed, and only it
    bad.heal()
    const retry = F.spawnRunner(["once", "--retry-failed"], env)
    expect(
      await retry.exited,
      `${retry.output()}${JSON.stringify(await F.query(w.url, "SELECT freshness_key, status, detail FROM refresh_results"))}`
    ).toBe(0)
    expect(F.lastJson(retry.stdout())).toMatchObject({
      outcome: "complete",
      total: 3,
      refreshed: 3,
      failed: 0,
      left: 0
    })
    // the failing host's circuit, opened by the first run and shared in the database, closed for the retry: otherwise
    // its call failed at once ("another instance found it failing; probing again in 28 s") and the retry ended failed
    expect(retry.output()).toContain('"retrying the failed entities of the pass"')
    expect(retry.output()).toContain(`"circuitsClosed":["${new URL(bad.url).host}"]`)
    expect(bad.asked.get("failing")).toBe(askedBefore + 1)
    for (const s of ["store0", "store1"]) expect(good.asked.get(s), s).toBe(1)
    const points = await F.query(
      w.url,
      "SELECT entity, count(DISTINCT measured_at)::int AS n FROM history_values WHERE platform = 'storefronts' GROUP BY entity"
    )
    expect(points.map((p) => p.n)).toEqual([1, 1, 1])
    const results = await F.query(w.url, "SELECT status, count(*)::int AS n FROM refresh_results GROUP BY status")
    expect(results).toEqual([{ status: "refreshed", n: 3 }])
    expect(await F.passInvariants(w.url, F.todaysPass())).toMatchObject(F.heldInvariants)
  }, 120_000)

  it("a host down for a moment opens its circuit: the batch waits for the circuit's probe instead of spending its attempts on it, and refreshes", async () => {
    const w = await F.world(0)
    closing.push(w.close)
    const good = await slowStores(20)
    const blip = await slowStores(20)
    await pin(w, ["store0", "blip"])
    // the host fails twice (no retry within a unit): its circuit opens for 8 s; the batch's attempts after a backoff
    // (about 0.5, 1 and 2 s) would all meet the open circuit, and its last end failed (the code before: "circuit open
    // for ...; probing again in 7 s"); now an attempt refused by the open circuit comes back when it is probed
    const env = w.env({
      UPSTREAMS: "storefronts=storefront",
      STOREFRONT_ORIGINS: `https://blip.shop.example=${blip.url}/blip,https://*.shop.example=${good.url}/*`,
      UPSTREAM_RETRIES: "0",
      UPSTREAM_BREAKER_FAILURES: "2",
      UPSTREAM_BREAKER_PAUSE_MS: "8000",
      REFRESH_MAX_ATTEMPTS: "4"
    })
    const started = Date.now()
    const a = F.spawnRunner(["once"], env)
    expect(
      await a.exited,
      `${a.output()}${JSON.stringify(await F.query(w.url, "SELECT freshness_key, status, detail FROM refresh_results"))}`
    ).toBe(0)
    expect(F.lastJson(a.stdout())).toMatchObject({ outcome: "complete", total: 2, refreshed: 2, failed: 0 })
    // asked twice (both failed), then once more by the probe after the pause: never while the circuit was open
    expect(blip.asked.get("blip")).toBe(3)
    expect(Date.now() - started, "the pass waited for the circuit's pause").toBeGreaterThanOrEqual(8_000)
    expect(await F.passInvariants(w.url, F.todaysPass())).toMatchObject(F.heldInvariants)
  }, 120_000)
})
