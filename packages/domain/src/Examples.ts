/** Valid example requests for any op of the catalogue, derived from the op's own Schema and subject forms. */
import { Either, Option, Schema } from "effect"
import * as Catalogue from "./Catalogue.js"
import * as Fields from "./Fields.js"
import * as Pricing from "./Pricing.js"
import * as Subjects from "./Subjects.js"

const candidates = [
  "https://www.example.com/in/jane-doe/@jane/rooms/12345/comments/abc123/p/item-123456?place_id=ChIJabcdefghijkl&id=com.example.app&jk=abcdef1234567890",
  "jane.doe",
  "12345678",
  "ChIJabcdefghijkl",
  "com.example.app",
  "abc123"
]

/** The i-th distinct valid subject of an op. */
export const subject = (op: Catalogue.OpDef, i = 0): string => {
  for (const c of candidates) {
    const variant = c.startsWith("https://")
      ? `${c}&n=${i}`
      : /^\d+$/.test(c)
        ? `${Number(c) + i}`
        : i === 0
          ? c
          : `${c}${i}`
    if (Either.isRight(Subjects.normalize(op.subjectSpec!, variant))) return variant
  }
  throw new Error(`no candidate subject for ${op.platform} ${op.name}`)
}

/**
 * The smallest valid request of an op; a store-scoped op's `store` is of the first locator form in `storeForms` (the
 * forms the upstream serving it takes here, `servedBy.store`), by default the first form; `requires` are optional
 * fields the upstream serving it here cannot do without (`servedBy.requires`), given too; `refuses` are optional fields
 * it cannot serve (`servedBy.refuses`), never given (of a rule "exactly one of", the first alternative not refused).
 */
export const minimal = (
  op: Catalogue.OpDef,
  source = "known",
  storeForms: ReadonlyArray<Fields.StoreForm> = Fields.storeFormNames,
  requires: ReadonlyArray<string> = [],
  refuses: ReadonlyArray<string> = []
): Record<string, unknown> => {
  const schema = Catalogue.requestJsonSchema(op)
  const out: Record<string, unknown> = { op: op.name }
  for (const field of "required" in schema ? schema.required : []) {
    if (field === "op") continue
    if (field === "subjects") out[field] = [subject(op)]
    else if (field === "subject") out[field] = subject(op)
    else if (field === "store") out[field] = Fields.storeExamples[storeForms[0] ?? "storeId"]
    else if (field === "source") out[field] = source
    else out[field] = "x"
  }
  // a request rule "exactly one of these fields" (JSON Schema `oneOf` of `required`): the first one not refused here
  const rule: { readonly oneOf?: ReadonlyArray<{ readonly required?: ReadonlyArray<string> }> } = op.requestRule ?? {}
  const first = rule.oneOf
    ?.map((alternative) => alternative.required ?? [])
    .find((fields) => fields.every((f) => !refuses.includes(f)))?.[0]
  if (first !== undefined && !(first in out)) out[first] = "x"
  for (const field of requires) if (!(field in out)) out[field] = "x"
  return out
}

/** The published JSON Schema of one of an op's request fields (undefined when it has none). */
const property = (op: Catalogue.OpDef, field: string): unknown => {
  const schema = Catalogue.requestJsonSchema(op)
  return "properties" in schema ? schema.properties[field] : undefined
}

const Bounds = Schema.Struct({ minimum: Schema.Number, maximum: Schema.Number })
const MaxItems = Schema.Struct({ maxItems: Schema.Number })

/** Bounds of an op's rows field (`limit` or `pages`). */
export const rowsBounds = (op: Catalogue.OpDef): [number, number] => {
  if (!op.rowsField) return [1, 1]
  const { minimum, maximum } = Schema.decodeUnknownSync(Bounds)(property(op, op.rowsField))
  return [minimum, maximum]
}

/** The maximum number of subjects of an op. */
export const maxSubjects = (op: Catalogue.OpDef): number => {
  return Option.getOrElse(
    Option.map(Schema.decodeUnknownOption(MaxItems)(property(op, "subjects")), (p) => p.maxItems),
    () => 1
  )
}

/** Every op a caller pays for: not history, available, not contacts. */
export const paidOps = Catalogue.platforms
  .flatMap((p) => p.ops)
  .filter((o) => o.kind._tag !== "Series" && o.kind._tag !== "Reveal" && o.available && !Pricing.isFree(o.price))
