// D1-D4, D8-D11 end to end over a real socket on the real Postgres server: for every op of every platform, the
// quote, the real call (charge == quote on complete delivery), the free repeat within the window, the bill again
// after it (moved by an injected clock, never by sleeping), and free history per metric, per store and per stay.
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { Catalogue, Examples, Pricing, Requests } from "@pdr/domain"
import * as Testing from "@pdr/store-pg/Testing"
import { Effect } from "effect"
import { account, balance, post, type Running, start } from "./harness.js"

const serverUp = await Testing.serverAvailable()
const stay = { checkIn: "2027-03-10", checkOut: "2027-03-13" }

const requestFor = (op: Catalogue.OpDef): Record<string, unknown> => {
  const request = Examples.minimal(op, "synthetic/app-charts")
  if (op.units === "subjects" && Examples.maxSubjects(op) >= 2)
    request["subjects"] = [Examples.subject(op, 0), Examples.subject(op, 1)]
  if (op.rowsField === "limit") {
    // one row past the rule's M, so that the exact price is a fraction and the call's one rounding shows
    const [min, max] = Examples.rowsBounds(op)
    const m = Pricing.startingRows(op.price) ?? min
    request["limit"] = Math.min(max, Math.max(min, m + 1))
  }
  if (op.platform === "lodging_booking" && op.name === "properties") request["stay"] = stay
  if (op.platform === "home_rentals" && op.name === "listings") request["stay"] = stay
  if (op.platform === "travel_reviews" && op.name === "hotels") request["stay"] = stay
  return request
}

/** The quote of a fully fetched request, computed here from the rule's numbers (D1), independently of Pricing. */
const expectedQuote = (op: Catalogue.OpDef, request: Record<string, unknown>): number => {
  const units = op.units === "subjects" ? new Set(request["subjects"] as Array<string>).size : 1
  const limit = Number(request["limit"] ?? 0)
  const rule = op.price
  switch (rule._tag) {
    case "PerSubject":
      return rule.credits * units
    case "PerRows":
      return Math.ceil((rule.credits * limit * units) / rule.rows)
    case "PerPage":
      return rule.credits * Number(request["pages"] ?? 1)
    case "MinimumRows":
      return Math.ceil((rule.credits * Math.max(limit, rule.minimum)) / rule.rows)
    case "PerSourceRow":
      return Math.ceil(limit / 10) // synthetic/app-charts: 1 credit per 10 rows
    case "PerPart":
      return units * (rule.parts.email + rule.parts.phone)
    case "Free":
      return 0
  }
}

