// D15 / issue 10: the provider adapter against a loopback actor-run API: start a run with maxItems and a charge limit
// from our quote, keep its id, wait and poll until it ends, read the dataset; a per-op mapping and explore `run`.
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { Either, Redacted, Schema } from "effect"
import * as Mapping from "../src/Mapping.js"
import * as ProviderCatalogue from "../src/ProviderCatalogue.js"
import * as ProviderUpstream from "../src/ProviderUpstream.js"
import { delivered, failed, policy, run, tight, unit } from "./support/Adapters.js"
import { recorded } from "./support/Catalogue.js"
import * as Fixtures from "./support/Fixtures.js"

let host: Awaited<ReturnType<typeof Fixtures.provider>>
let adapter: ReturnType<typeof ProviderUpstream.make>

const settings = (url: string, actor = "fixture~maps-places"): ProviderUpstream.Settings => ({
  url,
  token: Redacted.make(Fixtures.credentials.providerToken),
  ops: Either.getOrThrow(
    Mapping.decodeMappings(
      {
        "maps.places": { ...Fixtures.mapsPlacesJson["maps.places"], actor },
        "maps.search": {
          actor: "fixture~maps-search",
          usdPerItem: 0.001,
          input: { searchStringsArray: ["$query"], locationQuery: "$request.location", maxCrawledPlaces: "$rows" },
          rows: Fixtures.mapsPlacesJson["maps.places"].rows
        },
        "maps.reviews": {
          // an incomplete mapping: its rows do not decode with the review row Schema
          actor: "fixture~maps-reviews",
          usdPerItem: 0.001,
          input: {},
          rows: { text: "title" }
        }
      },
      "test"
    )
  ),
  explore: [{ actor: "fixture~app-charts", price: { credits: 1, rows: 10 } }],
  usdPerCredit: 0.001,
  waitSeconds: 1
})
const place = "ChIJN1t_tDeuEmsRUsoyG83frY4"

let policy0: Awaited<ReturnType<typeof policy>>

beforeAll(async () => {
  policy0 = await policy()
  host = await Fixtures.provider()
  adapter = ProviderUpstream.make(await policy(), settings(host.url))
})
afterAll(() => host.close())

