/**
 * The provider mapping language (issue 20), as a Schema decoded at start: how one op is served by one actor of the
 * hosted provider — the actor, its documentation page, its price per item, the input template built from our request,
 * the items that are the actor's error or note items, and the row mapping (each row field from a field spec).
 *
 * A field spec is one of:
 * - `"a.b.0.c"` — a dotted path into the dataset item, array indices as numbers, the provider's hidden `#` fields
 *   included (`"#debug.url"`); absent is null;
 * - `{ "path": "...", "as": "number" | "integer" | "boolean" | "datetime" | "string", "scale": 0.001,
 *   "join": ", ", "split": ",", "default": ... }` — a path with a conversion (integer rounds; datetime reads ISO forms,
 *   `YYYY-MM-DD`, epoch seconds or milliseconds; join makes a string of an array, split an array of a string; scale
 *   multiplies a number; default replaces null);
 * - `{ "path": "...", "map": { "Full-time": "full_time" } }` — a value table (applied before the conversion; a value
 *   not in the table, compared exactly then case-insensitively, is null, then `default`);
 * - `{ "path": "...", "match": "#(\\d+) of" }` — the first capture group (else the whole match) of a regular expression
 *   on the string value, before the value table and the conversion (a value that does not match is null);
 * - `{ "path": "...", "bands": [{ "min": 9, "value": "superb" }, { "min": 7, "value": "good" }, ...] }` — a number
 *   put in the first band whose `min` it reaches (bands in descending order; below them all is null), after the
 *   conversion: our classification of a score, stated in the mapping;
 * - `{ "template": "https://www.tiktok.com/@{author.unique_id}/video/{aweme_id}" }` — a string built from paths of the
 *   item, each `{path}` replaced by its value URL-encoded (a URL the actor does not give, built from its parts); null
 *   when any of its paths is absent or empty;
 * - `{ "request": "country" }` — a field of our request (dotted for nested ones: `store.pincode`), for a row value the
 *   actor does not echo (the country a search was made in);
 * - `{ "const": value }` — a constant;
 * - `{ "first": [spec, ...] }` — the first spec whose value is not null;
 * - `{ "each": "path", "map": spec | { field: spec } }` — an array mapped element by element (paths inside `map` are
 *   read from the element);
 * - `{ "object": { field: spec, ... } }` — an object built from separate fields of the item (a salary's
 *   `{ min, max, period }` from salaryMin, salaryMax and salaryPeriod); null when every member is null, so a nullable
 *   object field the actor leaves out is null.
 *
 * An input template is any JSON value: the strings `$subject`, `$query`, `$rows`, `$request.<field>` are replaced by
 * the value (keeping its type), `{subject}`, `{query}`, `{rows}`, `{request.<field>}` inside a longer string are
 * interpolated (URL-encoded, as in a URL), `{ "$text": "hotels in {query}" }` interpolates as plain text (not
 * encoded: a search phrase; `"strip": "#"` takes that prefix off each value first, so `{ "$text": "#{request.hashtag}",
 * "strip": "#" }` never doubles a `#` the caller gave), `{ "$value": "request.<field>", "map": {...}, "default": ... }` translates an enumeration, and
 * `{ "$present": { "request.query": "keyword", "request.hashtag": "hashtag" } }` is the value of the first listed
 * reference the request has (a mode chosen by which field the caller gave). A
 * request field may be named with its nested fields, dotted (`$request.store.pincode`, `{request.store.lat}`): absent
 * is null, and the check at start refuses a name that is not a field of the op's request at every level. A key of an
 * object whose value comes out null (a request field the caller left out, without a default) is left out of the
 * input, so the actor applies its own default; so is a request list the caller gave empty, a list of references none
 * of which the request has, an object in a list whose every reference is absent (`[{ "lat": "$request.store.lat",
 * "lon": "$request.store.lon", "label": "pdr" }]` for a request at a pincode), and a string whose every `{...}`
 * reference is absent.
 *
 * The adapter fills two row fields itself: `position` (the rank of a row in its list) and, for store-scoped ops,
 * `store` (the store the unit was resolved to, D3), unless the mapping maps them.
 */