describe.skipIf(!serverUp)("every op of every platform, end to end on PostgreSQL", () => {
  let server: Running
  let key: string
  beforeAll(async () => {
    server = await start({ knobs: { shortLists: false } })
    key = (await account(server, 1_000_000, "e2e")).key
  }, 60_000)
  afterAll(() => server?.close())

  for (const platform of Catalogue.platforms) {
    it(`${platform.id}: quote, call, free repeat, bill after the window, history`, async () => {
      const subjectsByOp = new Map<string, ReadonlyArray<string>>()
      for (const op of platform.ops) {
        if (op.name === "history" || !op.available) continue
        const request = requestFor(op)
        const path = `/api/v1/platforms/${platform.id}`
        const label = `${platform.id} ${op.name}`

        const quote = await post(server, path, { request, estimateOnly: true }, key)
        assert.strictEqual(quote.status, 200, `${label} quote: ${quote.text}`)
        const quoted = quote.body.estimate.credits as number
        const decoded = Effect.runSync(Requests.decode(platform.id, { request })).request
        assert.strictEqual(quoted, expectedQuote(op, decoded), label)
        assert.strictEqual(quote.body.cost.creditsCharged, 0)
        assert.isTrue(
          quote.body.coverage.every((c: any) => c.status === "fetch"),
          label
        )

        const before = await balance(server, key)
        const first = await post(server, path, { request }, key)
        assert.strictEqual(first.status, 200, `${label} call: ${first.text}`)
        assert.strictEqual(first.body.cost.creditsCharged, quoted, `${label}: charge == quote on complete delivery`)
        assert.strictEqual(first.body.cost.creditsRemaining, before - quoted, label)
        assert.strictEqual(await balance(server, key), before - quoted)
        assert.strictEqual(first.body.requestId, first.headers.get("x-request-id"))
        assert.deepStrictEqual([first.body.contextVersion, typeof first.body.engineVersion], [1, "string"])
        assert.isAbove(first.body.data.length, 0, label)
        for (const row of first.body.data) {
          assert.isString(row.subject, `${label} row subject`)
          assert.strictEqual(row.source, "synthetic", label)
          assert.isFalse(Number.isNaN(Date.parse(row.measuredAt)), label)
        }
        for (const c of first.body.coverage) {
          assert.strictEqual(c.status, "fetched", label)
          assert.strictEqual(c.source, "synthetic", label)
        }
        subjectsByOp.set(
          op.name,
          first.body.data.map((r: any) => r.subject)
        )

        const again = await post(server, path, { request }, key)
        assert.strictEqual(again.status, 200)
        if (op.freshSeconds !== null || op.price._tag === "PerPart") {
          assert.strictEqual(again.body.cost.creditsCharged, 0, `${label}: free within the window`)
          assert.deepStrictEqual(
            again.body.coverage.map((c: any) => [c.status, c.measuredAt]),
            first.body.coverage.map((c: any) => ["stored", c.measuredAt]),
            label
          )
        } else {
          assert.strictEqual(again.body.cost.creditsCharged, quoted, `${label}: no window, always fetched`)
        }
        if (op.freshSeconds !== null) {
          server.offset.ms += op.freshSeconds * 1000
          const after = await post(server, path, { request }, key)
          assert.strictEqual(after.body.cost.creditsCharged, quoted, `${label}: billed again after the window`)
          assert.isTrue(
            after.body.coverage.every((c: any) => c.status === "fetched"),
            label
          )
        }
      }

      const history = Catalogue.historyOp(platform.id)
      if (!history) return
      const source = platform.ops.find((o) => o.subjectSpec === history.subjectSpec && o.name !== "history")
      const subjects = source
        ? [
            String(
              requestFor(source)["subjects"]
                ? (requestFor(source)["subjects"] as Array<string>)[0]
                : requestFor(source)["subject"]
            )
          ]
        : [subjectsByOp.get(platform.ops.find((o) => o.name !== "history")!.name)![0]!]
      const extra = platform.id.startsWith("quick_commerce") ? { store: { storeId: "blr-001" } } : {}
      const before = await balance(server, key)
      for (const metric of history.metrics!) {
        const h = await post(
          server,
          `/api/v1/platforms/${platform.id}`,
          { request: { op: "history", subjects, metric, days: 730, ...extra } },
          key
        )
        assert.strictEqual(h.status, 200, h.text)
        assert.strictEqual(h.body.cost.creditsCharged, 0)
        assert.isAbove(h.body.data.length, 0, `${platform.id} history ${metric} has a series`)
        const points = h.body.data.flatMap((row: any) => row.points)
        assert.isAbove(points.length, 0, `${platform.id} history ${metric} has points`)
        for (const row of h.body.data) {
          assert.deepStrictEqual(
            [row.subject, row.metric, row.source],
            [h.body.coverage[0].subject, metric, "synthetic"]
          )
          assert.strictEqual(
            row.measuredAt,
            row.points[row.points.length - 1].measuredAt,
            "the row's measuredAt is its latest point"
          )
          const times = row.points.map((p: any) => Date.parse(p.measuredAt))
          assert.deepStrictEqual(
            times,
            [...times].sort((a, b) => a - b),
            "oldest first"
          )
        }
        for (const p of points) assert.strictEqual(typeof p.value, "number")
        if (platform.historyScope === "stay" && ["price_from", "price_per_night", "total_price"].includes(metric)) {
          assert.isTrue(
            points.every((p: any) => p.stay?.checkIn === stay.checkIn),
            "priced points carry the stay"
          )
        }
        if (platform.id.startsWith("quick_commerce"))
          assert.isTrue(points.every((p: any) => p.store === "store:blr-001"))
      }
      assert.strictEqual(await balance(server, key), before, "history never bills")
      if (platform.id.startsWith("quick_commerce")) {
        const other = await post(
          server,
          `/api/v1/platforms/${platform.id}`,
          { request: { op: "history", subjects, store: { pincode: "110001", city: "Delhi" } } },
          key
        )
        assert.strictEqual(other.body.data.length, 0, "points are kept per store")
        assert.strictEqual(other.body.coverage[0].reason, "not_found")
      }
    }, 60_000)
  }

  it("D4: what was left out and why: not found, omitted, and a short list charged for what it delivered", async () => {
    const r = await post(
      server,
      "/api/v1/platforms/maps",
      { request: { op: "places", subjects: ["ChIJnot-found-123", "ChIJpresent-0001"] } },
      key
    )
    assert.strictEqual(r.status, 200)
    assert.strictEqual(r.body.cost.creditsCharged, 4)
    const omitted = r.body.coverage.find((c: any) => c.status === "omitted")
    assert.deepStrictEqual([omitted.subject, omitted.reason, omitted.credits], ["ChIJnot-found-123", "not_found", 0])
    assert.isString(omitted.detail)
  })

  it("D2: one store for the whole service: a result another account paid for is served free", async () => {
    const other = await account(server, 100, "second")
    const request = { op: "profiles", subjects: ["shared.entity"] }
    const paid = await post(server, "/api/v1/platforms/short_video", { request }, key)
    assert.strictEqual(paid.body.cost.creditsCharged, 2)
    const free = await post(server, "/api/v1/platforms/short_video", { request }, other.key)
    assert.strictEqual(free.body.cost.creditsCharged, 0)
    assert.strictEqual(free.body.coverage[0].status, "stored")
  })

  it("D1: web_search search with pages: N delivers N pages of about ten results each and bills N", async () => {
    const before = await balance(server, key)
    const r = await post(
      server,
      "/api/v1/platforms/web_search",
      { request: { op: "search", query: "pages", pages: 3 } },
      key
    )
    assert.strictEqual(r.status, 200)
    const pages = new Map<number, number>()
    for (const row of r.body.data) pages.set(row.page, (pages.get(row.page) ?? 0) + 1)
    assert.deepStrictEqual([...pages.keys()].sort(), [1, 2, 3])
    for (const n of pages.values()) assert.isAtLeast(n, 8)
    assert.strictEqual(r.body.cost.creditsCharged, 3)
    assert.strictEqual(r.body.coverage[0].credits, 3)
    assert.strictEqual(before - (await balance(server, key)), 3)
  })

  it("D8: 402 with required and available before anything is fetched; nothing billed", async () => {
    const poor = await account(server, 3, "poor")
    const r = await post(
      server,
      "/api/v1/platforms/maps",
      { request: { op: "places", subjects: ["ChIJpoor-00001"] } },
      poor.key
    )
    assert.strictEqual(r.status, 402)
    assert.strictEqual(r.body.error.code, "insufficient_credits")
    assert.deepStrictEqual(r.body.error.details, { required: 4, available: 3 })
    assert.strictEqual(await balance(server, poor.key), 3)
  })
})

