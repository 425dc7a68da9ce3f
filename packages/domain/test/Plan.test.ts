// D2, D10: which planned units are fetched.
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as Plan from "../src/Plan.js"
import type { Measurement } from "../src/ports/Measurements.js"
import * as Requests from "../src/Requests.js"
import { memoryStore, scriptedUpstream } from "./fakes.js"
import { opOf, planOf, unitOf } from "./helpers-plan.js"

describe("Plan", () => {
  it("D2: a unit with a stored result is not fetched; D10: a contact unit is fetched only for parts to buy", () => {
    const places = planOf(opOf("maps", "places"))
    const stored = { rows: [] } as unknown as Measurement
    assert.isTrue(Plan.needsFetch(places, unitOf({ subject: "p" })))
    assert.isFalse(Plan.needsFetch(places, unitOf({ subject: "p" }, { stored })))
    const contacts = planOf(opOf("contacts", "reveal"))
    assert.isFalse(Plan.needsFetch(contacts, unitOf({ subject: "p" }, { stored })))
    assert.isFalse(Plan.needsFetch(contacts, unitOf({ subject: "p" })))
    assert.isTrue(Plan.needsFetch(contacts, unitOf({ subject: "p" }, { buy: ["phone"] })))
  })

  it.effect("D8: the plan prices every unit of a call and quotes their sum; a stored unit is free (D2)", () =>
    Effect.gen(function* () {
      const store = memoryStore()
      const planner = Plan.plannerOf(
        store.reads,
        scriptedUpstream({ current: (u) => ({ kind: "deliver", rows: u.rows }) })
      )
      const caller = { accountId: "acct_1", keyId: "key_1", prefix: "key_live_abc" }
      const decoded = yield* Requests.decode("maps", {
        request: { op: "places", subjects: ["ChIJaaaaaaaaaa", "ChIJbbbbbbbbbb"] }
      })
      const p = yield* planner.plan(caller, decoded.op, decoded.request)
      assert.deepStrictEqual(
        p.units.map((u) => u.label),
        [{ subject: "ChIJaaaaaaaaaa" }, { subject: "ChIJbbbbbbbbbb" }]
      )
      assert.isTrue(p.units.every((u) => Plan.needsFetch(p, u)))
      assert.strictEqual(p.quote, 8)
      assert.isUndefined(yield* planner.resolveStore(decoded.op, decoded.request))
      store.state.measurements.push({
        platform: "maps",
        op: "places",
        entity: p.units[0]!.entity,
        freshnessKey: p.units[0]!.freshnessKey,
        measuredAt: new Date(1000),
        rows: [{ name: "A" }],
        rowsAsked: 1,
        exhaustive: true,
        found: true,
        source: "maps-src"
      })
      const again = yield* planner.plan(caller, decoded.op, decoded.request)
      assert.deepStrictEqual(
        again.units.map((u) => Plan.needsFetch(again, u)),
        [false, true]
      )
      assert.strictEqual(again.quote, 4)
    })
  )
})
