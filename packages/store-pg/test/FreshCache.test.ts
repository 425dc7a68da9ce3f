// The server's in-process cache of fresh results (PgMeasurements.FreshCache): what it keeps is bounded by results,
// by rows and by lifetime, so large results (a storefront's products) cannot fill the heap (stop 39: 50 connections of
// 25-product calls took the server out of memory while the cache kept up to 5,000 of them).

import { assert, describe, it } from "@effect/vitest"
import type { Measurements as M } from "@pdr/domain"
import fc from "fast-check"
import { FreshCache } from "../src/PgMeasurements.js"

const result = (key: string, rows: number, measuredAt = 1_000): M.Measurement => ({
  platform: "storefronts",
  op: "products",
  entity: key,
  freshnessKey: key,
  measuredAt: new Date(measuredAt),
  rows: Array.from({ length: rows }, (_, i) => ({ id: `${key}-${i}` })),
  rowsAsked: rows,
  exhaustive: false,
  found: true,
  source: "test"
})

const bounds = { maxEntries: 100, maxRows: 100, lifetimeMs: 2000 }

describe("FreshCache", () => {
  it("serves a result within its lifetime and drops it after", () => {
    const cache = new FreshCache(bounds)
    cache.remember(result("a", 3), 10_000)
    assert.strictEqual(cache.get("a", 11_999)?.freshnessKey, "a")
    assert.isUndefined(cache.get("a", 12_000))
    assert.strictEqual(cache.size, 0)
    assert.strictEqual(cache.rows, 0)
  })

  it("keeps no more rows than its bound, the oldest results out first", () => {
    const cache = new FreshCache(bounds)
    for (let i = 0; i < 40; i++) cache.remember(result(`k${i}`, 25), 10_000 + i)
    assert.strictEqual(cache.rows, 100)
    assert.strictEqual(cache.size, 4)
    assert.isUndefined(cache.get("k35", 10_100))
    for (const i of [36, 37, 38, 39]) assert.strictEqual(cache.get(`k${i}`, 10_100)?.rows.length, 25)
  })

  it("keeps no more results than its bound", () => {
    const cache = new FreshCache({ ...bounds, maxEntries: 3 })
    for (let i = 0; i < 10; i++) cache.remember(result(`k${i}`, 1), 10_000)
    assert.strictEqual(cache.size, 3)
    assert.deepStrictEqual(
      ["k6", "k7", "k8", "k9"].map((k) => cache.get(k, 10_000) !== undefined),
      [false, true, true, true]
    )
  })

  it("does not keep a result larger than the row bound, and lets go of the one it replaces", () => {
    const cache = new FreshCache(bounds)
    cache.remember(result("a", 10, 1_000), 10_000)
    cache.remember(result("a", 101, 2_000), 10_001)
    assert.isUndefined(cache.get("a", 10_002))
    assert.strictEqual(cache.rows, 0)
  })

  it("drops results past their lifetime as others come in", () => {
    const cache = new FreshCache(bounds)
    for (let i = 0; i < 5; i++) cache.remember(result(`old${i}`, 2), 10_000)
    cache.remember(result("new", 2), 12_500)
    assert.strictEqual(cache.size, 1)
    assert.strictEqual(cache.rows, 2)
  })

  it("keeps the newer of two measurements of a key, whichever came last", () => {
    const cache = new FreshCache(bounds)
    cache.remember(result("a", 4, 2_000), 10_000)
    cache.remember(result("a", 7, 1_000), 10_001)
    assert.strictEqual(cache.get("a", 10_002)?.measuredAt.getTime(), 2_000)
    assert.strictEqual(cache.rows, 4)
    cache.remember(result("a", 7, 3_000), 10_003)
    assert.strictEqual(cache.get("a", 10_004)?.measuredAt.getTime(), 3_000)
    assert.strictEqual(cache.rows, 7)
  })

  it("property: its counts are those of what it serves, within every bound, whatever is kept or read", () => {
    const op = fc.record({
      key: fc.constantFrom("a", "b", "c", "d", "e", "f", "g", "h"),
      rows: fc.integer({ min: 0, max: 60 }),
      measuredAt: fc.integer({ min: 0, max: 5 }),
      advance: fc.integer({ min: 0, max: 900 }),
      read: fc.boolean()
    })
    fc.assert(
      fc.property(fc.array(op, { maxLength: 80 }), (ops) => {
        const cache = new FreshCache({ maxEntries: 5, maxRows: 100, lifetimeMs: 2000 })
        let now = 0
        for (const o of ops) {
          now += o.advance
          if (o.read) cache.get(o.key, now)
          else cache.remember(result(o.key, o.rows, o.measuredAt), now)
          assert.isAtMost(cache.size, 5)
          assert.isAtMost(cache.rows, 100)
        }
        const served = ["a", "b", "c", "d", "e", "f", "g", "h"].flatMap((k) => {
          const m = cache.get(k, now)
          return m === undefined ? [] : [m]
        })
        // every result kept is still trusted at `now` only if it was read or stored within the lifetime
        assert.strictEqual(
          cache.rows,
          served.reduce((n, m) => n + m.rows.length, 0)
        )
        assert.strictEqual(cache.size, served.length)
      })
    )
  })
})
