// The published request JSON Schemas and the server's decoding agree (D5, D13): requests generated from each op's
// own Schema pass its published JSON Schema and are accepted; breaking one published constraint is refused with a
// 400 naming that field, and the JSON Schema refuses it too. Requests.decode is exactly what the server runs on the
// body of POST /api/v1/platforms/{platform} before anything is quoted.
import { assert, describe, it } from "@effect/vitest"
import { Catalogue, Examples, Requests } from "@pdr/domain"
import { Ajv2020 } from "ajv/dist/2020.js"
import addFormatsModule from "ajv-formats"
import { Arbitrary, Effect, Either, FastCheck as fc, Schema } from "effect"

const formats = addFormatsModule as unknown as { default?: (ajv: Ajv2020) => unknown }
const addFormats = (formats.default ?? (addFormatsModule as unknown as (ajv: Ajv2020) => unknown)) as (
  ajv: Ajv2020
) => unknown
const ajv = new Ajv2020({ strict: false, allErrors: true })
addFormats(ajv)

const ops = Catalogue.platforms.flatMap((p) => p.ops)

/**
 * Subject forms are published as a description (not yet a pattern): generated subjects are replaced by valid ones.
 * Rules the JSON Schema can only say in a description (one date or bound after another) are put in order.
 */
const repaired = (op: Catalogue.OpDef, raw: Record<string, unknown>): Record<string, unknown> => {
  const r: Record<string, unknown> = { ...raw }
  if (Array.isArray(r["subjects"])) r["subjects"] = r["subjects"].map((_, i) => Examples.subject(op, i))
  if (typeof r["subject"] === "string") r["subject"] = Examples.subject(op)
  const order = (o: Record<string, unknown>, a: string, b: string, strict: boolean) => {
    const x = o[a]
    const y = o[b]
    if (x === undefined || y === undefined) return
    if (typeof x === "string" && typeof y === "string" && (strict ? y <= x : y < x)) {
      if (x === y) {
        delete o[a]
        delete o[b]
      } else [o[a], o[b]] = [y, x]
    }
    if (typeof x === "number" && typeof y === "number" && y < x) [o[a], o[b]] = [y, x]
  }
  order(r, "since", "until", false)
  order(r, "priceMin", "priceMax", false)
  order(r, "salaryMin", "salaryMax", false)
  if (r["stay"] && typeof r["stay"] === "object") {
    const stay = { ...(r["stay"] as Record<string, unknown>) }
    order(stay, "checkIn", "checkOut", true)
    r["stay"] = stay
  }
  return r
}

const decode = (op: Catalogue.OpDef, request: unknown) =>
  Effect.runSync(Effect.either(Requests.decode(op.platform, { request })))

describe("published request Schemas and the server agree", () => {
  for (const op of ops) {
    const published = ajv.compile(Catalogue.requestJsonSchema(op) as object)
    const arbitrary = Arbitrary.make(Schema.encodedBoundSchema(op.schema)) as fc.Arbitrary<Record<string, unknown>>

    it(`${op.platform} ${op.name}: generated requests: the published schema and the server agree`, () => {
      let accepted = 0
      fc.assert(
        fc.property(arbitrary, (raw) => {
          const request = repaired(op, raw)
          const server = Either.isRight(decode(op, request))
          const schema = published(request)
          if (schema !== server) {
            throw new Error(
              `schema ${schema ? "accepts" : "refuses"}, server ${server ? "accepts" : "refuses"}: ${JSON.stringify(request)} ${ajv.errorsText(published.errors)}`
            )
          }
          if (server) accepted++
        }),
        { numRuns: op.requestRule ? 150 : 25 }
      )
      // the struct rules (exactly one form, dates both or neither) are not in the generator: most requests are valid
      assert.isAbove(accepted, op.requestRule ? 0 : 5)
    })

    it(`${op.platform} ${op.name}: breaking one published constraint is refused by both, naming the field`, () => {
      const schema = Catalogue.requestJsonSchema(op) as { properties: Record<string, any> }
      const base = Examples.minimal(op, "known")
      const breaks: Array<[string, unknown]> = [["unexpectedField", 1]]
      for (const [field, p] of Object.entries(schema.properties)) {
        if (field === "op") continue
        if (typeof p.maximum === "number") breaks.push([field, p.maximum + 1])
        if (typeof p.minimum === "number") breaks.push([field, p.minimum - 1])
        if (Array.isArray(p.enum)) breaks.push([field, "not-a-listed-value"])
        if (typeof p.maxLength === "number") breaks.push([field, "x".repeat(p.maxLength + 1)])
        if (typeof p.maxItems === "number" && p.items)
          breaks.push([
            field,
            Array(p.maxItems + 1).fill(base[field] === undefined ? "x" : ((base[field] as unknown[])?.[0] ?? "x"))
          ])
        if (p.type === "array") breaks.push([field, "x"])
        if (field === "subjects") breaks.push([field, ["not a subject!"]], [field, ["ftp://example.com/x"]])
        if (field === "subject") breaks.push([field, "not a subject!"], [field, "ftp://example.com/x"])
      }
      for (const [field, value] of breaks) {
        const request = { ...base, [field]: value }
        assert.isFalse(published(request), `${op.platform} ${op.name} ${field}=${JSON.stringify(value)}: schema`)
        const refused = decode(op, request)
        assert.isTrue(Either.isLeft(refused), `${op.platform} ${op.name} ${field}: server refuses`)
        if (Either.isLeft(refused) && refused.left._tag === "InvalidRequest") {
          assert.isTrue(
            refused.left.details.some((d) => d.path === `request.${field}` || d.path.startsWith(`request.${field}[`)),
            `${op.platform} ${op.name}: 400 names request.${field}: ${JSON.stringify(refused.left.details)}`
          )
        }
      }
    })
  }
})
