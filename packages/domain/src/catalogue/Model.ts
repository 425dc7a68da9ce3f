/**
 * The catalogue's model: what an op and a platform are (request Schema, kind, price rule, window, subject forms,
 * rows), and how one op of the data is made into its definition.
 */
import { Data, Predicate, Schema } from "effect"
import type { OpKind, Part } from "../OpKind.js"
import type { PriceRule } from "../Pricing.js"
import * as R from "../rows/Row.js"
import type * as S from "../Subjects.js"
import { facetsOf } from "./Facets.js"

/**
 * Constructors of the op kinds (`OpKind`), for the catalogue's data: built from the union's type alone, so the
 * catalogue does not load the kind modules (which read the catalogue).
 */
export const OpKinds = Data.taggedEnum<OpKind>()

/** The kind of most ops: rows measured and kept. */
const measure = OpKinds.Measure({ paging: "rows" })

/** Whether an op of this kind keeps its results as measured data (explore's runs keep nothing). */
const keepsResults = (kind: OpKind): boolean => kind._tag !== "Run"

/** How an op's work divides into units (D4 `coverage`): one per subject, its one subject, or its query. */
export type UnitShape = "subjects" | "subject" | "query"

/** What a history point is kept per (D9): nothing, the resolved store, or the stay it was priced for. */
export type HistoryScope = "none" | "store" | "stay"

/**
 * One op of one platform. Its type parameters are the op's name, the Schema of its request fields and the Schema of
 * its answer rows: the typed catalogue (`typed`) keeps them, so the HTTP contract and its clients are typed per op.
 */
export interface OpDef<
  N extends string = string,
  Rq extends Schema.Schema.Any = Schema.Schema.AnyNoContext,
  Rw extends Schema.Schema.Any = Schema.Schema.AnyNoContext
> {
  readonly platform: string
  readonly name: N
  readonly description: string
  /** What the op does: measure, read a series, reveal contact parts, run a source. */
  readonly kind: OpKind
  readonly price: PriceRule
  /** The freshness window in seconds, or null when results are always fetched. */
  readonly freshSeconds: number | null
  readonly available: boolean
  /** The request Schema (`op` plus the op's own fields), decoding to the typed, defaulted request. */
  readonly schema: Schema.Schema<OpRequest, unknown>
  /** The struct of `op` and the op's fields, without the rules of the whole request (`schema` has them). */
  readonly request: Rq
  readonly units: UnitShape
  /** What a history point is kept per when this op measures it: the resolved store, the priced stay, or neither. */
  readonly scope: HistoryScope
  /** Typed accessors of the request fields the core reads. */
  readonly facets: Facets
  /** Rules of the whole request that its field Schemas do not say, as JSON Schema keywords or a description. */
  readonly requestRule: object | undefined
  /** The op's own request fields (without `op`), as declared. */
  readonly fields: Schema.Struct.Fields
  /** The subject forms, for ops that take `subjects` or `subject`. */
  readonly subjectSpec: S.SubjectSpec | undefined
  /** The field that says how many rows (or pages) are asked for. */
  readonly rowsField: "limit" | "pages" | undefined
  /** For `history` ops: the metric enum. */
  readonly metrics: ReadonlyArray<string> | undefined
  /** For `history` ops: per metric, the row field it is measured from and how a point aggregates rows. */
  readonly metricSources: Readonly<Record<string, R.MetricSource>> | undefined
  /** Whether results are kept as measured data (explore's runs keep nothing): from its kind. */
  readonly stored: boolean
  /** The Schema of one `data` row of the answer: the delivered fields plus the envelope (D4). */
  readonly row: Rw
  /** The Schema of one row as an upstream adapter delivers it (no envelope); undefined for a series. */
  readonly delivered: Schema.Schema.AnyNoContext | undefined
}

/**
 * What the core reads from a decoded request, as typed accessors of the op's declared fields: nothing outside the
 * catalogue names a request field.
 */
