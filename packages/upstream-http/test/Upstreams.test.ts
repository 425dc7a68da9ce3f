// D15 / issue 10: the router: which adapter serves a platform or an op is configuration, checked when it is built.
import { assert, describe, it } from "@effect/vitest"
import { Upstream } from "@pdr/domain"
import { SyntheticUpstream } from "@pdr/upstream-synthetic"
import { ConfigProvider, Effect, Either, Layer, Option } from "effect"
import { Upstreams } from "../src/index.js"

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
})