import { Catalogue, type Measurements as M, type Upstream as U } from "@pdr/domain"
import { Either, ParseResult, Schema, SchemaAST } from "effect"

/** A conversion of a path's value. */
export const Conversion = Schema.Literal("number", "integer", "boolean", "datetime", "string")

interface PathSpec {
  readonly path: string
  readonly match?: string
  readonly map?: { readonly [raw: string]: unknown }
  readonly bands?: ReadonlyArray<{ readonly min: number; readonly value: unknown }>
  readonly as?: typeof Conversion.Type
  readonly scale?: number
  readonly join?: string
  readonly split?: string
  readonly default?: unknown
}
interface TemplateSpec {
  readonly template: string
}
interface RequestSpec {
  readonly request: string
}
interface ConstSpec {
  readonly const: unknown
}
interface FirstSpec {
  readonly first: ReadonlyArray<FieldSpec>
}
interface EachSpec {
  readonly each: string
  readonly map: FieldSpec | { readonly [field: string]: FieldSpec }
}
interface ObjectSpec {
  readonly object: { readonly [field: string]: FieldSpec }
}
/** One row field's spec. */
export type FieldSpec = string | PathSpec | TemplateSpec | RequestSpec | ConstSpec | FirstSpec | EachSpec | ObjectSpec

/** A `{path}` of the item inside a template spec's string. */
const templatePaths = /\{([^{}.\s]+(?:\.[^{}.\s]+)*)\}/g

const Path = Schema.String.pipe(
  Schema.filter((s) => s.length > 0 && s.split(".").every((k) => k.length > 0), {
    message: () => "a dotted path of non-empty keys"
  })
)

/** The Schema of a field spec. */
export const FieldSpec: Schema.Schema<FieldSpec> = Schema.Union(
  Path,
  Schema.Struct({
    path: Path,
    match: Schema.optionalWith(
      Schema.String.pipe(
        Schema.filter(
          (r) => {
            try {
              new RegExp(r)
              return true
            } catch {
              return false
            }
          },
          { message: () => "a regular expression" }
        )
      ),
      { exact: true }
    ),
    map: Schema.optionalWith(Schema.Record({ key: Schema.String, value: Schema.Unknown }), { exact: true }),
    bands: Schema.optionalWith(
      Schema.Array(Schema.Struct({ min: Schema.Number, value: Schema.Unknown })).pipe(
        Schema.filter((bs) => bs.every((b, i) => i === 0 || bs[i - 1]!.min > b.min), {
          message: () => "bands in descending order of min"
        })
      ),
      { exact: true }
    ),
    as: Schema.optionalWith(Conversion, { exact: true }),
    scale: Schema.optionalWith(Schema.Number, { exact: true }),
    join: Schema.optionalWith(Schema.String, { exact: true }),
    split: Schema.optionalWith(Schema.String, { exact: true }),
    default: Schema.optionalWith(Schema.Unknown, { exact: true })
  }),
  Schema.Struct({
    template: Schema.String.pipe(
      Schema.filter((t) => [...t.matchAll(templatePaths)].length > 0, {
        message: () => "a string with at least one {path} of the item"
      })
    )
  }),
  Schema.Struct({ request: Path }),
  Schema.Struct({ first: Schema.Array(Schema.suspend(() => FieldSpec)) }),
  Schema.Struct({
    each: Path,
    map: Schema.Union(
      Schema.suspend(() => FieldSpec),
      Schema.Record({ key: Schema.String, value: Schema.suspend(() => FieldSpec) })
    )
  }),
  Schema.Struct({ object: Schema.Record({ key: Schema.String, value: Schema.suspend(() => FieldSpec) }) }),
  Schema.Struct({ const: Schema.Unknown }).pipe(Schema.filter((o) => "const" in o, { message: () => "a field spec" }))
)