describe("ProviderUpstream", () => {
  it("a mapped op: the input from our request, maxItems and a charge limit from the quote, rows and a point from items", async () => {
    const d = delivered((await run(adapter.fetch(unit("maps", "places", { subjects: [place] }, place)))).result)
    const started = host.started.at(-1)!
    assert.deepStrictEqual(started.input, { placeIds: [place], maxCrawledPlaces: 1 })
    assert.strictEqual(started.maxItems, 1)
    // the mapping's price per item (0.004 USD) for the one row asked
    assert.strictEqual(started.charge, 0.004)
    assert.strictEqual(d.rows.length, 1)
    assert.strictEqual(d.rows[0]!["placeId"], place)
    assert.strictEqual(d.rows[0]!["name"], "Cafe Lumen 1")
    assert.deepStrictEqual(d.points, [{ subject: place, metrics: { rating: 3.5, reviews: 1000 } }])
    assert.strictEqual(d.source, "provider")
    assert.isUndefined(
      host.hits.get("/v2/acts/fixture~maps-places/run-sync-get-dataset-items"),
      "never the sync endpoint"
    )
    const runId = [...host.hits.keys()].find((k) => k.startsWith("/v2/actor-runs/"))
    assert.isDefined(runId, "the run was polled by its id")
  })

  it("a mapping whose rows do not fit the op's row Schema fails the unit with a clear detail, nothing passed on", async () => {
    const r = (await run(adapter.fetch(unit("maps", "reviews", { subjects: [place], limit: 5 }, place)))).result
    assert.match(failed(r).detail, /^row 1 is not a maps reviews row/)
  })

  it("a list op fills the input template from the request and caps the run with maxItems", async () => {
    const d = delivered(
      (await run(adapter.fetch(unit("maps", "search", { query: "coffee", location: "Sydney", limit: 25 })))).result
    )
    assert.strictEqual(d.rows.length, 25)
    assert.deepStrictEqual(host.started.at(-1)!.input, {
      searchStringsArray: ["coffee"],
      locationQuery: "Sydney",
      maxCrawledPlaces: 25
    })
    assert.strictEqual(host.started.at(-1)!.maxItems, 25)
  })

  it("a run's charge limit is rounded up to the provider's cents of cents; a source priced 0 credits is refused", () => {
    assert.deepStrictEqual(
      [0.00012, 0.02, 0.0001, 0.00025, 0.047999999999999994, 0.1].map(ProviderUpstream.chargeLimit),
      ["0.0002", "0.0200", "0.0001", "0.0003", "0.0480", "0.1000"]
    )
    const decode = Schema.decodeUnknownEither(ProviderUpstream.ExploreSource)
    assert.isTrue(Either.isLeft(decode({ actor: "a~b", price: { credits: 0, rows: 10 } })))
    assert.isTrue(Either.isLeft(decode({ actor: "a~b", price: { credits: 1, rows: 0 } })))
    assert.isTrue(Either.isRight(decode({ actor: "a~b", price: { credits: 1, rows: 10 } })))
  })

  it("explore run: the source is the actor id, rows raw, its price from configuration", async () => {
    const e = delivered(
      (
        await run(
          adapter.fetch(unit("explore", "run", { source: "fixture~app-charts", input: { country: "us" }, limit: 7 }))
        )
      ).result
    )
    assert.strictEqual(e.rows.length, 7)
    assert.strictEqual(e.source, "fixture~app-charts")
    assert.deepStrictEqual(host.started.at(-1)!.input, { country: "us" })
    assert.strictEqual(host.started.at(-1)!.charge, 0.0007)
    const known = await run(adapter.exploreSource!("fixture~app-charts").pipe((x) => x as never))
    assert.isTrue(known.result._tag === "Right")
  })

  it("an empty dataset for a subject is not_found; a failed run, a missing actor, a wrong token fail or are omitted", async () => {
    const empty = ProviderUpstream.make(await policy(), settings(host.url, "fixture~empty"))
    const none = (await run(empty.fetch(unit("maps", "places", { subjects: [place] }, place)))).result
    assert.isTrue(none._tag === "Right" && none.right._tag === "NotFound")
    const broken = ProviderUpstream.make(await policy(), settings(host.url, "fixture~fail"))
    assert.match(
      failed((await run(broken.fetch(unit("maps", "places", { subjects: [place] }, place)))).result).detail,
      /ended FAILED/
    )
    // issue 20: an unknown actor or a refused token is the mapping's failure (upstream_failed), never not_found
    const missing = ProviderUpstream.make(await policy(), settings(host.url, "fixture~missing"))
    const gone = (await run(missing.fetch(unit("maps", "places", { subjects: [place] }, place)))).result
    assert.match(
      failed(gone).detail,
      /^mapping maps\.places \(fixture~missing\): the provider has no such actor or run \(404\)/
    )
    const wrong = ProviderUpstream.make(await policy(), { ...settings(host.url), token: Redacted.make("nope") })
    assert.match(
      failed((await run(wrong.fetch(unit("maps", "places", { subjects: [place] }, place)))).result).detail,
      /^mapping maps\.places \(fixture~maps-places\): the provider refused the token \(401\)/
    )
  })

  it("a run that outlasts the unit's budget is aborted by its id, not left spending", async () => {
    const slow = ProviderUpstream.make(await policy(tight), settings(host.url, "fixture~slow"))
    const { result, ms } = await run(slow.fetch(unit("maps", "places", { subjects: [place] }, place)))
    assert.match(failed(result).detail, /^timeout/)
    assert.isBelow(ms, 2500)
    const runId = `run${host.started.length}`
    await new Promise((done) => setTimeout(done, 300))
    assert.deepStrictEqual(host.aborted, [runId])
  })

  it("429 and 500 on the start are retried; a hang, malformed JSON and a web page fail the unit", async () => {
    for (const [actor, expect] of [
      ["fixture~ratelimited", "rows"],
      ["fixture~flaky", "rows"],
      ["fixture~hang", /^timeout/],
      ["fixture~malformed", /malformed JSON/],
      ["fixture~html", /not JSON/]
    ] as const) {
      const a = ProviderUpstream.make(await policy(actor === "fixture~hang" ? tight : {}), settings(host.url, actor))
      const r = (await run(a.fetch(unit("maps", "places", { subjects: [place] }, place)))).result
      if (expect === "rows") assert.strictEqual(delivered(r).rows.length, 1, actor)
      else assert.match(failed(r).detail, expect, actor)
    }
  })

  it("issue 20: a run stopped on its charge limit is short and not exhaustive; a run that ran out is exhaustive", async () => {
    const capped = ProviderUpstream.make(await policy(), {
      ...settings(host.url),
      ops: {
        ...settings(host.url).ops,
        "maps.search": { ...settings(host.url).ops["maps.search"]!, actor: "fixture~capped" }
      }
    })
    const short = delivered(
      (await run(capped.fetch(unit("maps", "search", { query: "coffee", location: "Sydney", limit: 30 })))).result
    )
    assert.deepStrictEqual([short.rows.length, short.exhaustive], [15, false])
    assert.strictEqual(host.started.at(-1)!.charge, 0.03, "the charge limit is usdPerItem x rows asked")
    const few = await Fixtures.provider({ items: 12 })
    try {
      const a = ProviderUpstream.make(await policy(), settings(few.url))
      const all = delivered(
        (await run(a.fetch(unit("maps", "search", { query: "coffee", location: "Sydney", limit: 30 })))).result
      )
      assert.deepStrictEqual([all.rows.length, all.exhaustive], [12, true])
      const exact = delivered(
        (await run(a.fetch(unit("maps", "search", { query: "coffee", location: "Sydney", limit: 12 })))).result
      )
      assert.deepStrictEqual([exact.rows.length, exact.exhaustive], [12, false], "as many as asked: maybe more")
    } finally {
      await few.close()
    }
  })

  it("issue 20: a mapping's maxItems caps a run (count, maxItems, charge limit); a unit asking more is delivered short, never complete", async () => {
    const actor = "thescrappa~tiktok-search-scraper"
    const shipped = ProviderCatalogue.mappings["short_video.searchPosts"]!
    const tiktok = (items: number) =>
      Fixtures.provider({ items, datasets: { [actor]: recorded(actor) } }).then(async (h) => ({
        h,
        a: ProviderUpstream.make(await policy(), {
          ...settings(h.url),
          ops: { "short_video.searchPosts": shipped }
        })
      }))
    const full = await tiktok(100)
    try {
      const hundred = delivered(
        (await run(full.a.fetch(unit("short_video", "searchPosts", { query: "basketball", limit: 100 })))).result
      )
      const started = full.h.started.at(-1)!
      assert.deepStrictEqual(started.input, { keywords: "basketball", count: 50 }, "count is the actor's maximum")
      assert.strictEqual(started.maxItems, 50)
      assert.strictEqual(started.charge, 0.01, "the charge limit pays for the 50 items asked, not 100")
      assert.deepStrictEqual([hundred.rows.length, hundred.exhaustive], [50, false], "the cap came: maybe more")
      assert.deepStrictEqual(
        hundred.rows.map((r) => r["position"]),
        Array.from({ length: 50 }, (_, i) => i + 1)
      )
      // a unit within the cap asks its rows
      const thirty = delivered(
        (await run(full.a.fetch(unit("short_video", "searchPosts", { hashtag: "#nba", limit: 30 })))).result
      )
      assert.deepStrictEqual(full.h.started.at(-1)!.input, { query: "#nba", count: 30 })
      assert.deepStrictEqual([thirty.rows.length, thirty.exhaustive], [30, false])
    } finally {
      await full.h.close()
    }
    // a unit giving a field the mapping refuses (planned before it, say) starts no run: it fails naming the field
    const refusedHost = await tiktok(100)
    try {
      const sound = "https://www.tiktok.com/music/original-sound-7000000000000000000"
      const r = (await run(refusedHost.a.fetch(unit("short_video", "searchPosts", { soundUrl: sound })))).result
      assert.match(
        failed(r).detail,
        /^mapping short_video\.searchPosts \(thescrappa~tiktok-search-scraper\): refuses request\.soundUrl: /
      )
      assert.strictEqual(refusedHost.h.started.length, 0, "no run started")
    } finally {
      await refusedHost.h.close()
    }
    // a page shorter than asked (and than the cap) is the end of the results
    const few = await tiktok(12)
    try {
      const short = delivered(
        (await run(few.a.fetch(unit("short_video", "searchPosts", { query: "basketball", limit: 100 })))).result
      )
      assert.deepStrictEqual([short.rows.length, short.exhaustive], [12, true])
    } finally {
      await few.h.close()
    }
  })

  it("issue 20: an actor's note item is never a row: a subject unit is not_found with the actor's words", async () => {
    const notes = ProviderUpstream.make(await policy(), {
      ...settings(host.url, "fixture~notes"),
      ops: {
        ...settings(host.url).ops,
        "maps.places": {
          ...settings(host.url, "fixture~notes").ops["maps.places"]!,
          errors: { when: ["error", "note"], notFound: "no results|not found" }
        }
      }
    })
    const r = (await run(notes.fetch(unit("maps", "places", { subjects: [place] }, place)))).result
    assert.isTrue(r._tag === "Right" && r.right._tag === "NotFound")
    if (r._tag === "Right" && r.right._tag === "NotFound") assert.match(r.right.detail, /No results found/)
  })

  it("issue 20: a mapping that reads a hidden # field reads the dataset without `clean`, so the field arrives", async () => {
    const item = { ...Fixtures.recordedItem(), "#source": { site: "https://hidden.example/" } }
    const hidden = await Fixtures.provider({ datasets: { "fixture~hidden": [item] } })
    try {
      const base = settings(hidden.url).ops["maps.places"]!
      const reads = (path: string) =>
        ProviderUpstream.make(policy0, {
          ...settings(hidden.url),
          ops: { "maps.places": { ...base, actor: "fixture~hidden", rows: { ...base.rows, website: path } } }
        })
      const withHidden = delivered(
        (await run(reads("#source.site").fetch(unit("maps", "places", { subjects: [place] }, place)))).result
      )
      assert.strictEqual(withHidden.rows[0]!["website"], "https://hidden.example/")
      const plain = delivered(
        (await run(reads("website").fetch(unit("maps", "places", { subjects: [place] }, place)))).result
      )
      assert.strictEqual(plain.rows[0]!["website"], "https://cafelumen.example")
    } finally {
      await hidden.close()
    }
  })
})
