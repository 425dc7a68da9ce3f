// D2, D10: which planned units are fetched.
import { assert, describe, it } from "@effect/vitest"
import * as Plan from "../src/Plan.js"
import type { Measurement } from "../src/ports/Measurements.js"
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
})
