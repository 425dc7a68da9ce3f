// D3 per op: a quick-commerce op's store is resolved by the adapter serving that op; a history op and the ops writing
// its points share one adapter (their store identity); a locator form the serving adapter does not take is a 400
// naming request.store before anything is spent, saying which forms it takes.
import { assert, describe, it } from "@effect/vitest"
import { Effect, Either, Option } from "effect"
import * as Catalogue from "../src/Catalogue.js"
import * as Fields from "../src/Fields.js"
import * as Plan from "../src/Plan.js"
import * as Upstream from "../src/ports/Upstream.js"
import * as Requests from "../src/Requests.js"
import { memoryStore } from "./fakes.js"

/** An adapter taking the given locator forms, naming the store by its form and the op that resolved it. */
const adapter = (name: string, forms?: ReadonlyArray<Fields.StoreForm>): Upstream.Adapter => ({
  name,
  fetch: (unit) => Effect.succeed({ _tag: "NotFound", source: name, detail: unit.op }),
  resolveStore: (_platform, op, locator) => {
    const form = Fields.storeFormOf(locator)
    return Effect.succeed(
      form !== undefined && (forms ?? Fields.storeFormNames).includes(form)
        ? Option.some(`${name}:${op}:${form}`)
        : Option.none()
    )
  },
  exploreSource: () => Effect.succeed(Option.none()),
  ...(forms ? { storeForms: () => forms, actorFor: () => "someone~actor" } : {})
})

const routed = (text: string) =>
  Either.flatMap(Upstream.parseRoutes(text, "base"), (r) =>
    Upstream.route([adapter("base"), adapter("geo", ["latLon"])], r)
  )

const pincode = { pincode: "560001", city: "Bengaluru" }
const geo = { lat: 12.97, lon: 77.59 }

describe("Upstream.route, quick commerce per op (D3)", () => {
  it("storeSharers: history and the ops measuring its subjects go together; search and category stand alone", () => {
    const names = (op: string) =>
      Upstream.storeSharers(Catalogue.findOp("quick_commerce_a", op)!)
        .map((o) => o.name)
        .sort()
    assert.deepStrictEqual(names("history"), ["history", "products"])
    assert.deepStrictEqual(names("products"), ["history", "products"])
    assert.deepStrictEqual(names("search"), ["search"])
    assert.deepStrictEqual(names("category"), ["category"])
    assert.deepStrictEqual(
      Upstream.storeSharers(Catalogue.findOp("maps", "places")!).map((o) => o.name),
      ["places"],
      "no store scope, no sharers"
    )
  })

  it("each op's store is resolved by its own route; servedBy says the forms it takes", async () => {
    const up = Either.getOrThrow(routed("quick_commerce_a.search=geo"))
    const resolve = (op: string, locator: Record<string, unknown>) =>
      Effect.runPromise(up.resolveStore("quick_commerce_a", op, locator))
    assert.deepStrictEqual(await resolve("search", geo), Option.some("geo:search:latLon"))
    assert.deepStrictEqual(await resolve("search", pincode), Option.none())
    assert.deepStrictEqual(await resolve("products", pincode), Option.some("base:products:pincode"))
    assert.deepStrictEqual(await resolve("history", pincode), Option.some("base:history:pincode"))
    assert.deepStrictEqual(up.servedBy?.("quick_commerce_a", "search"), {
      adapter: "geo",
      actor: "someone~actor",
      store: ["latLon"]
    })
    assert.deepStrictEqual(up.servedBy?.("quick_commerce_a", "category"), {
      adapter: "base",
      store: ["storeId", "pincode", "latLon"]
    })
    assert.deepStrictEqual(up.servedBy?.("maps", "places"), { adapter: "base" })
  })

  it("products apart from its history is refused, naming both; both together, or the whole app, is served", () => {
    const split = routed("quick_commerce_a.products=geo")
    assert.isTrue(Either.isLeft(split))
    if (Either.isLeft(split))
      assert.match(
        split.left,
        /quick_commerce_a\.products: routed to "geo" while quick_commerce_a\.history is routed to "base"/
      )
    const history = routed("quick_commerce_a.history=geo")
    assert.isTrue(Either.isLeft(history))
    assert.isTrue(Either.isRight(routed("quick_commerce_a.products=geo,quick_commerce_a.history=geo")))
    assert.isTrue(Either.isRight(routed("quick_commerce_a=geo")))
  })

  it.effect(
    "a form the serving adapter does not take: 400 naming request.store and the forms taken, also for a quote",
    () =>
      Effect.gen(function* () {
        const up = Either.getOrThrow(routed("quick_commerce_a.search=geo"))
        const planner = Plan.plannerOf(memoryStore().reads, up)
        const caller = { accountId: "acct_1", keyId: "key_1", prefix: "key_live_abc" }
        const decoded = yield* Requests.decode("quick_commerce_a", {
          request: { op: "search", query: "milk", store: pincode },
          estimateOnly: true
        })
        const refused = yield* Effect.flip(planner.plan(caller, decoded.op, decoded.request))
        assert.strictEqual(refused._tag, "InvalidRequest")
        if (refused._tag !== "InvalidRequest") return
        assert.strictEqual(refused.details[0]?.path, "request.store")
        assert.match(refused.details[0]?.message ?? "", /takes a store as lat with lon, not pincode with city/)
        assert.match(refused.details[0]?.message ?? "", /\(geo someone~actor\)/)
        // the same locator for products, served by the base adapter, resolves
        const products = yield* Requests.decode("quick_commerce_a", {
          request: { op: "products", subjects: ["https://app-a.example/p/atta-1"], store: pincode }
        })
        assert.strictEqual(yield* planner.resolveStore(products.op, products.request), "base:products:pincode")
        const atGeo = yield* Requests.decode("quick_commerce_a", {
          request: { op: "search", query: "milk", store: geo }
        })
        const p = yield* planner.plan(caller, atGeo.op, atGeo.request)
        assert.strictEqual(p.store, "geo:search:latLon")
      })
  )
})