/** What marks an actor's error and note items: paths that are set only on them, and which of them mean not found. */
export const ErrorItems = Schema.Struct({
  /** An item with any of these paths set (not null) is an error or note item, never a row. */
  when: Schema.Array(Path),
  /** The item's text (the first of `when` set) matching this (case-insensitive) means the subject does not exist. */
  notFound: Schema.optionalWith(Schema.String, {
    default: () => "not found|no .* found|does ?n[o']t exist|unavailable"
  })
})

/** How one op is served by an actor. */
export const OpMapping = Schema.Struct({
  /** The actor id (`user~name` or `user/name`). */
  actor: Schema.String.pipe(Schema.pattern(/^[\w.-]+[~/][\w.-]+$/)),
  /** The actor's documentation page (where its input, output and price were read). */
  docs: Schema.optionalWith(Schema.String, { exact: true }),
  /** What the actor charges per dataset item, in USD. */
  usdPerItem: Schema.Number.pipe(Schema.positive()),
  /** What the actor charges per run besides its items (a start fee), in USD. */
  usdPerRun: Schema.optionalWith(Schema.Number.pipe(Schema.nonNegative()), { default: () => 0 }),
  /** The actor input template. */
  input: Schema.optionalWith(Schema.Unknown, { default: () => ({}) }),
  /** Only items whose value at `path` is one of `in` are rows (e.g. organic results, not ads); the others are skipped. */
  keep: Schema.optionalWith(Schema.Struct({ path: Path, in: Schema.Array(Schema.Unknown) }), { exact: true }),
  /** A path to an array inside each item whose elements are the rows (e.g. a place's reviews). */
  items: Schema.optionalWith(Path, { exact: true }),
  /** The actor's error and note items. */
  errors: Schema.optionalWith(ErrorItems, {
    default: () => ({ when: ["error", "#error", "errorMessage"], notFound: "not found|no .* found|does ?n[o']t exist" })
  }),
  /** Row field -> field spec (the rows must decode with the op's row Schema). */
  rows: Schema.Record({ key: Schema.String, value: FieldSpec }),
  /**
   * Optional request fields the actor cannot do without, each with why (e.g. it searches a default city when no
   * location is given): a request without one is refused 400 naming it, before anything is spent, and the catalogue's
   * `servedBy.requires` says so.
   */
  requires: Schema.optionalWith(Schema.Record({ key: Schema.String, value: Schema.String }), { exact: true }),
  /**
   * Optional request fields the actor cannot serve, each with why (e.g. it cannot search by sound): a request giving
   * one is refused 400 naming it, before anything is spent, and the catalogue's `servedBy.refuses` says so.
   */
  refuses: Schema.optionalWith(Schema.Record({ key: Schema.String, value: Schema.String }), { exact: true }),
  /**
   * The most items one run of the actor gives (its count input's maximum, one page and no cursor followed): a run is
   * asked at most this many items (`$rows` in the input is at most it too) and its charge limit is for those; a unit
   * asking more rows whose run gave them all is delivered short and never complete.
   */
  maxItems: Schema.optionalWith(Schema.Int.pipe(Schema.positive()), { exact: true }),
  /** Why a row field stays null, or what the actor does not give (shown in the catalogue table). */
  notMapped: Schema.optionalWith(Schema.String, { exact: true })
})
export type OpMapping = typeof OpMapping.Type

/** `platform.op` -> mapping. */
export const Mappings = Schema.Record({ key: Schema.String, value: OpMapping })
export type Mappings = typeof Mappings.Type

/** Decodes mappings, unknown keys refused; Left names the op and the field. */
export const decodeMappings = (value: unknown, origin: string): Either.Either<Mappings, string> =>
  Either.mapLeft(
    Schema.decodeUnknownEither(Mappings, { onExcessProperty: "error", errors: "first" })(value),
    (e) => `${origin}: ${ParseResult.TreeFormatter.formatErrorSync(e)}`
  )

// ---------------------------------------------------------------------------------------------------------------
// reading items

