/**
 * The facets of an op: typed accessors of the request fields the core reads, made from the op's declared fields.
 * They read a request its op's Schema has decoded; each reader narrows what it reads (no cast), so a field the Schema
 * did not shape reads as absent.
 */
import { Predicate, type Schema } from "effect"
import type { OpKind, Part } from "../OpKind.js"
import type { Facets, OpInput } from "./Model.js"

const noParts: ReadonlyArray<Part> = []

/** The distinct strings of a list field, in order. */
const distinctStrings = (value: unknown): ReadonlyArray<string> =>
  Array.isArray(value) ? [...new Set(value.filter(Predicate.isString))] : []

/** An object field, or undefined. */
const record = (value: unknown): Readonly<Record<string, unknown>> | undefined =>
  Predicate.isRecord(value) ? value : undefined

const isPart = (value: unknown): value is Part => value === "email" || value === "phone"

/** The typed accessors of an op's request fields the core reads (see `Facets`). */
export const facetsOf = (
  input: OpInput<Schema.Struct.Fields, Schema.Struct.Fields, Schema.Schema.AnyNoContext | undefined, OpKind>,
  kind: OpKind
): Facets => {
  const runsSource = kind._tag === "Run" && kind.source
  const f = input.fields
  const rowsField = "limit" in f ? "limit" : "pages" in f ? "pages" : undefined
  return {
    label: input.label ?? ("query" in f ? (r) => (typeof r["query"] === "string" ? r["query"] : "") : () => ""),
    subjects:
      "subjects" in f
        ? (r) => distinctStrings(r["subjects"])
        : "subject" in f
          ? (r) => [String(r["subject"])]
          : () => [],
    asked: rowsField === undefined ? () => 1 : (r) => Number(r[rowsField]),
    store: "store" in f ? (r) => record(r["store"]) : () => undefined,
    pricedStay:
      "stay" in f
        ? (r) => {
            const stay = record(r["stay"])
            return stay && typeof stay["checkIn"] === "string" ? stay : null
          }
        : () => null,
    source: runsSource ? (r) => String(r["source"]) : () => undefined,
    sourceInput: runsSource ? (r) => record(r["input"]) ?? {} : () => ({}),
    parts:
      kind._tag === "Reveal"
        ? (r) => (Array.isArray(r["reveal"]) ? [...new Set(r["reveal"].filter(isPart))] : noParts)
        : () => noParts
  }
}
