/**
 * What an op does, as a typed part of its catalogue entry: it measures data that is kept (per row or per result
 * page), reads a stored series back, reveals contact parts per org, or runs an uncatalogued source whose rows are
 * not kept. Each kind is one module under `kinds/` owning its steps (`Kinds.stepsOf`); no other module chooses a
 * behaviour by an op's name or its price rule.
 */
import { Data } from "effect"

/** A contact part an org buys (D10). */
export type Part = "email" | "phone"

/** The kind of an op. */
export type OpKind = Data.TaggedEnum<{
  /** Measured rows kept as stored data (D2, D9); `paging` says whether rows asked are rows or result pages (D1). */
  Measure: { readonly paging: "rows" | "pages" }
  /** A stored series read back (D9): never fetches, never bills. */
  Series: {}
  /** Contact parts revealed per org (D10): only the parts not held are fetched and paid. */
  Reveal: { readonly parts: ReadonlyArray<Part> }
  /** An uncatalogued source run (D19): raw rows, never kept; `source` says whether the request names a priced source. */
  Run: { readonly source: boolean }
}>

/** Constructors of {@link OpKind}. */
export const OpKind = Data.taggedEnum<OpKind>()

/** The kind of most ops: rows measured and kept. */
export const measure: Extract<OpKind, { readonly _tag: "Measure" }> = OpKind.Measure({ paging: "rows" })

/** Whether an op of this kind keeps its results as measured data (explore's runs keep nothing). */
export const keepsResults = (kind: OpKind): boolean => kind._tag !== "Run"
