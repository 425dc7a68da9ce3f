// D4, D10: coverage items, answer rows, stored views and contact rows of a call's units.
import { assert, describe, it } from "@effect/vitest"
import * as Coverage from "../src/Coverage.js"
import * as OpKind from "../src/OpKind.js"
import type { Fetched, Plan } from "../src/Plan.js"
import type { Measurement } from "../src/ports/Measurements.js"
import { opOf, planOf, unitOf } from "./helpers-plan.js"

const at = new Date("2026-11-21T12:00:00Z")

/** An email of person p1 the org revealed before (D10). */
const held = {
  accountId: "a",
  person: "p1",
  part: "email" as const,
  status: "revealed" as const,
  value: "e@x.org",
  at,
  source: "c"
}

/** The answer of a plan whose fetched units are these, each delivered one priced `credits`. */
const assembled = (p: Plan, fetched: ReadonlyMap<unknown, Fetched>, credits: number) =>
  Coverage.assemble(
    p,
    OpKind.fetching(p.op).shaping,
    p.units,
    (u) => fetched.get(u),
    () => ({ n: credits, d: 1 }),
    "fallback"
  )

describe("Coverage", () => {
  it("D4: an item names its subject or its query first; an omitted unit carries its reason and detail", () => {
    const bySubject = Coverage.cover(unitOf({ subject: "s1" }), "fetched", "t", 2, 8, "src")
    assert.deepStrictEqual(Object.keys(bySubject), ["subject", "status", "measuredAt", "rows", "credits", "source"])
    const omitted = Coverage.cover(unitOf({ query: "coffee" }), "omitted", null, 0, 0, "src", {
      reason: "not_found",
      detail: "gone"
    })
    assert.deepStrictEqual(omitted, {
      query: "coffee",
      status: "omitted",
      measuredAt: null,
      rows: 0,
      credits: 0,
      source: "src",
      reason: "not_found",
      detail: "gone"
    })
    assert.strictEqual(Coverage.exactNumber({ n: 1, d: 3 }), 0.3333)
  })

  it("an omitted unit refused by an open circuit says in whole seconds (at least 1) when its host is tried again", () => {
    const p = planOf(opOf("maps", "places"))
    const [refused, failed] = [unitOf({ subject: "a" }), unitOf({ subject: "b" })]
    const fetched = new Map<unknown, Fetched>([
      [refused, { unit: refused, omitted: "upstream_failed", detail: "circuit open", source: "s", retryInMs: 27_001 }],
      [failed, { unit: failed, omitted: "upstream_failed", detail: "503", source: "s" }]
    ])
    const { coverage } = assembled({ ...p, units: [refused, failed] }, fetched, 1)
    assert.strictEqual(coverage[0]!.retryAfterSeconds, 28)
    assert.notProperty(coverage[1]!, "retryAfterSeconds")
    assert.deepStrictEqual([27_000, 1, 0].map(Coverage.retryAfterSeconds), [27, 1, 1])
  })

  it("D1: an op measured by the page keeps every row of the pages asked; any other keeps the rows asked", () => {
    const rows = [1, 1, 2, 2, 3].map((page, i) => ({ page, i }))
    const kept = (platform: string, op: string) => OpKind.fetching(opOf(platform, op)).kept
    assert.deepStrictEqual(
      kept("web_search", "search")(rows, 2).map((r) => r.i),
      [0, 1, 2, 3]
    )
    assert.deepStrictEqual(
      kept("maps", "places")(rows, 2).map((r) => r.i),
      [0, 1]
    )
  })

  it("D4: answer rows carry the subject, when they were measured and the source; a stored view is reused", () => {
    const p = planOf(opOf("maps", "places"))
    const u = unitOf({ subject: "place1" }, { asked: 1 })
    const keep = OpKind.fetching(p.op).kept
    const rows = Coverage.shapeRows(p, u, keep([{ name: "A" }, { name: "B" }], u.asked), at, "maps-src")
    assert.deepStrictEqual(rows, [{ subject: "place1", name: "A", measuredAt: at.toISOString(), source: "maps-src" }])
    const stored: Measurement = {
      platform: "maps",
      op: "places",
      entity: "place1",
      freshnessKey: "k",
      measuredAt: at,
      rows: [{ name: "A" }],
      rowsAsked: 1,
      exhaustive: true,
      found: true,
      source: "maps-src"
    }
    const view = Coverage.storedView(p, u, stored, keep)
    assert.strictEqual(Coverage.storedView(p, u, stored, keep), view)
    assert.isTrue(Object.isFrozen(view.rows) && Object.isFrozen(view.rows[0]))
    assert.strictEqual(view.at, at.toISOString())
  })

  it("D10: a contact row shows parts owned, revealed now, and nothing on file", () => {
    const later = new Date(at.getTime() + 1000)
    const row = Coverage.contactRow(unitOf({ subject: "p1" }, { held: [held], buy: ["phone"] }), {}, later, "c2")
    assert.deepStrictEqual(row, {
      subject: "p1",
      measuredAt: later.toISOString(),
      source: "c2",
      email: { status: "owned", value: "e@x.org", revealedAt: at.toISOString() },
      phone: { status: "nothing_on_file", value: null }
    })
    const bought = Coverage.contactRow(unitOf({ subject: "p1" }, { buy: ["email"] }), { email: "n@x.org" }, at, "c")
    assert.deepStrictEqual(bought["email"], { status: "revealed", value: "n@x.org" })
    assert.notProperty(bought, "phone")
  })

  it("D4: a call's answer lists its units in plan order: stored, omitted with the reason, fetched and priced", () => {
    const op = opOf("maps", "places")
    const stored: Measurement = {
      platform: "maps",
      op: "places",
      entity: "s1",
      freshnessKey: "k1",
      measuredAt: at,
      rows: [{ placeId: "s1" }],
      rowsAsked: 1,
      exhaustive: true,
      found: true,
      source: "held"
    }
    const s1 = unitOf({ subject: "s1" }, { stored })
    const s2 = unitOf({ subject: "s2" })
    const s3 = unitOf({ subject: "s3" })
    const p = planOf(op, [s1, s2, s3])
    const fetched = new Map<unknown, Fetched>([
      [s2, { unit: s2, omitted: "not_found", detail: "gone", source: "up" }],
      [
        s3,
        {
          unit: s3,
          outcome: { _tag: "Delivered", rows: [{ placeId: "s3" }], exhaustive: true, points: [], source: "up" },
          at
        }
      ]
    ])
    const answer = assembled(p, fetched, 4)
    assert.deepStrictEqual(
      answer.coverage.map((c) => [c.subject, c.status, c.rows, c.credits, c.source, c.reason]),
      [
        ["s1", "stored", 1, 0, "held", undefined],
        ["s2", "omitted", 0, 0, "up", "not_found"],
        ["s3", "fetched", 1, 4, "up", undefined]
      ]
    )
    assert.deepStrictEqual(
      answer.data.map((r) => [r["subject"], r["placeId"], r["source"]]),
      [
        ["s1", "s1", "held"],
        ["s3", "s3", "up"]
      ]
    )
  })

  it("D10: a contacts answer has one row per person, held parts shown even when the fetch of the rest failed", () => {
    const op = opOf("contacts", "reveal")
    const owned = unitOf({ subject: "p1" }, { held: [held] })
    const failing = unitOf({ subject: "p1" }, { held: [held], buy: ["phone"] })
    const nothing = unitOf({ subject: "p2" }, { buy: ["email"] })
    const bought = unitOf({ subject: "p3" }, { buy: ["email", "phone"] })
    const p = planOf(op, [owned, failing, nothing, bought])
    const fetched = new Map<unknown, Fetched>([
      [failing, { unit: failing, omitted: "upstream_failed", detail: "HTTP 500", source: "c" }],
      [nothing, { unit: nothing, omitted: "upstream_timeout", detail: "slow", source: "c" }],
      [
        bought,
        {
          unit: bought,
          outcome: {
            _tag: "Delivered",
            rows: [{ email: "b@x.org", phone: null }],
            exhaustive: true,
            points: [],
            source: "c"
          },
          at
        }
      ]
    ])
    const answer = assembled(p, fetched, 105)
    assert.deepStrictEqual(
      answer.coverage.map((c) => [c.subject, c.status, c.rows, c.credits]),
      [
        ["p1", "stored", 1, 0],
        ["p1", "omitted", 0, 0],
        ["p2", "omitted", 0, 0],
        ["p3", "fetched", 1, 105]
      ]
    )
    assert.deepStrictEqual(
      answer.data.map((r) => [r["subject"], (r["email"] as { status: string } | undefined)?.status]),
      [
        ["p1", "owned"],
        ["p1", "owned"],
        ["p3", "revealed"]
      ]
    )
    assert.deepStrictEqual(answer.data[2]?.["phone"], { status: "nothing_on_file", value: null })
  })
})
