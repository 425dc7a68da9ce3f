// Issue 20: the mapping language. Paths with indices and hidden `#` fields, constants, defaults, conversions, arrays
// element by element, input templates; decoding and the start-time check name the op and the field.
import { assert, describe, it } from "@effect/vitest"
import { Catalogue } from "@pdr/domain"
import { Either } from "effect"
import * as Mapping from "../src/Mapping.js"
import * as ProviderCatalogue from "../src/ProviderCatalogue.js"
import { decodeRow, unit } from "./support/Adapters.js"

const item = {
  title: "Cafe",
  "#debug": { url: "https://x.example/p" },
  location: { lat: "-33.86", lng: 151.2 },
  categories: ["Cafe", "Bakery"],
  tags: "a, b,,c",
  stars: 4.6,
  verified: "yes",
  posted: 1_700_000_000,
  day: "2024-02-03",
  km: 2.5,
  list: [
    { n: "x", v: "1,200" },
    { n: "y", v: null }
  ]
}

describe("Mapping", () => {
  it("reads paths with array indices and hidden fields, null when absent", () => {
    assert.strictEqual(Mapping.value(item, "list.1.n"), "y")
    assert.strictEqual(Mapping.value(item, "#debug.url"), "https://x.example/p")
    assert.strictEqual(Mapping.value(item, "list.5.n"), null)
    assert.strictEqual(Mapping.value(item, "title.x"), null)
  })

  it("converts: number, integer with rounding, boolean, date-time forms, join, split, scale, default, const, first", () => {
    assert.strictEqual(Mapping.value(item, { path: "location.lat", as: "number" }), -33.86)
    assert.strictEqual(Mapping.value(item, { path: "stars", as: "integer" }), 5)
    assert.strictEqual(Mapping.value(item, { path: "list.0.v", as: "integer" }), 1200)
    assert.strictEqual(Mapping.value(item, { path: "verified", as: "boolean" }), true)
    assert.strictEqual(Mapping.value(item, { path: "posted", as: "datetime" }), "2023-11-14T22:13:20.000Z")
    assert.strictEqual(Mapping.value(item, { path: "day", as: "datetime" }), "2024-02-03T00:00:00.000Z")
    assert.strictEqual(Mapping.value(item, { path: "categories", join: ", " }), "Cafe, Bakery")
    assert.deepStrictEqual(Mapping.value(item, { path: "tags", split: "," }), ["a", "b", "c"])
    assert.strictEqual(Mapping.value(item, { path: "km", as: "integer", scale: 1000 }), 2500)
    assert.strictEqual(Mapping.value(item, { path: "list.1.v", as: "integer", default: 0 }), 0)
    assert.strictEqual(Mapping.value(item, { const: "forum" }), "forum")
    assert.strictEqual(Mapping.value(item, { first: ["missing", "title"] }), "Cafe")
    assert.deepStrictEqual(
      Mapping.value(item, { each: "list", map: { name: "n", value: { path: "v", as: "number" } } }),
      [
        { name: "x", value: 1200 },
        { name: "y", value: null }
      ]
    )
    assert.deepStrictEqual(Mapping.value(item, { each: "list", map: "n" }), ["x", "y"])
  })

  it("builds an object from separate fields (a salary's min, max and period); null when every member is null", () => {
    const salary = {
      object: {
        min: { path: "salaryMin", as: "number" },
        max: { path: "salaryMax", as: "number" },
        period: { path: "salaryPeriod", map: { hour: "hour", year: "year" } }
      }
    } as const
    const paid = { salaryMin: "18", salaryMax: 22, salaryPeriod: "hour" }
    assert.deepStrictEqual(Mapping.value(paid, salary), { min: 18, max: 22, period: "hour" })
    assert.strictEqual(Mapping.value({ title: "no pay shown" }, salary), null)
    // a member missing leaves it null (the row Schema then decides), not the whole object
    assert.deepStrictEqual(Mapping.value({ salaryMin: 50000 }, salary), { min: 50000, max: null, period: null })
    // inside an array, element by element; and decoded from JSON, as an operator's mapping file gives it
    assert.deepStrictEqual(Mapping.value({ pays: [paid, {}] }, { each: "pays", map: salary }), [
      { min: 18, max: 22, period: "hour" },
      null
    ])
    const decoded = Mapping.decodeMappings(
      JSON.parse(
        JSON.stringify({
          "jobs_global.jobs": {
            actor: "a~b",
            usdPerItem: 0.001,
            rows: {
              jobKey: "key",
              title: "title",
              company: "company",
              location: "location",
              country: { const: "US" },
              employmentType: { const: "full_time" },
              remote: { const: false },
              postedAt: { path: "posted", as: "datetime" },
              description: "text",
              salary
            }
          }
        })
      ),
      "f"
    )
    assert.isTrue(Either.isRight(decoded))
    const m = Either.getOrThrow(decoded)["jobs_global.jobs"]!
    assert.isTrue(Either.isRight(Mapping.check("jobs_global.jobs", m)))
    const base = { key: "abc123def4", title: "Nurse", company: "Clinic", location: "Austin, TX", posted: "2026-05-01" }
    const [withPay] = Mapping.rowsOf(m, { ...base, text: "Care", ...paid }, [])
    assert.deepStrictEqual(decodeRow("jobs_global", "jobs", withPay).salary, { min: 18, max: 22, period: "hour" })
    const [withoutPay] = Mapping.rowsOf(m, { ...base, text: "Care" }, [])
    assert.strictEqual(decodeRow("jobs_global", "jobs", withoutPay).salary, null)
    // an each map whose row field is named "object" is still a map of fields, not an object spec
    assert.deepStrictEqual(Mapping.value({ l: [{ o: 1 }] }, { each: "l", map: { object: "o" } }), [{ object: 1 }])
  })

  it("fills input templates from every request field, typed or interpolated, enumerations translated", () => {
    const u = unit("forum", "subreddit", { subject: "typescript", sort: "newest", limit: 20 }, "typescript")
    assert.deepStrictEqual(
      Mapping.input(
        {
          url: "https://forum.example/r/{subject}/",
          max: "$rows",
          sort: { $value: "request.sort", map: { newest: "new", top: "top" }, default: "hot" },
          window: "$request.postedWithin",
          fixed: [1, true]
        },
        u
      ),
      { url: "https://forum.example/r/typescript/", max: 20, sort: "new", window: "7d", fixed: [1, true] }
    )
  })

  it("$text interpolates a search phrase as plain text (not URL-encoded); absent when every reference is", () => {
    const u = unit("travel_reviews", "searchHotels", { query: "São Paulo & Rio", limit: 5 })
    assert.deepStrictEqual(
      Mapping.input(
        {
          q: [{ $text: "hotels in {query}" }],
          url: "https://t.example/s?q={query}",
          tag: { $text: "#{request.hashtag}" }
        },
        u
      ),
      { q: ["hotels in São Paulo & Rio"], url: "https://t.example/s?q=S%C3%A3o%20Paulo%20%26%20Rio" }
    )
    assert.deepStrictEqual(Mapping.requestPaths({ q: [{ $text: "hotels in {query} ({request.language})" }] }), [
      "query",
      "language"
    ])
  })

  it("leaves out a request list the caller gave empty (no filter), and sends one with members as it is", () => {
    const template = { keyword: "$query", location: "$request.locations", tags: ["$request.locations"] }
    const none = unit("jobs_in", "search", { query: "python", locations: [] })
    // (and a list of such references, as for any reference the request does not have)
    assert.deepStrictEqual(Mapping.input(template, none), { keyword: "python" })
    const two = unit("jobs_in", "search", { query: "python", locations: ["Pune", "Delhi"] })
    assert.deepStrictEqual(Mapping.input(template, two), {
      keyword: "python",
      location: ["Pune", "Delhi"],
      tags: [["Pune", "Delhi"]]
    })
  })

  it("names nested request fields, typed or interpolated (a store locator); a key whose value is absent is left out", () => {
    const u = unit("quick_commerce_a", "search", { query: "atta 5kg", store: { pincode: "560001", city: "Bengaluru" } })
    assert.deepStrictEqual(
      Mapping.input(
        {
          keyword: "$query",
          pincode: "$request.store.pincode",
          where: "https://app.example/s?q={query}&pin={request.store.pincode}&city={request.store.city}",
          city: { $value: "request.store.city", map: { Bengaluru: "BLR" }, default: "other" },
          lat: "$request.store.lat",
          at: "{request.store.lat},{request.store.lon}"
        },
        u
      ),
      {
        keyword: "atta 5kg",
        pincode: "560001",
        where: "https://app.example/s?q=atta%205kg&pin=560001&city=Bengaluru",
        city: "BLR"
      }
    )
    const geo = unit("quick_commerce_a", "search", { query: "milk", store: { lat: 12.9716, lon: 77.5946 } })
    assert.deepStrictEqual(Mapping.input({ latitude: "$request.store.lat", longitude: "$request.store.lon" }, geo), {
      latitude: 12.9716,
      longitude: 77.5946
    })
    // a list of absent references is left out; $present picks a mode by which field the caller gave
    const template = {
      mode: { $present: { "request.store.pincode": "pincode", "request.store.lat": "geo" } },
      pins: ["$request.store.pincode"],
      at: ["$request.store.lat", "$request.store.lon"],
      fixed: ["a", "$request.store.pincode"]
    }
    // a string whose every reference is absent is left out; one with some is interpolated
    assert.deepStrictEqual(
      Mapping.input(
        { tag: "https://t.example/tag/{request.store.pincode}", both: "{request.store.lat},{request.store.pincode}" },
        geo
      ),
      { both: "12.9716," }
    )
    assert.deepStrictEqual(Mapping.input(template, geo), {
      mode: "geo",
      at: [12.9716, 77.5946],
      fixed: ["a", null]
    })
    assert.deepStrictEqual(Mapping.input(template, u), {
      mode: "pincode",
      pins: ["560001"],
      fixed: ["a", "560001"]
    })
    assert.deepStrictEqual(Mapping.requestPaths({ q: "$query", pin: "{request.store.pincode}", n: "$rows" }), [
      "query",
      "store.pincode"
    ])
  })

  it("an object in a list whose every reference is absent is absent, constants and all; one with a reference given is kept", () => {
    const template = {
      locations: [{ lat: "$request.store.lat", lon: "$request.store.lon", label: "pdr" }],
      pincodes: ["$request.store.pincode"],
      fixed: [{ label: "pdr" }],
      some: [{ at: "$request.store.lat", pin: "$request.store.pincode" }]
    }
    const pin = unit("quick_commerce_b", "search", { query: "atta", store: { pincode: "122002", city: "Gurugram" } })
    assert.deepStrictEqual(Mapping.input(template, pin), {
      pincodes: ["122002"],
      fixed: [{ label: "pdr" }],
      some: [{ pin: "122002" }]
    })
    const geo = unit("quick_commerce_b", "search", { query: "atta", store: { lat: 28.4595, lon: 77.0266 } })
    assert.deepStrictEqual(Mapping.input(template, geo), {
      locations: [{ lat: 28.4595, lon: 77.0266, label: "pdr" }],
      fixed: [{ label: "pdr" }],
      some: [{ at: 28.4595 }]
    })
  })

  it("the start check accepts nested request fields that exist at every level, refuses the others, and fills store", () => {
    const rows = {
      name: "name",
      brand: "brand",
      packSize: "unit",
      price: "price",
      mrp: "mrp",
      discountPct: "off",
      inStock: "available",
      stockCount: "quantity",
      rating: "rating",
      ratingCount: "ratings"
    }
    const m = (input: unknown) =>
      Either.getOrThrow(
        Mapping.decodeMappings({ "quick_commerce_a.search": { actor: "a~b", usdPerItem: 0.001, input, rows } }, "t")
      )["quick_commerce_a.search"]!
    // `store` is required by the row and filled by the adapter with the resolved store (D3)
    assert.isTrue(
      Either.isRight(Mapping.check("quick_commerce_a.search", m({ q: "$query", pin: "$request.store.pincode" })))
    )
    assert.isTrue(
      Either.isRight(Mapping.check("quick_commerce_a.search", m({ at: "{request.store.lat},{request.store.lon}" })))
    )
    assert.deepStrictEqual(
      Mapping.check("quick_commerce_a.search", m({ zip: "$request.store.zip" })),
      Either.left(
        'quick_commerce_a.search: input names "request.store.zip", which is not a field of a quick_commerce_a.search request'
      )
    )
    assert.deepStrictEqual(
      Mapping.check("quick_commerce_a.search", m({ q: { $value: "request.query.text" } })),
      Either.left(
        'quick_commerce_a.search: input names "request.query.text", which is not a field of a quick_commerce_a.search request'
      )
    )
    assert.isTrue(Either.isLeft(Mapping.check("quick_commerce_a.search", m({ s: "{request.shop.pincode}" }))))
    // outside store-scoped ops `store` is an ordinary row field: nothing fills it
    assert.isFalse(Mapping.filledBy(Catalogue.findOp("maps", "places")!).has("store"))
  })

  it("requires: top-level request fields of the op only; the shipped jobs_global.search requires location", () => {
    const shipped = ProviderCatalogue.mappings["jobs_global.search"]!
    assert.deepStrictEqual(Object.keys(shipped.requires ?? {}), ["location"])
    const withRequires = (requires: Record<string, string>) => ({ ...shipped, requires })
    assert.isTrue(Either.isRight(Mapping.check("jobs_global.search", withRequires({ location: "why" }))))
    assert.deepStrictEqual(
      Mapping.check("jobs_global.search", withRequires({ city: "why" })),
      Either.left(
        "jobs_global.search: requires request.city, which is not a top-level field of a jobs_global.search request"
      )
    )
    assert.isTrue(
      Either.isLeft(
        Mapping.check("quick_commerce_a.search", {
          ...ProviderCatalogue.mappings["quick_commerce_a.search"]!,
          requires: { "store.lat": "why" }
        })
      )
    )
  })

  it("refuses: optional top-level request fields its input and rows do not read; the shipped searchPosts refuses soundUrl", () => {
    const shipped = ProviderCatalogue.mappings["short_video.searchPosts"]!
    assert.deepStrictEqual(Object.keys(shipped.refuses ?? {}), ["soundUrl"])
    assert.isTrue(Either.isRight(Mapping.check("short_video.searchPosts", shipped)))
    const withRefuses = (refuses: Record<string, string>, more: object = {}) => ({ ...shipped, ...more, refuses })
    assert.deepStrictEqual(
      Mapping.check("short_video.searchPosts", withRefuses({ sound: "why" })),
      Either.left(
        "short_video.searchPosts: refuses request.sound, which is not a top-level field of a short_video.searchPosts request"
      )
    )
    assert.deepStrictEqual(
      Mapping.check("short_video.searchPosts", withRefuses({ hashtag: "why" })),
      Either.left("short_video.searchPosts: refuses request.hashtag, which its input or rows read")
    )
    assert.deepStrictEqual(
      Mapping.check("short_video.searchPosts", withRefuses({ soundUrl: "why" }, { requires: { soundUrl: "why" } })),
      Either.left("short_video.searchPosts: refuses request.soundUrl, which it also requires (refusing every call)")
    )
    // a field every request gives (the subjects of a subject op) cannot be refused: every call would be
    const places = ProviderCatalogue.mappings["maps.places"]!
    assert.deepStrictEqual(
      Mapping.check("maps.places", { ...places, refuses: { subjects: "why" } }),
      Either.left("maps.places: refuses request.subjects, which every maps.places request gives (refusing every call)")
    )
    assert.isTrue(
      Either.isLeft(
        Mapping.check("quick_commerce_a.search", {
          ...ProviderCatalogue.mappings["quick_commerce_a.search"]!,
          refuses: { "store.lat": "why" }
        })
      )
    )
  })

  it("a template spec builds a string from paths of the item, URL-encoded; null when one is absent", () => {
    const decode = (spec: unknown) =>
      Mapping.decodeMappings({ "x.y": { actor: "a~b", usdPerItem: 1, rows: { f: spec } } }, "t")
    const spec = { template: "https://www.tiktok.com/@{author.unique_id}/video/{aweme_id}" }
    assert.isTrue(Either.isRight(decode(spec)))
    assert.isTrue(Either.isLeft(decode({ template: "no references" })), "a template names at least one path")
    const post = { aweme_id: "7568510388342443294", author: { unique_id: "tik.tok_" } }
    assert.strictEqual(Mapping.value(post, spec), "https://www.tiktok.com/@tik.tok_/video/7568510388342443294")
    assert.strictEqual(
      Mapping.value({ aweme_id: 7, author: { unique_id: "a b/c" } }, spec),
      "https://www.tiktok.com/@a%20b%2Fc/video/7",
      "values are URL-encoded, numbers written out"
    )
    assert.isNull(Mapping.value({ aweme_id: "1" }, spec))
    assert.isNull(Mapping.value({ aweme_id: "1", author: { unique_id: "" } }, spec))
    assert.isNull(Mapping.value({ aweme_id: { id: 1 }, author: { unique_id: "a" } }, spec), "an object is no value")
    // inside `first` and `each`
    assert.strictEqual(
      Mapping.value({ video_id: "9", author: { unique_id: "a" } }, { first: [spec, { template: "v/{video_id}" }] }),
      "v/9"
    )
    assert.deepStrictEqual(Mapping.value({ l: [{ id: 1 }, { id: 2 }] }, { each: "l", map: { template: "p/{id}" } }), [
      "p/1",
      "p/2"
    ])
  })

  it("$text with strip takes a prefix off each value, so a hashtag's # is never doubled", () => {
    const t = { $text: "#{request.hashtag}", strip: "#" }
    const u = (hashtag?: string) =>
      unit("short_video", "searchPosts", hashtag === undefined ? { query: "q" } : { hashtag })
    assert.strictEqual(Mapping.input(t, u("cats")), "#cats")
    assert.strictEqual(Mapping.input(t, u("##cats")), "#cats")
    assert.isNull(Mapping.input(t, u()), "absent when the reference is")
    assert.strictEqual(Mapping.input({ $text: "#{request.hashtag}" }, u("#cats")), "##cats", "without strip: as given")
  })

  it("maxItems decodes as a positive integer", () => {
    const decode = (maxItems: unknown) =>
      Mapping.decodeMappings({ "x.y": { actor: "a~b", usdPerItem: 1, rows: {}, maxItems } }, "t")
    assert.isTrue(Either.isRight(decode(50)))
    for (const bad of [0, -1, 2.5, "50"]) assert.isTrue(Either.isLeft(decode(bad)), String(bad))
  })

  it("decoding names the op and the field; unknown keys are refused", () => {
    const bad = Mapping.decodeMappings(
      { "maps.places": { actor: "a~b", usdPerItem: 0.001, rows: { name: { path: "" } } } },
      "PROVIDER_OPS"
    )
    assert.isTrue(Either.isLeft(bad))
    if (Either.isLeft(bad)) assert.match(bad.left, /PROVIDER_OPS: .*maps\.places/s)
    const extra = Mapping.decodeMappings(
      { "maps.places": { actor: "a~b", usdPerItem: 0.001, rows: {}, bogus: 1 } },
      "f"
    )
    assert.isTrue(Either.isLeft(extra))
    const free = Mapping.decodeMappings({ "maps.places": { actor: "a~b", usdPerItem: 0, rows: {} } }, "f")
    assert.isTrue(Either.isLeft(free), "a price per item must be positive")
  })

  it("the start check names the op and the missing or unknown field", () => {
    const m = Either.getOrThrow(
      Mapping.decodeMappings(
        { "maps.places": { actor: "a~b", usdPerItem: 0.004, input: { q: "$request.nope" }, rows: { name: "title" } } },
        "t"
      )
    )["maps.places"]!
    assert.deepStrictEqual(
      Mapping.check("maps.places", m),
      Either.left("maps.places: rows.placeId is required by the maps.places row and not mapped")
    )
    const unknownField = { ...m, rows: { ...m.rows, colour: "x" } }
    assert.deepStrictEqual(
      Mapping.check("maps.places", unknownField),
      Either.left("maps.places: rows.colour is not a field of the maps.places row")
    )
    const full = {
      ...m,
      rows: {
        placeId: "id",
        name: "t",
        address: "a",
        lat: "la",
        lon: "lo",
        rating: "r",
        reviewCount: "c",
        categories: "k"
      }
    }
    assert.deepStrictEqual(
      Mapping.check("maps.places", full),
      Either.left('maps.places: input names "request.nope", which is not a field of a maps.places request')
    )
    assert.isTrue(Either.isRight(Mapping.check("maps.places", { ...full, input: { placeIds: ["$subject"] } })))
    assert.isTrue(Either.isLeft(Mapping.check("maps.nothing", m)))
  })

  it("rows read request fields (dotted) and translate raw values through a table; the check names an unknown one", () => {
    const spec = (s: unknown) => s as Mapping.FieldSpec
    const request = { country: "DE", store: { pincode: "560001" } }
    assert.strictEqual(Mapping.value(item, spec({ request: "country" }), request), "DE")
    assert.strictEqual(Mapping.value(item, spec({ request: "store.pincode" }), request), "560001")
    assert.strictEqual(Mapping.value(item, spec({ request: "absent" }), request), null)
    const kind = { path: "verified", map: { Yes: "confirmed", no: "unconfirmed" } }
    // exact first, then case-insensitive; a value not in the table is null, then the default
    assert.strictEqual(Mapping.value(item, spec(kind)), "confirmed")
    assert.strictEqual(Mapping.value({ verified: "maybe" }, spec(kind)), null)
    assert.strictEqual(Mapping.value({ verified: "maybe" }, spec({ ...kind, default: "unknown" })), "unknown")
    // a regular expression's first group, before the table and the conversion; bands after the conversion
    assert.strictEqual(
      Mapping.value({ r: "#60 of 183 hotels" }, spec({ path: "r", match: "#(\\d+) of", as: "integer" })),
      60
    )
    assert.strictEqual(
      Mapping.value({ r: "#60 of 183 hotels" }, spec({ path: "r", match: "of (\\d+)", as: "integer" })),
      183
    )
    assert.strictEqual(Mapping.value({ r: "unranked" }, spec({ path: "r", match: "#(\\d+)", as: "integer" })), null)
    const bands = [
      { min: 9, value: "superb" },
      { min: 7, value: "good" },
      { min: 5, value: "average" },
      { min: 0, value: "poor" }
    ]
    assert.deepStrictEqual(
      ["9.4", 8.9, 7, 5.5, 2, null, "n/a"].map((x) =>
        Mapping.value({ s: x }, spec({ path: "s", as: "number", bands }))
      ),
      ["superb", "good", "good", "average", "poor", null, null]
    )
    assert.isTrue(
      Either.isLeft(
        Mapping.decodeMappings(
          {
            "maps.places": { actor: "a~b", usdPerItem: 1, rows: { name: { path: "x", bands: [...bands].reverse() } } }
          },
          "t"
        )
      )
    )
    assert.isTrue(
      Either.isLeft(
        Mapping.decodeMappings(
          { "maps.places": { actor: "a~b", usdPerItem: 1, rows: { name: { path: "x", match: "(" } } } },
          "t"
        )
      )
    )
    // the table is applied before the conversion
    assert.strictEqual(Mapping.value({ size: "L" }, spec({ path: "size", map: { L: "3" }, as: "integer" })), 3)
    const rows = {
      placeId: "id",
      name: { request: "query" },
      address: "a",
      lat: "la",
      lon: "lo",
      rating: "r",
      reviewCount: "c",
      categories: "k"
    }
    const m = Either.getOrThrow(
      Mapping.decodeMappings({ "maps.search": { actor: "a~b", usdPerItem: 0.004, rows } }, "t")
    )["maps.search"]!
    assert.isTrue(Either.isRight(Mapping.check("maps.search", m)))
    assert.deepStrictEqual(Mapping.rowsOf(m, { id: "p1" }, [], { query: "cafes" })[0]!["name"], "cafes")
    assert.deepStrictEqual(
      Mapping.check("maps.search", { ...m, rows: { ...m.rows, name: { request: "colour" } } }),
      Either.left("maps.search: rows read request.colour, which is not a field of a maps.search request")
    )
  })

  it("error and note items are recognised, and which say the subject does not exist", () => {
    const m = Either.getOrThrow(
      Mapping.decodeMappings(
        { "maps.places": { actor: "a~b", usdPerItem: 0.004, errors: { when: ["error", "note"] }, rows: {} } },
        "t"
      )
    )["maps.places"]!
    assert.deepStrictEqual(Mapping.errorItem(m, { input: {}, note: "No videos found" }), {
      text: "No videos found",
      notFound: true
    })
    assert.deepStrictEqual(Mapping.errorItem(m, { error: "rate limited" }), { text: "rate limited", notFound: false })
    assert.isUndefined(Mapping.errorItem(m, { title: "a row" }))
  })
})
