// The entries a call notes for the nightly refresh (Demand.entriesOf): one per subject, with the request that measures
// that subject alone. A remembered (frozen) request gives the same replay every time (issue 22: the Demand adapter
// keeps an entry noted again in place when its request is the same object).
import { assert, describe, it } from "@effect/vitest"
import { Catalogue, Demand } from "../src/index.js"

const places = Catalogue.findOp("maps", "places")!
const plan = (request: Catalogue.OpRequest, subjects: ReadonlyArray<string>) => ({
  op: places,
  request,
  units: subjects.map((subject) => ({ label: { subject }, freshnessKey: `fk-${subject}` }))
})

describe("Demand.entriesOf", () => {
  it("notes each subject with its replay request; a frozen request's replays are kept and shared", () => {
    const request = Object.freeze({ subjects: Object.freeze(["a", "b"]), limit: 3 }) as unknown as Catalogue.OpRequest
    const at = new Date("2026-11-20T10:00:00.000Z")
    const first = Demand.entriesOf(plan(request, ["a", "b"]), at)
    assert.deepStrictEqual(
      first.map((e): ReadonlyArray<unknown> => [e.freshnessKey, e.subject, e.request, e.demandedAt]),
      [
        ["fk-a", "a", { subjects: ["a"], limit: 3 }, at],
        ["fk-b", "b", { subjects: ["b"], limit: 3 }, at]
      ]
    )
    const again = Demand.entriesOf(plan(request, ["a", "b"]), new Date("2026-11-20T11:00:00.000Z"))
    assert.strictEqual(again[0]!.request, first[0]!.request)
    assert.strictEqual(again[1]!.request, first[1]!.request)
    assert.isTrue(Object.isFrozen(first[0]!.request))
    // a request that is not frozen may change: its replay is made anew
    const open = { subjects: ["a"], limit: 3 } as unknown as Catalogue.OpRequest
    const once = Demand.entriesOf(plan(open, ["a"]), at)[0]!.request
    assert.notStrictEqual(Demand.entriesOf(plan(open, ["a"]), at)[0]!.request, once)
    assert.deepStrictEqual(once as unknown, { subjects: ["a"], limit: 3 })
  })
})
