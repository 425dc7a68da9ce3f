// The row budget: an answer over ~20 KB of rows is cut to whole rows under the budget, and its text says how many
// rows were left out and how to get them. The API's answer comes from a stand-in `fetch` (no store involved).
import { assert, describe, it } from "@effect/vitest"
import { type CatalogueResponse, createClient } from "../src/Client.js"
import * as Tools from "../src/Tools.js"

const catalogue: CatalogueResponse = {
  contextVersion: 1,
  engineVersion: "test",
  platforms: [
    {
      platform: "p",
      description: "a platform",
      ops: [
        {
          op: "search",
          description: "rows",
          price: { rule: "per_rows", startingPrice: 1, rows: 10 },
          freshnessSeconds: null,
          available: true,
          units: "query",
          subjects: null,
          requestSchema: {
            type: "object",
            required: ["op", "query"],
            properties: {
              op: { type: "string", enum: ["search"] },
              query: { type: "string", description: "what to look for" },
              limit: { type: "integer", minimum: 1, maximum: 500, default: 20 }
            }
          }
        }
      ]
    }
  ]
}

const answer = (rows: number) => ({
  data: Array.from({ length: rows }, (_, i) => ({ rank: i, title: "x".repeat(200) })),
  cost: { creditsCharged: 50, creditsRemaining: 950 },
  coverage: [
    {
      query: "shoes",
      status: "fetched",
      measuredAt: "2026-11-23T10:00:00.000Z",
      rows,
      credits: 50,
      source: "synthetic"
    }
  ],
  requestId: "req_1",
  contextVersion: 1,
  engineVersion: "test"
})

// the real client over a `fetch` that answers what the API would
const client = (rows: number) =>
  createClient({
    baseUrl: "http://api.test",
    apiKey: "key_live_test",
    fetch: async () => Response.json(answer(rows))
  })

const run = (rows: number) =>
  Tools.make(client(rows), catalogue)
    .find((t) => t.name === "call")!
    .run({ platform: "p", request: { op: "search", query: "shoes", limit: rows }, maxCredits: 50 })

describe("row budget", () => {
  it("cut keeps whole rows under the budget and counts the rest", () => {
    const rows = Array.from({ length: 100 }, (_, i) => ({ i, pad: "y".repeat(90) }))
    const { shown, omitted } = Tools.cut(rows, 1000)
    assert.isAtMost(JSON.stringify(shown).length, 1000)
    assert.isAbove(shown.length, 0)
    assert.strictEqual(shown.length + omitted, 100)
    assert.deepStrictEqual(shown, rows.slice(0, shown.length))
  })

  it("a large answer is cut to the budget and its text says how many rows were left out and how to get them", async () => {
    const r = await run(500)
    const text = r.content.map((c) => c.text).join("\n")
    const out = r.structuredContent as any
    assert.isAtMost(Buffer.byteLength(JSON.stringify(out.rows)), Tools.rowBudgetBytes)
    assert.strictEqual(out.rowsTotal, 500)
    assert.strictEqual(out.rowsOmitted, 500 - out.rows.length)
    assert.isAbove(out.rowsOmitted, 0)
    assert.include(text, `${out.rows.length} of 500 shown; ${out.rowsOmitted} row(s) left out`)
    assert.include(text, "smaller `limit`")
    assert.isBelow(Buffer.byteLength(text), Tools.rowBudgetBytes + 2000)
  })

  it("a small answer is whole", async () => {
    const r = await run(3)
    assert.strictEqual((r.structuredContent as any).rowsOmitted, 0)
    assert.include(r.content[0]!.text, "Rows (3):")
  })
})

describe("errors the model can act on", () => {
  it("a 502 whose units an open circuit refused tells when to call again (its Retry-After), and that nothing was charged", () => {
    const error = {
      code: "upstream_failed",
      message: "every unit of this call failed upstream; nothing was billed",
      requestId: "req_1",
      details: { coverage: [{ subject: "s", status: "omitted", reason: "upstream_failed", retryAfterSeconds: 28 }] }
    } as const
    const refused = Tools.fromApiError(502, error as never, new Headers({ "retry-after": "28" }))
    assert.isTrue(refused.isError)
    assert.match(refused.content[0]!.text, /call again in 28 second\(s\), not sooner/)
    assert.match(refused.content[0]!.text, /Nothing was charged/)
    // failed on the hosts themselves: no wait named
    const failed = Tools.fromApiError(502, error as never, new Headers())
    assert.match(failed.content[0]!.text, /calling again may succeed/)
  })
})