export interface Facets {
  /** The coverage label of a query unit (D4). */
  readonly label: (request: OpRequest) => string
  /** The canonical subjects of a `subjects` op, or the one subject of a `subject` op, in request order. */
  readonly subjects: (request: OpRequest) => ReadonlyArray<string>
  /** Rows (or pages) asked for: the op's `limit` or `pages`, else 1. */
  readonly asked: (request: OpRequest) => number
  /** The quick-commerce store locator, for store-scoped ops. */
  readonly store: (request: OpRequest) => Readonly<Record<string, unknown>> | undefined
  /** The stay, for stay-scoped ops, when it has dates (a priced stay, D9). */
  readonly pricedStay: (request: OpRequest) => Readonly<Record<string, unknown>> | null
  /** The explore source named, for ops priced per source row. */
  readonly source: (request: OpRequest) => string | undefined
  /** The input an explore source is run with (`{}` when none is given), for ops priced per source row. */
  readonly sourceInput: (request: OpRequest) => Readonly<Record<string, unknown>>
  /** The contact parts asked for (distinct), for ops priced per part. */
  readonly parts: (request: OpRequest) => ReadonlyArray<Part>
}

/** A decoded, defaulted op request: `op` and the op's own fields. */
export interface OpRequest {
  readonly op: string
  readonly [field: string]: unknown
}

/** A platform and its ops (typed, in the typed catalogue). */
export interface PlatformDef<Id extends string = string, Ops extends ReadonlyArray<OpDef> = ReadonlyArray<OpDef>> {
  readonly id: Id
  readonly description: string
  readonly ops: Ops
  /** History points of this platform: the scope they are kept per. */
  readonly historyScope: HistoryScope
}

export const HOUR = 3600
export const DAY = 24 * HOUR

/** What the catalogue's data says of one op; the rest of its definition is derived. */
export interface OpInput<
  Fl extends Schema.Struct.Fields,
  Rw extends Schema.Struct.Fields,
  AR extends Schema.Schema.AnyNoContext | undefined,
  Kd extends OpKind
> {
  readonly description: string
  /** What the op does; rows measured and kept when not said. */
  readonly kind?: Kd
  readonly price: PriceRule
  readonly fresh?: number
  readonly available?: boolean
  readonly fields: Fl
  readonly subjects?: S.SubjectSpec
  readonly check?: (
    request: Record<string, unknown>
  ) => true | string | { path: ReadonlyArray<string>; message: string }
  /** The coverage label of a query unit, when it is not the `query` field. */
  readonly label?: (request: OpRequest) => string
  /** How `check` reads in JSON Schema (a keyword such as `oneOf`, or a `description` when it cannot be one). */
  readonly checkJsonSchema?: object
  /** The fields of one delivered row (camelCase, units in descriptions). */
  readonly rows: Rw
  /** The answer row when it is not the delivered row plus the envelope (contacts, history). */
  readonly answerRow?: AR
  readonly metricSources?: Readonly<Record<string, R.MetricSource>>
}

const unverifiedField = Schema.Literal(true).annotations({ description: "raw, unverified, not kept" })

const rowOptions = { parseOptions: { onExcessProperty: "error" } } as const

/** The request struct of an op: `op` and its fields. */
type RequestStruct<N extends string, Fl extends Schema.Struct.Fields> = Schema.Struct<
  { readonly op: Schema.Literal<[N]> } & Fl
>

/** The answer row of an op: its own answer row, or the delivered fields plus the envelope (and `unverified`). */
type AnswerRow<
  Rw extends Schema.Struct.Fields,
  AR extends Schema.Schema.AnyNoContext | undefined,
  Kd extends OpKind
> = AR extends Schema.Schema.AnyNoContext
  ? AR
  : Schema.Struct<
      typeof R.envelope &
        Rw &
        (Kd extends { readonly _tag: "Run" } ? { readonly unverified: typeof unverifiedField } : {})
    >

/**
 * An op of the catalogue, made for its platform and typed with its name, request struct and answer row (`NoInfer`:
 * the row's type comes from the op's own input, never from the type expected where the op is used).
 */