/** The value at a dotted path (`a.b.0.c`, `#hidden.x`), null when absent. */
export const at = (item: unknown, path: string): unknown => {
  let v: unknown = item
  for (const key of path.split(".")) {
    if (v === null || typeof v !== "object") return null
    v = Array.isArray(v) && /^\d+$/.test(key) ? v[Number(key)] : (v as Record<string, unknown>)[key]
  }
  return v === undefined ? null : v
}

const truthy = new Set(["true", "yes", "1", "y", "on"])
const falsy = new Set(["false", "no", "0", "n", "off", ""])

/** A date-time from the common forms: ISO strings, `YYYY-MM-DD`, epoch seconds or milliseconds. */
export const toDateTime = (v: unknown): string | null => {
  if (typeof v === "number" && Number.isFinite(v)) return new Date(v < 1e11 ? v * 1000 : v).toISOString()
  if (typeof v !== "string" || v.trim() === "") return null
  const s = v.trim()
  if (/^\d+$/.test(s)) return toDateTime(Number(s))
  // a date alone is midnight UTC; a date and time without a zone is read as UTC (never the machine's zone)
  const zoneless = /^\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/.test(s)
  const t = Date.parse(/^\d{4}-\d{2}-\d{2}$/.test(s) ? `${s}T00:00:00Z` : zoneless ? `${s.replace(" ", "T")}Z` : s)
  return Number.isNaN(t) ? null : new Date(t).toISOString()
}

const toNumber = (v: unknown): number | null => {
  if (typeof v === "number") return Number.isFinite(v) ? v : null
  if (typeof v === "string") {
    const cleaned = v.replace(/[,\s]/g, "").replace(/[^\d.eE+-]/g, "")
    if (cleaned === "") return null
    const n = Number(cleaned)
    return Number.isFinite(n) ? n : null
  }
  if (typeof v === "boolean") return v ? 1 : 0
  return null
}

/** A raw value through a value table: exact, then case-insensitive; not in the table is null. */
const translate = (v: unknown, table: { readonly [raw: string]: unknown }): unknown => {
  if (v === null || v === undefined) return null
  const raw = typeof v === "string" ? v.trim() : String(v)
  if (Object.hasOwn(table, raw)) return table[raw]
  const lower = raw.toLowerCase()
  for (const [k, out] of Object.entries(table)) if (k.toLowerCase() === lower) return out
  return null
}

/** The first capture group (else the whole match) of `pattern` on a string value; null when it does not match. */
const matched = (v: unknown, pattern: string): unknown => {
  if (v === null || v === undefined) return null
  const m = new RegExp(pattern).exec(typeof v === "string" ? v : String(v))
  return m === null ? null : (m[1] ?? m[0])
}

/** The value of the first band whose `min` a number reaches; null below them all, or for a value not a number. */
const banded = (v: unknown, bands: ReadonlyArray<{ readonly min: number; readonly value: unknown }>): unknown => {
  const n = toNumber(v)
  if (n === null) return null
  return bands.find((b) => n >= b.min)?.value ?? null
}

const convert = (v: unknown, spec: PathSpec): unknown => {
  const raw = spec.match === undefined ? v : matched(v, spec.match)
  let value = spec.map === undefined ? raw : translate(raw, spec.map)
  if (spec.split !== undefined && typeof value === "string")
    value = value
      .split(spec.split)
      .map((s) => s.trim())
      .filter((s) => s !== "")
  if (spec.join !== undefined && Array.isArray(value))
    value = value.filter((x) => x !== null && x !== undefined).join(spec.join)
  if (value !== null && spec.as !== undefined) {
    switch (spec.as) {
      case "number":
      case "integer": {
        const n = toNumber(value)
        value = n === null ? null : spec.as === "integer" ? Math.round(n * (spec.scale ?? 1)) : n * (spec.scale ?? 1)
        break
      }
      case "boolean":
        value =
          typeof value === "boolean"
            ? value
            : typeof value === "number"
              ? value !== 0
              : typeof value === "string" && truthy.has(value.trim().toLowerCase())
                ? true
                : typeof value === "string" && falsy.has(value.trim().toLowerCase())
                  ? false
                  : null
        break
      case "datetime":
        value = toDateTime(value)
        break
      case "string":
        value = typeof value === "string" ? value : typeof value === "object" ? JSON.stringify(value) : String(value)
        break
    }
  } else if (value !== null && spec.scale !== undefined) {
    const n = toNumber(value)
    value = n === null ? null : n * spec.scale
  }
  if (spec.bands !== undefined) value = banded(value, spec.bands)
  return value === null && "default" in spec ? spec.default : value
}

