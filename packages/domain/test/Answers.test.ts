// issue 22: an answer's text is written with its stored rows' and coverage items' kept JSON; whatever the answer, the
// text is what JSON.stringify writes for it (`data` first), the first time and every later time
import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"
import { Answers } from "../src/index.js"

const deepFreeze = <A>(v: A): A => {
  if (typeof v === "object" && v !== null) {
    for (const x of Object.values(v)) deepFreeze(x)
    Object.freeze(v)
  }
  return v
}

const json = fc.jsonValue()
const member = fc.oneof(
  json,
  fc.constant(undefined),
  fc.constant(() => 1),
  fc.date({ noInvalidDate: true })
)
// a row some of whose members are carried as JSON text (a history's points, issue 22 d), from their text or a value
const textRow = fc
  .dictionary(
    fc.string(),
    fc.oneof(
      member,
      json.map((v) => Answers.JsonText.fromText(JSON.stringify(v))),
      json.map((v) => Answers.JsonText.of(v))
    )
  )
  .map((o) => Answers.withText(o))
const item = fc.oneof(
  fc.tuple(fc.dictionary(fc.string(), member), fc.boolean()).map(([o, frozen]) => (frozen ? deepFreeze(o) : o)),
  textRow
)
const body = fc
  .tuple(
    fc.array(item, { maxLength: 5 }),
    fc.dictionary(
      fc.string().filter((k) => k !== "data"),
      member
    ),
    fc.option(fc.array(fc.oneof(item, json), { maxLength: 5 }), { nil: undefined })
  )
  .map(([data, rest, coverage]) =>
    coverage === undefined ? { data, ...rest } : { data, cost: { creditsCharged: 0 }, coverage, ...rest }
  )

/** The text as it was written before (every member by JSON.stringify, `data` first): the reference. */
const reference = (b: { readonly data: ReadonlyArray<object> } & Record<string, unknown>) => {
  const { data, ...rest } = b
  const tail = JSON.stringify(rest)
  const rows = data.map((r) => JSON.stringify(r)).join(",")
  return tail === "{}" ? `{"data":[${rows}]}` : `{"data":[${rows}],${tail.slice(1)}`
}

describe("Answers.text", () => {
  it("writes what JSON.stringify writes, data first, with kept JSON reused", () => {
    fc.assert(
      fc.property(body, (b) => {
        const expected = reference(b)
        assert.deepStrictEqual(JSON.parse(expected), JSON.parse(JSON.stringify(b)))
        assert.strictEqual(Answers.text(b), expected)
        // again: frozen rows and items are now written from their kept JSON
        assert.strictEqual(Answers.text(b), expected)
      }),
      { numRuns: 500 }
    )
  })

  it("a member carried as JSON text is written as its text, not parsed and written again", () => {
    const points = Answers.JsonText.fromText<ReadonlyArray<{ value: number }>>('[{"value": 1} , {"value":2.50}]')
    const row = Answers.withText({ subject: "s", points, measuredAt: "2026-01-01T00:00:00.000Z" })
    const b = { data: [row], coverage: [{ subject: "s", rows: 2 }] }
    assert.strictEqual(
      Answers.text(b),
      '{"data":[{"subject":"s","points":[{"value": 1} , {"value":2.50}],"measuredAt":"2026-01-01T00:00:00.000Z"}],"coverage":[{"subject":"s","rows":2}]}'
    )
    // read any other way, it is its value
    assert.deepStrictEqual(JSON.parse(JSON.stringify(b)), JSON.parse(Answers.text(b)))
    assert.deepStrictEqual(points.value, [{ value: 1 }, { value: 2.5 }])
    assert.strictEqual(Answers.JsonText.of([1, 2]).text, "[1,2]")
    assert.strictEqual(Answers.JsonText.of(undefined).value, undefined)
  })

  it("a frozen row or coverage item shared by two answers is written the same in both", () => {
    const row = deepFreeze({ subject: "s", rows: 1, measuredAt: "2026-01-01T00:00:00.000Z" })
    const a = { data: [row], cost: { creditsCharged: 0, creditsRemaining: 5 }, coverage: [row], requestId: "r1" }
    const b = { data: [row, row], cost: { creditsCharged: 0, creditsRemaining: 4 }, coverage: [row], requestId: "r2" }
    assert.strictEqual(Answers.text(a), JSON.stringify(a))
    assert.strictEqual(Answers.text(b), JSON.stringify(b))
  })
})
