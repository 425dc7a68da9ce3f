// Issue 20 end to end on PostgreSQL: a deployment started with UPSTREAM_DEFAULT=provider, a token and nothing else
// (plus PROVIDER_OPS for one operator mapping) serves every mapped op through the provider against a loopback
// provider that serves each actor's recorded items: billed as quoted, rows valid, stored and re-served free; a run
// stopped on its charge limit is billed for what it delivered, stored as incomplete and fetched again for more;
// `GET /api/v1/platforms` says which adapter (and actor) serves each op; unmapped ops stay on the synthetic upstream.
import { readFileSync } from "node:fs"
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { Upstream } from "@pdr/domain"
import * as Testing from "@pdr/store-pg/Testing"
import { Upstreams } from "@pdr/upstream-http"
import * as ProviderCatalogue from "@pdr/upstream-http/src/ProviderCatalogue.js"
import * as Fixtures from "@pdr/upstream-http/testing"
import { ConfigProvider, type Context, Effect, Layer } from "effect"
import { account, balance, post, type Running, start } from "./harness.js"

const serverUp = await Testing.serverAvailable()
const recorded = (actor: string): ReadonlyArray<unknown> =>
  JSON.parse(
    readFileSync(
      new URL(`../../../packages/upstream-http/test/fixtures/provider/${actor}.json`, import.meta.url),
      "utf8"
    )
  )
const search = "datacortex~google-search-scraper"
const reviews = "coder_zoro~google-play-app-reviews-scraper"

