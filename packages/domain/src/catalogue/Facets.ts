/** The facets of an op: typed accessors of the request fields the core reads, made from the op's declared fields. */
import type { Schema } from "effect"
import type { OpKind, Part } from "../OpKind.js"
import type { Facets, OpInput } from "./Model.js"

const noParts: ReadonlyArray<Part> = []

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
        ? (r) => [...new Set(r["subjects"] as ReadonlyArray<string>)]
        : "subject" in f
          ? (r) => [String(r["subject"])]
          : () => [],
    asked: rowsField === undefined ? () => 1 : (r) => Number(r[rowsField]),
    store: "store" in f ? (r) => r["store"] as Readonly<Record<string, unknown>> | undefined : () => undefined,
    pricedStay:
      "stay" in f
        ? (r) => {
            const stay = r["stay"] as Readonly<Record<string, unknown>> | undefined
            return stay && typeof stay["checkIn"] === "string" ? stay : null
          }
        : () => null,
    source: runsSource ? (r) => String(r["source"]) : () => undefined,
    sourceInput: runsSource ? (r) => (r["input"] ?? {}) as Readonly<Record<string, unknown>> : () => ({}),
    parts: kind._tag === "Reveal" ? (r) => [...new Set(r["reveal"] as ReadonlyArray<Part>)] : () => noParts
  }
}