/** The value of a field spec on an item (of the unit whose request is `request`). */
export const value = (item: unknown, spec: FieldSpec, request: unknown = {}): unknown => {
  if (typeof spec === "string") return at(item, spec)
  if ("const" in spec) return spec.const
  if ("template" in spec) return built(item, spec.template)
  if ("request" in spec) return at(request, spec.request)
  if ("first" in spec) {
    for (const s of spec.first) {
      const v = value(item, s, request)
      if (v !== null && v !== undefined && v !== "") return v
    }
    return null
  }
  if ("each" in spec) {
    const list = at(item, spec.each)
    if (!Array.isArray(list)) return []
    const m = spec.map
    const single =
      typeof m === "string" ||
      "path" in m ||
      "const" in m ||
      "request" in m ||
      "template" in m ||
      "first" in m ||
      "each" in m ||
      isObjectSpec(m)
    return list.map((el) =>
      single
        ? value(el, m as FieldSpec, request)
        : Object.fromEntries(Object.entries(m as Record<string, FieldSpec>).map(([k, s]) => [k, value(el, s, request)]))
    )
  }
  if (isObjectSpec(spec)) {
    const entries = Object.entries(spec.object).map(([k, s]) => [k, value(item, s, request) ?? null] as const)
    return entries.every(([, v]) => v === null) ? null : Object.fromEntries(entries)
  }
  return convert(at(item, (spec as PathSpec).path), spec as PathSpec)
}

/** A template spec's string with each `{path}` replaced by the item's value, URL-encoded; null when one is absent. */
const built = (item: unknown, template: string): string | null => {
  const values = [...template.matchAll(templatePaths)].map((m) => at(item, m[1]!))
  if (values.some((v) => v === null || v === "" || typeof v === "object")) return null
  let i = 0
  return template.replace(templatePaths, () => encodeURIComponent(String(values[i++])))
}

/** Whether a spec (or an `each` map) is an object spec: `{ "object": { field: spec } }`. */
const isObjectSpec = (spec: object): spec is ObjectSpec =>
  "object" in spec &&
  Object.keys(spec).length === 1 &&
  (spec as { object: unknown }).object !== null &&
  typeof (spec as { object: unknown }).object === "object" &&
  !Array.isArray((spec as { object: unknown }).object)

/** Whether a mapping reads any hidden (`#`) field, so its datasets must be read with them. */
export const readsHidden = (m: OpMapping): boolean =>
  JSON.stringify(m.rows).includes('"#') || m.errors.when.some((p) => p.startsWith("#"))

/** An error or note item: its text, and whether it says the subject does not exist. */
export const errorItem = (
  m: OpMapping,
  item: unknown
): { readonly text: string; readonly notFound: boolean } | undefined => {
  for (const path of m.errors.when) {
    const v = at(item, path)
    if (v === null || v === false || v === "") continue
    const text = typeof v === "string" ? v : JSON.stringify(v)
    return { text, notFound: new RegExp(m.errors.notFound, "i").test(text) }
  }
  return undefined
}

/**
 * The rows of one item (one, or one per element of `items`), each field from its spec, unmapped nullable fields null;
 * `request` is the unit's request (for `{ "request": ... }` specs).
 */
