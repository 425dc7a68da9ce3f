/**
 * Property-test support for the request contract (D5, D13): requests generated from an op's own request Schema, put
 * right where the published JSON Schema states a rule only in words, and requests that break one published
 * constraint. Shared by the contract tests of the decoding (`Requests.decode`) and of the server over a socket.
 */
import { Arbitrary, type FastCheck as fc, Predicate, Schema } from "effect"
import * as Catalogue from "./Catalogue.js"
import * as Examples from "./Examples.js"

/** Raw requests of an op, generated from the encoded side of its request Schema; pass each through `repaired`. */
export const arbitrary = (op: Catalogue.OpDef): fc.Arbitrary<Record<string, unknown>> =>
  // the encoded side of a request Struct is an object: the filter drops nothing, it proves it to the compiler
  Arbitrary.make(Schema.encodedBoundSchema(op.schema)).filter(Predicate.isRecord)

/** What the published catalogue says beside the request Schemas: the explore sources served now. */
export interface Served {
  readonly sources?: ReadonlyArray<string>
}

/**
 * A generated request made to follow what the generator does not: its subjects become valid, distinct ones (a form
 * is checked beyond what the generator follows), rules the JSON Schema can only say in a description (one date or
 * bound after another) are put in order, and, when `served` lists them, the explore source is one served now.
 */
export const repaired = (
  op: Catalogue.OpDef,
  raw: Record<string, unknown>,
  served: Served = {}
): Record<string, unknown> => {
  const r: Record<string, unknown> = { ...raw }
  if (Array.isArray(r["subjects"])) r["subjects"] = r["subjects"].map((_, i) => Examples.subject(op, i))
  if (typeof r["subject"] === "string") r["subject"] = Examples.subject(op)
  const sources = served.sources ?? []
  if (Catalogue.runsSource(op) && typeof r["source"] === "string" && sources.length > 0)
    r["source"] = sources[r["source"].length % sources.length]
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
  const given = r["stay"]
  if (given && typeof given === "object") {
    const stay: Record<string, unknown> = { ...given }
    order(stay, "checkIn", "checkOut", true)
    r["stay"] = stay
  }
  return r
}

/** One broken constraint: the field and the value that breaks it. */
export type Break = readonly [field: string, value: unknown]

/**
 * Every single broken constraint of a published request JSON Schema, each to be set on an otherwise valid `base`: an
 * unexpected field, maximum + 1, minimum - 1, a value outside an enum, maxLength + 1, maxItems + 1, a list given as a
 * string, and subjects in no accepted form.
 */
export const breaks = (published: object, base: Readonly<Record<string, unknown>>): ReadonlyArray<Break> => {
  const properties =
    Predicate.hasProperty(published, "properties") && Predicate.isRecord(published.properties)
      ? published.properties
      : {}
  const out: Array<Break> = [["unexpectedField", 1]]
  for (const [field, p] of Object.entries(properties)) {
    if (field === "op" || !Predicate.isRecord(p)) continue
    if (typeof p.maximum === "number") out.push([field, p.maximum + 1])
    if (typeof p.minimum === "number") out.push([field, p.minimum - 1])
    if (Array.isArray(p.enum)) out.push([field, "not-a-listed-value"])
    if (typeof p.maxLength === "number") out.push([field, "x".repeat(p.maxLength + 1)])
    if (typeof p.maxItems === "number" && p.items) {
      const given = base[field]
      out.push([field, Array(p.maxItems + 1).fill(Array.isArray(given) ? (given[0] ?? "x") : "x")])
    }
    if (p.type === "array") out.push([field, "x"])
    if (field === "subjects") out.push([field, ["not a subject!"]], [field, ["ftp://example.com/x"]])
    if (field === "subject") out.push([field, "not a subject!"], [field, "ftp://example.com/x"])
  }
  return out
}

/** Whether a field problem's path (`request.subjects[2]`) names this request field. */
export const names = (path: string, field: string): boolean =>
  path === `request.${field}` || path.startsWith(`request.${field}[`)
