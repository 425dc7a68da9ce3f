/**
 * Building blocks of row Schemas: what an adapter delivers for each op (camelCase fields, the unit of every number
 * in its description) and the envelope fields the domain adds to every answer row (D4).
 */
import { Schema } from "effect"

/** A string field. */
export const str = (description: string) => Schema.String.annotations({ description })

/** A number field; its unit is said in the description. */
export const num = (description: string) => Schema.Number.annotations({ description })

/** An integer field. */
export const int = (description: string) => Schema.Int.annotations({ description })

/** An integer >= 0 (a count). */
export const count = (description: string) => Schema.NonNegativeInt.annotations({ description })

/** A boolean field. */
export const bool = (description: string) => Schema.Boolean.annotations({ description })

/** An absolute URL (JSON Schema format `uri`). */
export const url = (description: string) =>
  Schema.String.pipe(
    Schema.filter(isUrl, { message: () => "must be an absolute URL", jsonSchema: { format: "uri" } })
  ).annotations({ description })

const isUrl = (s: string) => {
  try {
    return new URL(s).protocol.length > 1
  } catch {
    return false
  }
}

const isoInstant = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/

/** An ISO 8601 instant (JSON Schema format `date-time`). */
export const dateTime = (description: string) =>
  Schema.String.pipe(
    Schema.filter((s) => isoInstant.test(s) && !Number.isNaN(Date.parse(s)), {
      message: () => "must be an ISO 8601 instant",
      jsonSchema: { format: "date-time" }
    })
  ).annotations({ description })

/** A value upstream may not know: `null` then. */
export const nullable = <S extends Schema.Schema.Any>(schema: S) => Schema.NullOr(schema)

/** An optional field (absent, never `undefined`). */
export const optional = <S extends Schema.Schema.Any>(schema: S) => Schema.optionalWith(schema, { exact: true })

/** One of the listed values. */
export const oneOf = <const L extends ReadonlyArray<string>>(description: string, ...values: L) =>
  Schema.Literal(...values).annotations({ description })

/** A list of values. */
export const list = <S extends Schema.Schema.Any>(item: S, description: string) =>
  Schema.Array(item).annotations({ description })

/** The 1-based rank of a row in its result list. */
export const position = Schema.Int.pipe(Schema.greaterThanOrEqualTo(1)).annotations({
  description: "1-based rank of the row in the result list"
})

/** An ISO 4217 currency code. */
export const currency = (description = "ISO 4217 currency code of the prices") => str(description)

/** Envelope fields the domain adds to every answer row (D4). */
export const envelope = {
  subject: str("the canonical subject the row answers (for query ops: the row's own entity, else the query)"),
  measuredAt: dateTime("when the row was measured upstream (ISO 8601, UTC)"),
  source: str("the adapter that measured the row")
} as const

/** Row fields shared by every review-like row. */
export const review = (scale: string) => ({
  reviewId: str("upstream id of the review"),
  position,
  author: str("display name of the reviewer"),
  rating: int(`rating given, on a scale of ${scale}`),
  title: str("review title"),
  text: str("review text"),
  postedAt: dateTime("when the review was posted")
})

/**
 * How a history metric is measured: the row field it is read from, and how a point is formed from rows: `each`
 * row of an entity gives its value; a store's point aggregates its rows (`min`, `max`, `sum`, or `countTrue`, the
 * number of rows where the boolean field is true).
 */
export interface MetricSource {
  readonly field: string
  readonly aggregate: "each" | "min" | "max" | "sum" | "countTrue"
}

/** The metric is the value of this row field. */
export const field = (name: string): MetricSource => ({ field: name, aggregate: "each" })

/** The metric aggregates this field over the rows of the subject. */
export const aggregate = (name: string, how: Exclude<MetricSource["aggregate"], "each">): MetricSource => ({
  field: name,
  aggregate: how
})

/** Applies a metric source to the rows measured for one subject (`each`: the first row's value). */
export const measure = (
  source: MetricSource,
  rows: ReadonlyArray<Readonly<Record<string, unknown>>>
): number | undefined => {
  const values = rows.map((r) => r[source.field])
  switch (source.aggregate) {
    case "each":
      return typeof values[0] === "number" ? values[0] : undefined
    case "countTrue":
      return values.filter((v) => v === true).length
    default: {
      const numbers = values.filter((v): v is number => typeof v === "number")
      if (numbers.length === 0) return source.aggregate === "sum" ? 0 : undefined
      return source.aggregate === "min"
        ? Math.min(...numbers)
        : source.aggregate === "max"
          ? Math.max(...numbers)
          : numbers.reduce((a, b) => a + b, 0)
    }
  }
}
