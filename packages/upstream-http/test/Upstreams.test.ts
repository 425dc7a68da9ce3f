// D15 / issue 10: the router: which adapter serves a platform or an op is configuration, checked when it is built.

import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Upstream } from "@pdr/domain"
import { SyntheticUpstream } from "@pdr/upstream-synthetic"
import { ConfigProvider, Effect, Either, Layer, Logger, Option } from "effect"
import { Upstreams } from "../src/index.js"
import * as Fixtures from "./support/Fixtures.js"

const fake = (name: string, extra: Partial<Upstream.Adapter> = {}): Upstream.Adapter => ({
  name,
  fetch: (unit) => Effect.succeed({ _tag: "NotFound", source: name, detail: unit.op }),
  ...extra
})
const synthetic = Effect.runSync(SyntheticUpstream.make(SyntheticUpstream.defaults))
const routes = (text: string) => Either.getOrThrow(Upstream.parseRoutes(text, "synthetic"))

describe("Upstreams", () => {
  it("an op route wins over its platform's, the platform's over the default; sourceFor names the adapter", () => {
    const up = Either.getOrThrow(Upstream.route([synthetic, fake("a"), fake("b")], routes("forum=a, forum.comments=b")))
    assert.deepStrictEqual(
      [up.sourceFor("forum", "posts"), up.sourceFor("forum", "comments"), up.sourceFor("maps", "places")],
      ["a", "b", "synthetic"]
    )
  })

  it("explore sources come from the adapter serving explore run", async () => {
    const listed = [{ name: "a/one", price: { credits: 2, rows: 10 } }]
    const a = fake("a", {
      exploreSource: (name) => Effect.succeed(Option.fromNullable(listed.find((s) => s.name === name))),
      exploreSources: () => Effect.succeed(listed)
    })
    const routed = Either.getOrThrow(Upstream.route([synthetic, a], routes("explore.run=a")))
    assert.deepStrictEqual(await Effect.runPromise(routed.exploreSources()), listed)
    const plain = Either.getOrThrow(Upstream.route([synthetic, a], routes("")))
    assert.deepStrictEqual(
      (await Effect.runPromise(plain.exploreSources())).map((s) => s.name),
      ["synthetic/app-charts", "synthetic/podcast-episodes", "synthetic/product-launches"]
    )
  })

  it("refuses an unknown adapter, platform or op, a malformed pair, and adapters missing a needed capability", () => {
    const bad = (text: string, adapters = [synthetic, fake("a")]) =>
      Either.flatMap(Upstream.parseRoutes(text, "synthetic"), (r) => Upstream.route(adapters, r))
    assert.match(Either.getLeft(bad("forum=nope")).pipe(Option.getOrThrow), /no adapter named "nope"/)
    assert.match(Either.getLeft(bad("nowhere=a")).pipe(Option.getOrThrow), /no platform "nowhere"/)
    assert.match(Either.getLeft(bad("forum.nope=a")).pipe(Option.getOrThrow), /forum has no op "nope"/)
    assert.match(Either.getLeft(bad("forum")).pipe(Option.getOrThrow), /not platform\[\.op\]=adapter/)
    assert.match(Either.getLeft(bad("quick_commerce_a=a")).pipe(Option.getOrThrow), /cannot resolve stores/)
    assert.match(Either.getLeft(bad("explore.run=a")).pipe(Option.getOrThrow), /has no explore sources/)
    assert.isTrue(Either.isRight(bad("explore.sources=a")), "only explore run needs explore sources")
  })

  it("layerConfig: synthetic everywhere by default; UPSTREAMS routes storefronts to the native adapter", async () => {
    const sourceFor = (env: Record<string, string>) =>
      Effect.runPromise(
        Effect.map(Upstream.Upstream, (u) => u.sourceFor("storefronts", "products")).pipe(
          Effect.provide(
            Upstreams.layerConfig().pipe(
              Layer.provide(Layer.setConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(env)))))
            )
          )
        )
      )
    assert.strictEqual(await sourceFor({}), "synthetic")
    assert.strictEqual(await sourceFor({ UPSTREAMS: "storefronts=storefront" }), "storefront")
    const missing = await Effect.runPromise(
      Effect.either(
        Effect.provide(
          Upstream.Upstream,
          Upstreams.layerConfig().pipe(
            Layer.provide(Layer.setConfigProvider(ConfigProvider.fromMap(new Map([["UPSTREAMS", "forum=forum"]]))))
          )
        )
      )
    )
    assert.isTrue(Either.isLeft(missing), "the forum adapter needs its client id and secret")
  })

  describe("issue 20: the provider's mappings are checked at start", () => {
    const start = (env: Record<string, string>) =>
      Effect.runPromise(
        Effect.either(
          Effect.flatMap(Upstreams.specConfig(SyntheticUpstream.defaults), Upstreams.make).pipe(
            Effect.withConfigProvider(
              ConfigProvider.fromMap(
                new Map(Object.entries({ PROVIDER_TOKEN: "t", PROVIDER_URL: "http://127.0.0.1:9", ...env }))
              )
            )
          )
        )
      )
    const message = (r: Either.Either<unknown, unknown>) => (Either.isLeft(r) ? String(r.left) : "started")

    it("the start warns, in one line, of the served ops that sell below their actors' prices; none when the rate pays", async () => {
      const warned = async (env: Record<string, string>) => {
        const lines: Array<string> = []
        const logger = Logger.make(({ logLevel, message }) => {
          if (logLevel._tag === "Warning") lines.push(String(Array.isArray(message) ? message[0] : message))
        })
        const r = await Effect.runPromise(
          Effect.either(
            Effect.flatMap(Upstreams.specConfig(SyntheticUpstream.defaults), Upstreams.make).pipe(
              Effect.withConfigProvider(
                ConfigProvider.fromMap(
                  new Map(Object.entries({ PROVIDER_TOKEN: "t", PROVIDER_URL: "http://127.0.0.1:9", ...env }))
                )
              ),
              Effect.provide(Logger.replace(Logger.defaultLogger, logger))
            )
          )
        )
        assert.isTrue(Either.isRight(r), message(r))
        return lines.filter((l) => l.includes("sell below"))
      }
      const atDefault = await warned({ UPSTREAM_DEFAULT: "provider" })
      assert.strictEqual(atDefault.length, 1)
      assert.match(atDefault[0]!, /PROVIDER_USD_PER_CREDIT=0\.001/)
      assert.match(atDefault[0]!, /quick_commerce_b\.search 0\.1000 \/ 0\.4000/)
      assert.notInclude(atDefault[0]!, "short_video.searchPosts")
      // only the ops routed to the provider: with web_search alone on it, only its ops can be named
      const webOnly = await warned({ UPSTREAMS: "web_search=provider" })
      assert.strictEqual(webOnly.length, 1)
      assert.notInclude(webOnly[0]!, "quick_commerce_b")
      assert.deepStrictEqual(await warned({ UPSTREAM_DEFAULT: "provider", PROVIDER_USD_PER_CREDIT: "1" }), [])
    })

    it("UPSTREAM_DEFAULT=provider with a token and nothing else starts: mapped ops on the provider, the rest synthetic", async () => {
      const r = await start({ UPSTREAM_DEFAULT: "provider" })
      assert.isTrue(Either.isRight(r), message(r))
      if (Either.isRight(r)) {
        assert.deepStrictEqual(r.right.servedBy?.("web_search", "search"), {
          adapter: "provider",
          actor: "datacortex~google-search-scraper"
        })
        assert.deepStrictEqual(r.right.servedBy?.("social_network", "events"), { adapter: "synthetic" })
        assert.strictEqual(r.right.sourceFor("social_network", "events"), "synthetic")
      }
    })

    it("PROVIDER_MAPPINGS adds mappings from a file; PROVIDER_OPS overrides it", async () => {
      const file = join(mkdtempSync(join(tmpdir(), "pdr-mappings-")), "mappings.json")
      writeFileSync(file, JSON.stringify(Fixtures.mapsPlacesJson))
      const r = await start({ UPSTREAM_DEFAULT: "provider", PROVIDER_MAPPINGS: file })
      assert.isTrue(Either.isRight(r), message(r))
      if (Either.isRight(r))
        assert.deepStrictEqual(r.right.servedBy?.("maps", "places"), {
          adapter: "provider",
          actor: "fixture~maps-places"
        })
      const over = { "maps.places": { ...Fixtures.mapsPlacesJson["maps.places"], actor: "other~actor" } }
      const o = await start({
        UPSTREAM_DEFAULT: "provider",
        PROVIDER_MAPPINGS: file,
        PROVIDER_OPS: JSON.stringify(over)
      })
      if (Either.isRight(o)) assert.strictEqual(o.right.servedBy?.("maps", "places").actor, "other~actor")
      else assert.fail(message(o))
    })

    it("quick commerce per op (D3): the shipped search mappings go to the provider, resolving the forms their actors take; products, category and history stay synthetic", async () => {
      const r = await start({ UPSTREAM_DEFAULT: "provider" })
      assert.isTrue(Either.isRight(r), message(r))
      if (Either.isLeft(r)) return
      const up = r.right
      const all = ["storeId", "pincode", "latLon"] as const
      assert.deepStrictEqual(up.servedBy?.("quick_commerce_a", "search"), {
        adapter: "provider",
        actor: "automation-lab~blinkit-category-products-scraper",
        store: ["latLon"]
      })
      assert.deepStrictEqual(up.servedBy?.("quick_commerce_b", "search"), {
        adapter: "provider",
        actor: "ikmal_suzali_atr~rank-zepto",
        store: ["pincode", "latLon"]
      })
      for (const op of ["products", "category", "history"])
        assert.deepStrictEqual(up.servedBy?.("quick_commerce_a", op), { adapter: "synthetic", store: [...all] }, op)
      assert.deepStrictEqual(up.servedBy?.("web_search", "search")?.store, undefined, "no store outside quick commerce")
      const resolve = (platform: string, op: string, locator: Record<string, unknown>) =>
        Effect.runPromise(up.resolveStore(platform, op, locator))
      const pincode = { pincode: "560001", city: "Bengaluru" }
      const geo = { lat: 12.971649, lon: 77.594563 }
      // the search's actor: its forms, as given (coordinates at 4 decimals); another form is no store (a 400)
      assert.deepStrictEqual(await resolve("quick_commerce_a", "search", geo), Option.some("geo:12.9716,77.5946"))
      assert.deepStrictEqual(await resolve("quick_commerce_a", "search", pincode), Option.none())
      assert.deepStrictEqual(await resolve("quick_commerce_a", "search", { storeId: "blr-001" }), Option.none())
      assert.deepStrictEqual(await resolve("quick_commerce_b", "search", pincode), Option.some("pincode:560001"))
      assert.deepStrictEqual(await resolve("quick_commerce_b", "search", { storeId: "blr-001" }), Option.none())
      // the synthetic upstream resolves every form for the others, products and history alike
      const products = await resolve("quick_commerce_a", "products", pincode)
      assert.isTrue(Option.isSome(products) && products.value.startsWith("store:"))
      assert.deepStrictEqual(await resolve("quick_commerce_a", "history", pincode), products)
    })

    it("an operator's products mapping takes history with it; products on the provider with history elsewhere stops the start", async () => {
      const ops = Fixtures.quickCommerceJson("quick_commerce_a", "fixture~qc-pincode", "pincode")
      const r = await start({ UPSTREAM_DEFAULT: "provider", PROVIDER_OPS: JSON.stringify(ops) })
      assert.isTrue(Either.isRight(r), message(r))
      if (Either.isRight(r)) {
        const up = r.right
        for (const op of ["products", "search", "category", "history"])
          assert.strictEqual(up.sourceFor("quick_commerce_a", op), "provider", op)
        assert.deepStrictEqual(up.servedBy?.("quick_commerce_a", "history"), {
          adapter: "provider",
          store: ["pincode"]
        })
        assert.deepStrictEqual(
          await Effect.runPromise(up.resolveStore("quick_commerce_a", "history", { pincode: "560001", city: "B" })),
          Option.some("pincode:560001")
        )
      }
      // by name: search alone on the provider is served; products without its history is refused, naming both
      const search = await start({ UPSTREAMS: "quick_commerce_a.search=provider", PROVIDER_OPS: JSON.stringify(ops) })
      assert.isTrue(Either.isRight(search), message(search))
      assert.match(
        message(await start({ UPSTREAMS: "quick_commerce_a.products=provider", PROVIDER_OPS: JSON.stringify(ops) })),
        /quick_commerce_a\.products: routed to "provider" while quick_commerce_a\.history is routed to "synthetic"/
      )
      const whole = await start({ UPSTREAMS: "quick_commerce_a=provider", PROVIDER_OPS: JSON.stringify(ops) })
      assert.isTrue(Either.isRight(whole), message(whole))
      // a quick-commerce mapping whose input takes no locator form would run its actor without a location
      const { pincode: _, ...nowhere } = ops["quick_commerce_a.search"]!.input
      const blind = { "quick_commerce_a.search": { ...ops["quick_commerce_a.search"], input: nowhere } }
      assert.match(
        message(await start({ UPSTREAM_DEFAULT: "provider", PROVIDER_OPS: JSON.stringify(blind) })),
        /quick_commerce_a\.search: input names no store locator/
      )
    })

    it("an op routed to the provider by name without a mapping stops the start, naming the op", async () => {
      assert.match(
        message(await start({ UPSTREAMS: "social_network.events=provider" })),
        /social_network\.events: routed to the provider with no mapping/
      )
    })

    it("a mapping that misses a required field, names an unknown op or request field, or does not decode stops the start", async () => {
      const m = { actor: "a~b", usdPerItem: 0.001, rows: { title: "t" } }
      assert.match(
        message(
          await start({ UPSTREAM_DEFAULT: "provider", PROVIDER_OPS: JSON.stringify({ "web_search.images": m }) })
        ),
        /web_search\.images: rows\.position|rows\.imageUrl/
      )
      assert.match(
        message(await start({ UPSTREAM_DEFAULT: "provider", PROVIDER_OPS: JSON.stringify({ "maps.nothing": m }) })),
        /maps\.nothing: no such op/
      )
      assert.match(
        message(await start({ UPSTREAM_DEFAULT: "provider", PROVIDER_OPS: "{nope" })),
        /PROVIDER_OPS.*not JSON/
      )
      assert.match(
        message(
          await start({
            UPSTREAM_DEFAULT: "provider",
            PROVIDER_OPS: JSON.stringify({ "web_search.news": { ...m, usdPerItem: 0 } })
          })
        ),
        /PROVIDER_OPS/
      )
      assert.match(
        message(await start({ UPSTREAM_DEFAULT: "provider", PROVIDER_MAPPINGS: "/nonexistent/mappings.json" })),
        /cannot read/
      )
    })
  })
})
