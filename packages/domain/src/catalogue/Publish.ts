/** Publishing the catalogue (D13): each op's request as JSON Schema, and the public catalogue. */
import { JSONSchema, Schema } from "effect"
import * as F from "../Fields.js"
import { published as publishedPrice } from "../Pricing.js"
import { type OpDef, runsSource } from "./Model.js"
import { platforms } from "./Platforms.js"

/**
 * The JSON Schema (2020-12) of an op's request (`op` and its fields), generated from the Schema that validates it
 * (D13). With `definitions`, shared definitions go there (the OpenAPI document's `components/schemas`).
 */
export const requestJsonSchema = (
  def: OpDef,
  options?: { readonly definitions: Record<string, JSONSchema.JsonSchema7>; readonly definitionPath: string }
): JSONSchema.JsonSchema7Root => {
  const encoded = Schema.encodedBoundSchema(def.schema).ast
  const definitions: Record<string, JSONSchema.JsonSchema7> = options?.definitions ?? {}
  const schema = JSONSchema.fromAST(encoded, {
    definitions,
    ...(options ? { definitionPath: options.definitionPath } : {}),
    target: options ? "openApi3.1" : "jsonSchema2020-12"
  })
  // the rules a refinement of a struct states (dropped by the generator) are added from the op's facets
  // (a struct's schema has `properties`, and a store- or stay-scoped op has that field)
  if ("properties" in schema) {
    const { store, stay } = schema.properties
    if (def.scope === "store" && store) schema.properties["store"] = { ...store, ...F.storeJsonRule }
    if (def.scope === "stay" && stay) schema.properties["stay"] = { ...stay, ...F.stayJsonRule }
  }
  const out = def.requestRule ? { ...schema, ...def.requestRule } : schema
  if (options) return out
  return {
    $schema: "https://json-schema.org/draft/2020-12/schema",
    ...(Object.keys(definitions).length > 0 ? { $defs: definitions } : {}),
    ...out
  }
}

/** An explore source as the catalogue lists it under explore `run` (D19). */
export interface PublishedSource {
  readonly name: string
  readonly price: { readonly credits: number; readonly rows: number }
}

/**
 * The public catalogue (D13): every platform and op with price rule, window, availability and request schema;
 * explore `run` lists the sources served now with their per-row price (D19).
 */
export const publish = (
  sources: ReadonlyArray<PublishedSource> = [],
  servedBy?: (
    platform: string,
    op: string
  ) => {
    readonly adapter: string
    readonly actor?: string
    readonly store?: ReadonlyArray<F.StoreForm>
    readonly requires?: Readonly<Record<string, string>>
    readonly refuses?: Readonly<Record<string, string>>
    readonly maxRows?: number
  },
  /** A valid example request of an op (issue 23: `Examples.minimal`, with a source served now for explore run). */
  exampleOf?: (op: OpDef, source: string | undefined) => Readonly<Record<string, unknown>>
) =>
  platforms.map((p) => ({
    platform: p.id,
    description: p.description,
    ops: p.ops.map((o) => ({
      op: o.name,
      description: o.description,
      price: publishedPrice(o.price),
      freshnessSeconds: o.freshSeconds,
      available: o.available,
      units: o.units,
      subjects: o.subjectSpec?.describe ?? null,
      ...(o.metrics ? { metrics: o.metrics } : {}),
      ...(runsSource(o)
        ? { sources: sources.map((s) => ({ name: s.name, price: { credits: s.price.credits, rows: s.price.rows } })) }
        : {}),
      requestSchema: runsSource(o) ? withSources(requestJsonSchema(o), sources) : requestJsonSchema(o),
      ...(exampleOf ? { example: exampleOf(o, sources[0]?.name) } : {}),
      ...(servedBy ? { servedBy: servedBy(p.id, o.name) } : {})
    }))
  }))

/** A request schema whose `source` is one of the sources served now (D19): a name outside them is refused (400). */
const withSources = (
  schema: JSONSchema.JsonSchema7Root,
  sources: ReadonlyArray<PublishedSource>
): JSONSchema.JsonSchema7Root => {
  if (sources.length === 0 || !("properties" in schema)) return schema
  const source = { ...schema.properties["source"], enum: sources.map((s) => s.name) }
  return { ...schema, properties: { ...schema.properties, source } }
}
