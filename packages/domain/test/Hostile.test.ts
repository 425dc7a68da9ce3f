// Issue 14, the pure parts: the depth scan finds the first container past the limit without recursion and agrees
// with a parse; canonicalJson has no depth limit and spells what the recursive definition spells; storable text.
import { assert, describe, it } from "@effect/vitest"
import { FastCheck as fc } from "effect"
import { canonicalJson } from "../src/Freshness.js"
import { maxJsonDepth, tooDeep } from "../src/Requests.js"
import { isStorable } from "../src/Subjects.js"

/** The recursive definition canonicalJson must keep (its output names stored freshness keys). */
const recursive = (value: unknown): string => {
  if (Array.isArray(value)) return `[${value.map(recursive).join(",")}]`
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${recursive(v)}`).join(",")}}`
  }
  return JSON.stringify(value)
}

/** The depth of a parsed value (the value itself is level 1 when it is a container). */
const depthOf = (value: unknown): number => {
  let max = 0
  const work: Array<[unknown, number]> = [[value, 1]]
  while (work.length > 0) {
    const [v, d] = work.pop()!
    if (v === null || typeof v !== "object") continue
    max = Math.max(max, d)
    for (const x of Object.values(v)) work.push([x, d + 1])
  }
  return max
}

describe("hostile input", () => {
  it.prop("canonicalJson spells any JSON value as the recursive definition does", [fc.jsonValue()], ([value]) => {
    assert.strictEqual(canonicalJson(value), recursive(value))
  })

  it("canonicalJson and tooDeep take 100,000 levels without recursion", () => {
    const deep = JSON.parse(`${"[".repeat(100_000)}${"]".repeat(100_000)}`)
    assert.strictEqual(canonicalJson(deep).length, 200_000)
    const text = `{"request":{"op":"x","subjects":["a",${"[".repeat(100_000)}${"]".repeat(100_000)}]}}`
    assert.strictEqual(tooDeep(text), `request.subjects[1]${"[0]".repeat(maxJsonDepth - 3)}`)
  })

  it.prop(
    "tooDeep refuses exactly the texts nested deeper than the limit, keys with quotes and escapes included",
    [fc.jsonValue({ maxDepth: 8 }), fc.integer({ min: 1, max: 8 })],
    ([value, max]) => {
      const found = tooDeep(JSON.stringify(value), max)
      assert.strictEqual(found !== undefined, depthOf(value) > max, `${JSON.stringify(value)} at ${max}`)
    }
  )

  it("the path names the offending member, through escaped keys", () => {
    assert.strictEqual(tooDeep('{"a\\"b":{"c,d":[1,{"e":[[]]}]}}', 4), 'a"b.c,d[1].e')
    assert.strictEqual(tooDeep('{"a":"[[[[","b":[[1]]}', 2), "b[0]")
  })

  it("storable text: no NUL, no unpaired surrogate; pairs and other characters are fine", () => {
    for (const s of ["a\u0000b", "\uD800", "x\uDFFF", "\uDC00\uD800", "\u0000"]) assert.isFalse(isStorable(s), s)
    for (const s of ["", "plain", "é", "😀", "\uD83D\uDE00", "\u0001\u2028"]) assert.isTrue(isStorable(s), s)
  })
})