export const rowsOf = (
  m: OpMapping,
  item: unknown,
  nulls: ReadonlyArray<string>,
  request: unknown = {}
): ReadonlyArray<M.Row> => {
  if (m.keep !== undefined && !m.keep.in.includes(at(item, m.keep.path))) return []
  const elements = m.items === undefined ? [item] : ((at(item, m.items) as Array<unknown> | null) ?? [])
  return (Array.isArray(elements) ? elements : []).map((el) => {
    const row: Record<string, unknown> = {}
    for (const f of nulls) row[f] = null
    for (const [field, spec] of Object.entries(m.rows)) {
      const v = value(el, spec, request)
      row[field] = v === undefined ? null : v
    }
    return row
  })
}

// ---------------------------------------------------------------------------------------------------------------
// input templates

/** `request.<field>` with its nested fields (`request.store.pincode`): the dotted path in the request. */
const requestRef = /^request\.([A-Za-z0-9_]+(?:\.[A-Za-z0-9_]+)*)$/

/** A reference inside a longer string: `{subject}`, `{query}`, `{rows}`, `{request.<field>[.<nested>...]}`. */
const interpolated = /\{(subject|query|rows|request\.[A-Za-z0-9_]+(?:\.[A-Za-z0-9_]+)*)\}/g

const ref = (name: string, unit: U.UnitRequest): unknown => {
  if (name === "subject") return unit.subject ?? null
  if (name === "query") return unit.request["query"] ?? null
  if (name === "rows") return unit.rows
  const m = requestRef.exec(name)
  return m ? at(unit.request, m[1]!) : undefined
}

/** The actor input of a unit: the template with its references replaced. */
export const input = (template: unknown, unit: U.UnitRequest): unknown => {
  if (typeof template === "string") {
    if (template.startsWith("$")) {
      const v = ref(template.slice(1), unit)
      // an empty list the caller gave (no filter) is absent too: the key is left out and the actor's default applies
      if (Array.isArray(v) && v.length === 0) return null
      return v === undefined ? template : v
    }
    return interpolate(template, unit, (v) => encodeURIComponent(v).replace(/%40/g, "@"))
  }
  if (Array.isArray(template)) {
    // an object in a list whose every reference is absent (a location [{ lat, lon, label }] for a request at a
    // pincode) is absent itself, constants and all: the list is then left out as below
    const list = template.map((t) =>
      t !== null && typeof t === "object" && !Array.isArray(t) && absent(t, unit) ? null : input(t, unit)
    )
    // a list of references none of which the request has ([$request.hashtag] for a query) is absent, not [null]
    return list.length > 0 && list.every((v) => v === null) && references(template).size > 0 ? null : list
  }
  if (template !== null && typeof template === "object") {
    const o = template as Record<string, unknown>
    if (o["$present"] !== null && typeof o["$present"] === "object" && !Array.isArray(o["$present"])) {
      // the value of the first listed reference the request has: a mode chosen by which field the caller gave
      for (const [name, out] of Object.entries(o["$present"] as Record<string, unknown>)) {
        const v = ref(name, unit)
        if (v !== null && v !== undefined) return out
      }
      return null
    }
    // a search phrase built from request fields: interpolated as plain text, not URL-encoded
    // (`strip`: a prefix taken off each value first, as often as it leads: "#{request.hashtag}" with strip "#" is "#cats"
    // for a hashtag given as "cats" or as "#cats")
    if (typeof o["$text"] === "string") {
      const strip = typeof o["strip"] === "string" && o["strip"] !== "" ? o["strip"] : undefined
      return interpolate(o["$text"], unit, (v) => {
        let out = v
        while (strip !== undefined && out.startsWith(strip)) out = out.slice(strip.length)
        return out
      })
    }
    if (typeof o["$value"] === "string") {
      const v = ref(o["$value"], unit)
      const table = o["map"] as Record<string, unknown> | undefined
      const mapped = table !== undefined && v !== null && v !== undefined ? table[String(v)] : v
      return mapped === null || mapped === undefined ? (o["default"] ?? null) : mapped
    }
    // a key whose value comes out null is left out: the actor applies its own default
    return Object.fromEntries(
      Object.entries(o)
        .map(([k, v]) => [k, input(v, unit)] as const)
        .filter(([, v]) => v !== null && v !== undefined)
    )
  }
  return template
}

