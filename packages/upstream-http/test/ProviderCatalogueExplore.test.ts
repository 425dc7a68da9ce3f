// Issue 20: explore `run` through the provider out of the box. The shipped explore sources (provider-catalogue/
// Explore.ts) are PROVIDER_EXPLORE's default: each cites its actor's page and price, and its price in credits pays for
// its actor's items at PROVIDER_USD_PER_CREDIT; a source that cannot pay (a lower value, or an operator's source
// declared below its actor's price) stops the start naming it. A run of a shipped source against a loopback provider
// asks a charge limit that pays for every row asked, and its rows come back raw with the actor as source.
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { SyntheticUpstream } from "@pdr/upstream-synthetic"
import { ConfigProvider, Effect, Either } from "effect"
import * as ProviderCatalogue from "../src/ProviderCatalogue.js"
import * as ProviderUpstream from "../src/ProviderUpstream.js"
import * as Upstreams from "../src/Upstreams.js"
import { delivered, policy, run, unit } from "./support/Adapters.js"
import * as Fixtures from "./support/Fixtures.js"

const settingsFrom = (env: Record<string, string>) =>
  Effect.runPromise(
    Effect.either(
      ProviderUpstream.settingsConfig.pipe(
        Effect.withConfigProvider(ConfigProvider.fromMap(new Map(Object.entries({ PROVIDER_TOKEN: "t", ...env }))))
      )
    )
  )

let host: Awaited<ReturnType<typeof Fixtures.provider>>
beforeAll(async () => {
  host = await Fixtures.provider({ items: 40 })
})
afterAll(() => host.close())

describe("explore run: the shipped explore sources", () => {
  it("each source cites its actor's page and price, and its price pays for its actor's items at 0.001 USD a credit", () => {
    assert.isAbove(ProviderCatalogue.exploreSources.length, 0)
    for (const s of ProviderCatalogue.exploreSources) {
      assert.match(s.docs, /^https:\/\/apify\.com\//, s.actor)
      assert.match(s.actor, /^[\w.-]+~[\w.-]+$/, s.actor)
      assert.isAbove(s.usdPerItem, 0, s.actor)
      assert.isAtLeast((s.price.credits * 0.001) / s.price.rows, s.usdPerItem, s.actor)
    }
    assert.isTrue(Either.isRight(ProviderUpstream.checkExplore(ProviderUpstream.shippedExplore, 0.001)))
  })

  it("PROVIDER_EXPLORE defaults to the shipped sources; when set it names exactly the sources served", async () => {
    const plain = await settingsFrom({})
    assert.isTrue(Either.isRight(plain))
    if (Either.isRight(plain))
      assert.deepStrictEqual(
        plain.right.explore.map((s) => s.actor),
        ProviderCatalogue.exploreSources.map((s) => s.actor)
      )
    const own = await settingsFrom({
      PROVIDER_EXPLORE: JSON.stringify([{ actor: "a~b", price: { credits: 1, rows: 10 } }])
    })
    if (Either.isRight(own))
      assert.deepStrictEqual(own.right.explore, [{ actor: "a~b", price: { credits: 1, rows: 10 } }])
    else assert.fail(String(own.left))
    const none = await settingsFrom({ PROVIDER_EXPLORE: "[]" })
    if (Either.isRight(none)) assert.deepStrictEqual(none.right.explore, [])
    else assert.fail(String(none.left))
  })

  it("a source whose price cannot pay for its actor's items stops the start, naming it", async () => {
    // 0.0001 USD a credit: 1 credit a row pays 0.0001 USD, below automation-lab's 0.00096 USD per item
    const cheap = await settingsFrom({ PROVIDER_USD_PER_CREDIT: "0.0001" })
    assert.isTrue(Either.isLeft(cheap))
    if (Either.isLeft(cheap))
      assert.match(String(cheap.left), /automation-lab~blinkit-category-products-scraper: .*could not pay/)
    const declared = await settingsFrom({
      PROVIDER_EXPLORE: JSON.stringify([{ actor: "a~b", price: { credits: 1, rows: 10 }, usdPerItem: 0.002 }])
    })
    assert.isTrue(Either.isLeft(declared))
    if (Either.isLeft(declared)) assert.match(String(declared.left), /PROVIDER_EXPLORE.*a~b: 1 credits per 10 rows/)
    // exactly the actor's price is enough (4 credits a row at 0.001 is rank-zepto's 0.004 USD)
    assert.isTrue(
      Either.isRight(
        ProviderUpstream.checkExplore([{ actor: "x~y", price: { credits: 4, rows: 1 }, usdPerItem: 0.004 }], 0.001)
      )
    )
  })

  it("UPSTREAM_DEFAULT=provider with a token and nothing else serves explore run with the shipped sources", async () => {
    const r = await Effect.runPromise(
      Effect.either(
        Effect.flatMap(Upstreams.specConfig(SyntheticUpstream.defaults), Upstreams.make).pipe(
          Effect.withConfigProvider(
            ConfigProvider.fromMap(
              new Map([
                ["UPSTREAM_DEFAULT", "provider"],
                ["PROVIDER_TOKEN", "t"],
                ["PROVIDER_URL", "http://127.0.0.1:9"]
              ])
            )
          )
        )
      )
    )
    if (Either.isLeft(r)) return assert.fail(String(r.left))
    assert.strictEqual(r.right.servedBy?.("explore", "run").adapter, "provider")
    const listed = await Effect.runPromise(r.right.exploreSources())
    assert.deepStrictEqual(
      listed,
      ProviderCatalogue.exploreSources.map((s) => ({ name: s.actor, price: s.price }))
    )
  })

  it("a run of each shipped source asks a charge limit that pays for every row asked; rows raw, the actor as source", async () => {
    const settings = await settingsFrom({ PROVIDER_URL: host.url, PROVIDER_TOKEN: Fixtures.credentials.providerToken })
    if (Either.isLeft(settings)) return assert.fail(String(settings.left))
    const adapter = ProviderUpstream.make(await policy(), { ...settings.right, waitSeconds: 1 })
    for (const s of ProviderCatalogue.exploreSources) {
      const input = { probe: s.actor }
      const d = delivered(
        (await run(adapter.fetch(unit("explore", "run", { source: s.actor, input, limit: 10 })))).result
      )
      const started = host.started.at(-1)!
      assert.strictEqual(started.actor, s.actor)
      assert.deepStrictEqual(started.input, input)
      assert.strictEqual(started.maxItems, 10)
      // the quote (10 rows at the source's price) times 0.001 USD a credit, which pays for 10 of the actor's items
      assert.closeTo(started.charge, (10 * s.price.credits * 0.001) / s.price.rows, 1e-9, s.actor)
      assert.isAtLeast(started.charge + 1e-9, 10 * s.usdPerItem, s.actor)
      assert.strictEqual(d.rows.length, 10)
      assert.strictEqual(d.source, s.actor)
      assert.deepStrictEqual((d.rows[0] as { input: unknown }).input, input)
    }
  })
})
