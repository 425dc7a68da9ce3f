// The fast ISO formatter writes exactly what Date#toISOString writes.
import { assert, describe, it } from "@effect/vitest"
import { FastCheck as fc } from "effect"
import { isoMillis } from "../src/Instants.js"

describe("Instants", () => {
  it.prop(
    "isoMillis(ms) === new Date(ms).toISOString() for any instant from 1970 to 9999",
    [fc.integer({ min: 0, max: 253402300799999 })],
    ([ms]) => {
      assert.strictEqual(isoMillis(ms), new Date(ms).toISOString())
    }
  )
  it("outside four-digit years and for invalid instants it still writes what Date#toISOString writes", () => {
    for (const ms of [-1, -86_400_001, 253402300800000, 8.64e15])
      assert.strictEqual(isoMillis(ms), new Date(ms).toISOString())
    assert.throws(() => isoMillis(Number.NaN))
  })
  it("edges: midnight, the last millisecond of a day, leap days", () => {
    for (const iso of [
      "2026-11-21T00:00:00.000Z",
      "2026-11-21T23:59:59.999Z",
      "2024-02-29T12:34:56.789Z",
      "1970-01-01T00:00:00.000Z"
    ]) {
      assert.strictEqual(isoMillis(Date.parse(iso)), iso)
    }
  })
})