describe.skipIf(!serverUp)("the shipped provider catalogue, end to end on PostgreSQL", () => {
  let server: Running
  let key: string
  let provider: Awaited<ReturnType<typeof Fixtures.provider>>
  let upstream: Context.Tag.Service<Upstream.Upstream>

  beforeAll(async () => {
    provider = await Fixtures.provider({
      datasets: { [search]: recorded(search), [reviews]: recorded(reviews) },
      capped: [search]
    })
    const env = new Map([
      ["UPSTREAM_DEFAULT", "provider"],
      ["PROVIDER_URL", provider.url],
      ["PROVIDER_TOKEN", Fixtures.credentials.providerToken],
      ["PROVIDER_WAIT_S", "1"],
      ["PROVIDER_OPS", JSON.stringify(Fixtures.mapsPlacesJson)]
    ])
    upstream = await Effect.runPromise(
      Effect.flatMap(Upstreams.specConfig(), Upstreams.make).pipe(
        Effect.withConfigProvider(ConfigProvider.fromMap(env))
      )
    )
    server = await start({ options: { upstream: Layer.succeed(Upstream.Upstream, upstream) } })
    key = (await account(server, 100_000, "provider-catalogue")).key
  }, 60_000)
  afterAll(async () => {
    await server?.close()
    await provider?.close()
  })

  it("says who serves each op: the shipped actors, the operator's mapping, the synthetic upstream for the rest", async () => {
    assert.deepStrictEqual(upstream.servedBy?.("web_search", "playReviews"), { adapter: "provider", actor: reviews })
    assert.deepStrictEqual(upstream.servedBy?.("maps", "places"), { adapter: "provider", actor: "fixture~maps-places" })
    assert.deepStrictEqual(upstream.servedBy?.("contacts", "reveal"), { adapter: "synthetic" })
    const r = await fetch(`${server.api}/api/v1/platforms`)
    const body = (await r.json()) as {
      platforms: Array<{ platform: string; ops: Array<{ op: string; servedBy?: unknown }> }>
    }
    const op = (p: string, o: string) => body.platforms.find((x) => x.platform === p)!.ops.find((x) => x.op === o)!
    assert.deepStrictEqual(op("web_search", "search").servedBy, { adapter: "provider", actor: search })
    assert.deepStrictEqual(op("contacts", "reveal").servedBy, { adapter: "synthetic" })
  })

  it("playReviews through its actor: billed as quoted, valid rows, stored and served again free", async () => {
    const request = { op: "playReviews", subjects: ["com.whatsapp"], limit: 2 }
    const quote = await post(server, "/api/v1/platforms/web_search", { request, estimateOnly: true }, key)
    const quoted = quote.body.estimate.credits as number
    const before = await balance(server, key)
    const r = await post(server, "/api/v1/platforms/web_search", { request }, key)
    assert.strictEqual(r.status, 200, r.text)
    assert.strictEqual(r.body.cost.creditsCharged, quoted)
    assert.strictEqual(r.body.coverage[0].complete, true, "every review asked came")
    assert.strictEqual(await balance(server, key), before - quoted)
    assert.deepStrictEqual(
      r.body.data.map((row: any) => [row.reviewId, row.rating, row.postedAt, row.source]),
      [
        ["gp:AOqpTOE1xYz", 5, "2024-05-18T14:02:11.000Z", "provider"],
        ["gp:AOqpTOE2aBc", 2, "2024-05-17T09:30:00.000Z", "provider"]
      ]
    )
    const started = provider.started.filter((s) => s.actor === reviews)
    assert.deepStrictEqual(started.at(-1)!.input, { app_id: "com.whatsapp", review_count: 2 })
    assert.strictEqual(started.at(-1)!.charge, 0.006, "the mapping's price per item for the rows asked")
    const again = await post(server, "/api/v1/platforms/web_search", { request }, key)
    assert.strictEqual(again.body.cost.creditsCharged, 0)
    assert.deepStrictEqual([again.body.coverage[0].status, again.body.coverage[0].complete], ["stored", true])
    assert.strictEqual(provider.started.filter((s) => s.actor === reviews).length, started.length, "no new run")
  })

  it("explore run out of the box: the shipped sources listed with their price, a run billed per row, rows raw", async () => {
    const r = await fetch(`${server.api}/api/v1/platforms`)
    const body = (await r.json()) as {
      platforms: Array<{ platform: string; ops: Array<{ op: string; sources?: ReadonlyArray<unknown> }> }>
    }
    const run = body.platforms.find((p) => p.platform === "explore")!.ops.find((o) => o.op === "run")!
    assert.deepStrictEqual(
      run.sources,
      ProviderCatalogue.exploreSources.map((s) => ({ name: s.actor, price: s.price }))
    )
    const zepto = "ikmal_suzali_atr~rank-zepto"
    const input = { keywords: ["atta"], locations: [{ lat: 28.4595, lon: 77.0266, label: "Gurugram" }] }
    const request = { op: "run", source: zepto, input, limit: 3 }
    const before = await balance(server, key)
    const ran = await post(server, "/api/v1/platforms/explore", { request }, key)
    assert.strictEqual(ran.status, 200, ran.text)
    assert.strictEqual(ran.body.cost.creditsCharged, 12, "3 rows at 4 credits a row")
    assert.strictEqual(await balance(server, key), before - 12)
    assert.strictEqual(ran.body.data.length, 3)
    for (const row of ran.body.data) assert.strictEqual(row.source, zepto)
    const started = provider.started.filter((s) => s.actor === zepto).at(-1)!
    assert.deepStrictEqual(started.input, input)
    assert.closeTo(started.charge, 0.012, 1e-9, "the quote times 0.001 USD a credit: 3 items at 0.004 USD")
  })

  it("a run stopped on its charge limit: billed for what it delivered, stored as incomplete, fetched again for more", async () => {
    const two = { op: "search", query: "adidas", pages: 2 }
    const r = await post(server, "/api/v1/platforms/web_search", { request: two }, key)
    assert.strictEqual(r.status, 200, r.text)
    assert.strictEqual(r.body.cost.creditsCharged, 1, "one page delivered of the two quoted")
    assert.deepStrictEqual([r.body.coverage[0].status, r.body.coverage[0].complete], ["fetched", false])
    for (const row of r.body.data) assert.strictEqual(row.page, 1)
    const runs = provider.started.filter((s) => s.actor === search).length
    const more = await post(server, "/api/v1/platforms/web_search", { request: two }, key)
    assert.strictEqual(more.body.coverage[0].status, "fetched", "two pages were never delivered: fetched again")
    assert.strictEqual(more.body.cost.creditsCharged, 1)
    assert.strictEqual(provider.started.filter((s) => s.actor === search).length, runs + 1)
  })
})