export const op =
  <
    const N extends string,
    Fl extends Schema.Struct.Fields,
    Rw extends Schema.Struct.Fields,
    AR extends Schema.Schema.AnyNoContext | undefined = undefined,
    Kd extends OpKind = typeof measure
  >(
    name: N,
    input: OpInput<Fl, Rw, AR, Kd>
  ) =>
  (platform: string): OpDef<N, RequestStruct<N, Fl>, AnswerRow<Rw, NoInfer<AR>, NoInfer<Kd>>> => {
    const kind: OpKind = input.kind ?? measure
    const stored = keepsResults(kind)
    const struct = Schema.Struct({ op: Schema.Literal(name), ...input.fields })
    const check = input.check
    const checked = check ? struct.pipe(Schema.filter((r) => check(r))) : struct
    const metricField = input.fields["metric"]
    return {
      platform,
      name,
      description: input.description,
      kind,
      price: input.price,
      freshSeconds: input.fresh ?? null,
      available: input.available ?? true,
      // the one view of every op's request the core decodes with; a Schema is invariant in its type, so the op's own
      // (a subtype of OpRequest) cannot widen to it without a cast
      schema: checked as unknown as Schema.Schema<OpRequest, unknown>,
      request: struct,
      fields: input.fields,
      facets: facetsOf(input, kind),
      scope: "store" in input.fields ? "store" : "stay" in input.fields ? "stay" : "none",
      requestRule: input.checkJsonSchema,
      units: "subjects" in input.fields ? "subjects" : "subject" in input.fields ? "subject" : "query",
      subjectSpec: input.subjects,
      rowsField: "limit" in input.fields ? "limit" : "pages" in input.fields ? "pages" : undefined,
      metrics: metricField ? metricValues(metricField) : undefined,
      metricSources: input.metricSources,
      stored,
      // every answer row is named `<platform>.<op>.Row` (its own answer row too: history, contacts), so the OpenAPI
      // document and the clients typed from it know each op's rows
      row: (input.answerRow
        ? input.answerRow.annotations({ identifier: `${platform}.${name}.Row` })
        : Schema.Struct({
            ...R.envelope,
            ...input.rows,
            ...(stored ? {} : { unverified: unverifiedField })
          }).annotations({
            ...rowOptions,
            identifier: `${platform}.${name}.Row`
          })) as AnswerRow<Rw, AR, Kd>, // a conditional type on AR and Kd: a runtime branch cannot narrow it
      // row fields need no context, but the compiler cannot see that through the generic `Rw`
      delivered:
        kind._tag === "Series"
          ? undefined
          : (Schema.Struct({ subject: R.optional(R.envelope.subject), ...input.rows }).annotations(
              rowOptions
            ) as unknown as Schema.Schema.AnyNoContext)
    }
  }

const metricValues = (field: Schema.Struct.Field): ReadonlyArray<string> => {
  const found: Array<string> = []
  const visit = (node: unknown): void => {
    if (node === null || typeof node !== "object") return
    const read = (key: string): unknown => (Predicate.hasProperty(node, key) ? node[key] : undefined)
    const [tag, literal, types, from, type] = [read("_tag"), read("literal"), read("types"), read("from"), read("type")]
    if (tag === "Literal" && typeof literal === "string") found.push(literal)
    if (Array.isArray(types)) types.forEach(visit)
    if (from) visit(from)
    if (type) visit(type)
  }
  visit(field.ast)
  return [...new Set(found)]
}

/** A platform of the catalogue and its ops, each made for it. */
export const platform = <const Id extends string, const Ops extends ReadonlyArray<(platform: string) => OpDef>>(
  id: Id,
  description: string,
  historyScope: HistoryScope,
  ops: Ops
): PlatformDef<Id, { readonly [K in keyof Ops]: ReturnType<Ops[K]> }> => ({
  id,
  description,
  historyScope,
  ops: made(ops, id)
})

/** Each op made for its platform, the tuple's types kept (`Array.map` cannot say it: an overload does). */
function made<const Ops extends ReadonlyArray<(platform: string) => OpDef>>(
  ops: Ops,
  platform: string
): { readonly [K in keyof Ops]: ReturnType<Ops[K]> }
function made(ops: ReadonlyArray<(platform: string) => OpDef>, platform: string): ReadonlyArray<OpDef> {
  return ops.map((make) => make(platform))
}

/** Whether an op runs a named, priced explore source (D19). */
export const runsSource = (o: OpDef): boolean => o.kind._tag === "Run" && o.kind.source