describe.skipIf(!serverUp)("with the synthetic failure rate at 30%", () => {
  let server: Running
  beforeAll(async () => {
    server = await start({ knobs: { failureRate: 0.3 } })
  }, 60_000)
  afterAll(() => server?.close())

  it("failed units are omitted with a reason and not billed; no call answers 500", async () => {
    const a = await account(server, 100_000, "flaky")
    let charged = 0
    const seen = new Set<number>()
    for (let i = 0; i < 40; i++) {
      const subjects = Array.from({ length: 5 }, (_, j) => `ChIJflaky-${i}-${j}-xx`)
      const r = await post(server, "/api/v1/platforms/maps", { request: { op: "places", subjects } }, a.key)
      seen.add(r.status)
      assert.include([200, 502], r.status, r.text)
      if (r.status === 502) {
        assert.strictEqual(r.body.error.code, "upstream_failed")
        continue
      }
      const fetched = r.body.coverage.filter((c: any) => c.status === "fetched").length
      const failed = r.body.coverage.filter((c: any) => c.status === "omitted")
      for (const c of failed) assert.deepStrictEqual([c.reason, c.credits], ["upstream_failed", 0])
      assert.strictEqual(r.body.cost.creditsCharged, 4 * fetched)
      charged += r.body.cost.creditsCharged
    }
    assert.isTrue(seen.has(200))
    assert.strictEqual(await balance(server, a.key), 100_000 - charged)
  })
})