/**
 * A string with its `{...}` references replaced, each value through `encode`; a string whose every reference is absent
 * (a tag URL for a hashtag the caller did not give) is absent itself.
 */
const interpolate = (template: string, unit: U.UnitRequest, encode: (v: string) => string): string | null => {
  const names = [...template.matchAll(interpolated)].map((m) => m[1]!)
  if (names.length > 0 && names.every((name) => (ref(name, unit) ?? null) === null)) return null
  return template.replace(interpolated, (_, name: string) => {
    const v = ref(name, unit)
    return v === null || v === undefined ? "" : encode(String(v))
  })
}

/** Whether a template makes references and the request has none of them. */
const absent = (template: unknown, unit: U.UnitRequest): boolean => {
  const refs = references(template)
  return refs.size > 0 && [...refs].every((name) => (ref(name, unit) ?? null) === null)
}

/** Every reference an input template makes (`subject`, `rows`, `request.x`, ...). */
const references = (template: unknown, out: Set<string> = new Set()): Set<string> => {
  if (typeof template === "string") {
    if (template.startsWith("$")) out.add(template.slice(1))
    for (const m of template.matchAll(interpolated)) out.add(m[1]!)
  } else if (Array.isArray(template)) for (const t of template) references(t, out)
  else if (template !== null && typeof template === "object") {
    const o = template as Record<string, unknown>
    if (typeof o["$value"] === "string") out.add(o["$value"])
    else if (o["$present"] !== null && typeof o["$present"] === "object")
      for (const name of Object.keys(o["$present"] as object)) out.add(name)
    else for (const v of Object.values(o)) references(v, out)
  }
  return out
}

/** The request fields an input template names, as dotted paths (`sort`, `store.pincode`); `query` included. */
export const requestPaths = (template: unknown): ReadonlyArray<string> =>
  [...references(template)].flatMap((r) => (r === "query" ? ["query"] : (requestRef.exec(r)?.slice(1, 2) ?? [])))

/** Every request field the row specs read (`{ "request": ... }`), dotted. */
const rowRequests = (spec: unknown, out: Set<string> = new Set()): Set<string> => {
  if (Array.isArray(spec)) for (const s of spec) rowRequests(s, out)
  else if (spec !== null && typeof spec === "object") {
    const o = spec as Record<string, unknown>
    if (typeof o["request"] === "string" && Object.keys(o).length === 1) out.add(o["request"])
    else for (const v of Object.values(o)) rowRequests(v, out)
  }
  return out
}

// ---------------------------------------------------------------------------------------------------------------
// checks at start

const typeLiteral = (ast: SchemaAST.AST): SchemaAST.TypeLiteral | undefined => {
  if (SchemaAST.isTypeLiteral(ast)) return ast
  if (SchemaAST.isTransformation(ast)) return typeLiteral(ast.to)
  if (SchemaAST.isRefinement(ast)) return typeLiteral(ast.from)
  return undefined
}

const admitsNull = (ast: SchemaAST.AST): boolean =>
  SchemaAST.isLiteral(ast)
    ? ast.literal === null
    : SchemaAST.isUnion(ast)
      ? ast.types.some(admitsNull)
      : SchemaAST.isRefinement(ast)
        ? admitsNull(ast.from)
        : SchemaAST.isTransformation(ast)
          ? admitsNull(ast.to)
          : false

/** The delivered row fields of an op: required (not nullable), nullable, optional. */
export const rowFields = (op: Catalogue.OpDef) => {
  const lit = op.delivered && typeLiteral(op.delivered.ast)
  const required: Array<string> = []
  const nullable: Array<string> = []
  const all: Array<string> = []
  for (const p of lit?.propertySignatures ?? []) {
    const name = String(p.name)
    all.push(name)
    if (p.isOptional) continue
    if (admitsNull(p.type)) nullable.push(name)
    else required.push(name)
  }
  return { required, nullable, all }
}

/** The fields the adapter fills itself (the position of a row in its list). */
export const filled = new Set(["position"])

