// The op kinds (issue 18): every op's kind is a typed part of its catalogue entry, and its steps decide what a call does.
import { assert, describe, it } from "@effect/vitest"
import { Catalogue, Pricing } from "../src/index.js"
import * as OpKind from "../src/OpKind.js"
import type { Measurement } from "../src/ports/Measurements.js"
import { opOf, unitOf } from "./helpers-plan.js"

const allOps = Catalogue.platforms.flatMap((p) => p.ops)
const stored = { rows: [] } as unknown as Measurement

describe("OpKind", () => {
  it("D9: each platform's series op is the one its history points are read by; a series is free and never planned", () => {
    for (const o of allOps) {
      const steps = OpKind.stepsOf(o)
      assert.strictEqual(steps._tag === "Reads", o.kind._tag === "Series", `${o.platform} ${o.name}`)
      if (o.kind._tag === "Series") {
        assert.isTrue(Pricing.isFree(o.price))
        assert.strictEqual(Catalogue.historyOp(o.platform), o)
        assert.throws(() => OpKind.fetching(o))
      }
    }
    assert.strictEqual(Catalogue.platforms.filter((p) => Catalogue.historyOp(p.id) !== undefined).length, 12)
  })

  it("D2, D10: a measure fetches what is not stored; a reveal fetches only parts still to buy", () => {
    const measure = OpKind.fetching(opOf("maps", "places"))
    assert.isTrue(measure.fetches(unitOf({ subject: "p" })))
    assert.isFalse(measure.fetches(unitOf({ subject: "p" }, { stored })))
    assert.isTrue(measure.shares)
    const reveal = OpKind.fetching(opOf("contacts", "reveal"))
    assert.isFalse(reveal.fetches(unitOf({ subject: "p" }, { stored })))
    assert.isTrue(reveal.fetches(unitOf({ subject: "p" }, { buy: ["email"] })))
    assert.deepStrictEqual(reveal.fetchParts(unitOf({ subject: "p" }, { buy: ["email"] })), ["email"])
    assert.isFalse(reveal.shares)
    assert.strictEqual(reveal.capture(12), 0, "contact parts are captured by the settle, per part")
    assert.strictEqual(measure.capture(12), 12)
  })

  it("D19: a run keeps nothing and shares no fetch; its rows are unverified", () => {
    const run = opOf("explore", "run")
    assert.isFalse(run.stored)
    assert.isTrue(Catalogue.runsSource(run))
    assert.isFalse(OpKind.fetching(run).shares)
    const into: OpKind.Records = { measurements: [], points: [], reveals: [] }
    OpKind.fetching(run).record(
      { accountId: "a", keyId: "k", prefix: "p" },
      { op: run, request: { op: "run" }, units: [], quote: 0, store: undefined, sourcePrice: undefined },
      {
        unit: unitOf({ query: "q" }),
        outcome: { _tag: "Delivered", rows: [{}], exhaustive: true, points: [], source: "s" },
        at: new Date(0)
      },
      into
    )
    assert.deepStrictEqual(into, { measurements: [], points: [], reveals: [] })
  })

  it("D1: only the op measured by the page counts pages", () => {
    const paged = allOps.filter((o) => o.kind._tag === "Measure" && o.kind.paging === "pages")
    assert.deepStrictEqual(
      paged.map((o) => `${o.platform}.${o.name}`),
      ["web_search.search"]
    )
    const rows = [1, 1, 2].map((page) => ({ page }))
    assert.strictEqual(OpKind.fetching(paged[0]!).quantity(rows), 2)
    assert.strictEqual(OpKind.fetching(opOf("maps", "search")).quantity(rows), 3)
  })
})