/**
 * The row fields the adapter fills itself for an op: the position of a row in its list, and for store-scoped ops the
 * store the unit was resolved to (D3).
 */
export const filledBy = (op: Catalogue.OpDef): ReadonlySet<string> =>
  op.scope === "store" ? new Set([...filled, "store"]) : filled

/** The properties of a struct Schema (through refinements, transformations, unions and suspensions). */
const members = (ast: SchemaAST.AST): ReadonlyArray<SchemaAST.PropertySignature> => {
  const lit = typeLiteral(ast)
  if (lit !== undefined) return lit.propertySignatures
  if (SchemaAST.isUnion(ast)) return ast.types.flatMap(members)
  if (SchemaAST.isSuspend(ast)) return members(ast.f())
  return []
}

/** Whether a dotted request path (`store.pincode`) names a field of the op's request at every level. */
const requestField = (op: Catalogue.OpDef, path: string): boolean => {
  const [first, ...nested] = path.split(".")
  if (first === undefined || !(first in op.fields)) return false
  let ast = members(op.request.ast).find((p) => p.name === first)?.type
  for (const key of nested) {
    ast = ast === undefined ? undefined : members(ast).find((p) => p.name === key)?.type
    if (ast === undefined) return false
  }
  return true
}

/** Whether a top-level request field may be left out (optional, or with a default). */
const optionalField = (op: Catalogue.OpDef, field: string): boolean => {
  const p = members(op.request.ast).find((s) => s.name === field)
  return p?.isOptional === true
}

/**
 * Checks one mapping against its op: the op exists and fetches, every row field it maps exists, every required row
 * field is mapped (or filled by the adapter), every request field its input names exists, nested fields at every
 * level (`request.store.pincode`). Left: `platform.op: field ...`.
 */
export const check = (key: string, m: OpMapping): Either.Either<void, string> => {
  const [platform, name, ...rest] = key.split(".")
  const op = rest.length === 0 ? Catalogue.findOp(platform ?? "", name ?? "") : undefined
  if (op === undefined) return Either.left(`${key}: no such op (a mapping is keyed platform.op)`)
  if (op.delivered === undefined || op.kind._tag !== "Measure")
    return Either.left(`${key}: this op is not fetched through a mapping`)
  const fields = rowFields(op)
  for (const f of Object.keys(m.rows))
    if (!fields.all.includes(f)) return Either.left(`${key}: rows.${f} is not a field of the ${key} row`)
  const byAdapter = filledBy(op)
  for (const f of fields.required)
    if (!byAdapter.has(f) && !(f in m.rows))
      return Either.left(`${key}: rows.${f} is required by the ${key} row and not mapped`)
  for (const r of references(m.input)) {
    if (r === "rows" || r === "subject") continue
    const field = r === "query" ? "query" : requestRef.exec(r)?.[1]
    if (field === undefined || !requestField(op, field))
      return Either.left(`${key}: input names "${r}", which is not a field of a ${key} request`)
  }
  for (const field of rowRequests(m.rows))
    if (!requestField(op, field))
      return Either.left(`${key}: rows read request.${field}, which is not a field of a ${key} request`)
  for (const field of Object.keys(m.requires ?? {}))
    if (field.includes(".") || !requestField(op, field))
      return Either.left(`${key}: requires request.${field}, which is not a top-level field of a ${key} request`)
  const named = new Set(requestPaths(m.input).map((p) => p.split(".")[0]!))
  for (const field of Object.keys(m.refuses ?? {})) {
    if (field.includes(".") || !requestField(op, field))
      return Either.left(`${key}: refuses request.${field}, which is not a top-level field of a ${key} request`)
    if (!optionalField(op, field))
      return Either.left(`${key}: refuses request.${field}, which every ${key} request gives (refusing every call)`)
    if (field in (m.requires ?? {}))
      return Either.left(`${key}: refuses request.${field}, which it also requires (refusing every call)`)
    if (named.has(field) || rowRequests(m.rows).has(field))
      return Either.left(`${key}: refuses request.${field}, which its input or rows read`)
  }
  return Either.void
}
