/**
 * Request field schemas shared by the ops of the catalogue: every bound, default, format and maximum length the
 * specification gives is stated once here or in the catalogue entry that uses it.
 */
import { Either, ParseResult, Schema } from "effect"
import * as Subjects from "./Subjects.js"

/** A string the store can keep as it is: no NUL, no unpaired surrogate (checked before any other rule). */
export const Storable = Schema.String.pipe(
  Schema.filter(Subjects.isStorable, { message: () => Subjects.unstorableMessage, jsonSchema: {} })
)

/** A string of at most `max` characters. */
export const text = (max: number) =>
  Storable.pipe(
    Schema.maxLength(max, { message: () => `must be at most ${max} characters` }),
    Schema.minLength(1, { message: () => "must not be empty" })
  )

/** An integer between `min` and `max` inclusive. */
export const int = (min: number, max: number) =>
  Schema.Number.pipe(
    Schema.int({ message: () => "must be an integer" }),
    Schema.between(min, max, { message: () => `must be between ${min} and ${max}` })
  )

/** A number between `min` and `max` inclusive. */
export const number = (min: number, max: number) =>
  Schema.Number.pipe(Schema.between(min, max, { message: () => `must be between ${min} and ${max}` }))

/** One of the listed values. */
export const oneOf = <const L extends ReadonlyArray<string>>(...values: L) =>
  Schema.Literal(...values).annotations({
    message: () => ({ message: `must be one of ${values.map((v) => `"${v}"`).join(", ")}`, override: true })
  })

/** An optional field with a default: absent in the request, present once decoded. */
export const withDefault = <A, I, R>(schema: Schema.Schema<A, I, R>, value: NoInfer<A & I>) =>
  Schema.optionalWith(schema.annotations({ default: value }), { default: () => value, exact: true })

/** An optional field without a default. */
export const optional = <S extends Schema.Schema.Any>(schema: S) => Schema.optionalWith(schema, { exact: true })

/** A list with a default of `[]`. */
export const list = <S extends Schema.Schema.Any>(item: S, maxItems = 50) =>
  withDefault(
    Schema.Array(item).pipe(
      Schema.filter((a: ReadonlyArray<unknown>) => a.length <= maxItems, {
        message: () => `must have at most ${maxItems} items`,
        jsonSchema: { maxItems }
      })
    ),
    []
  )

/** `limit` with its default and bounds. */
export const limit = (fallback: number, min: number, max: number) => withDefault(int(min, max), fallback)

const isRealDate = (s: string) => {
  const [y = Number.NaN, m = Number.NaN, d = Number.NaN] = s.split("-").map(Number)
  const date = new Date(Date.UTC(y, m - 1, d))
  return date.getUTCFullYear() === y && date.getUTCMonth() === m - 1 && date.getUTCDate() === d
}

/** A calendar date written YYYY-MM-DD. */
export const Day = Schema.String.pipe(
  Schema.pattern(/^\d{4}-\d{2}-\d{2}$/, { message: () => "must be a date written YYYY-MM-DD" }),
  Schema.filter(isRealDate, { message: () => "must be a real calendar date (YYYY-MM-DD)" })
).annotations({
  identifier: "Day",
  description: "a calendar date, YYYY-MM-DD (a real date: 2026-02-30 is refused)",
  // JSON Schema's `date` format (RFC 3339 full-date), as the server checks it (issue 23)
  jsonSchema: { format: "date" }
})

/** A BCP-47 language tag (e.g. `en`, `en-GB`, `zh-Hant-TW`). */
export const Bcp47 = Schema.String.pipe(
  Schema.pattern(/^[A-Za-z]{2,3}(-[A-Za-z]{4})?(-([A-Za-z]{2}|[0-9]{3}))?(-([A-Za-z0-9]{5,8}|[0-9][A-Za-z0-9]{3}))*$/, {
    message: () => "must be a BCP-47 language tag such as en or en-GB"
  }),
  Schema.maxLength(35, { message: () => "must be a BCP-47 language tag such as en or en-GB" })
)

const currencies: ReadonlySet<string> = new Set(
  typeof Intl.supportedValuesOf === "function" ? Intl.supportedValuesOf("currency") : []
)

/** An ISO 4217 currency code (e.g. `USD`). */
export const Currency = Schema.String.pipe(
  Schema.pattern(/^[A-Z]{3}$/, { message: () => "must be an ISO 4217 currency code such as USD" }),
  Schema.filter((c) => currencies.size === 0 || currencies.has(c), {
    message: () => "must be an ISO 4217 currency code such as USD"
  })
)

/** An ISO 3166-1 alpha-2 country code (e.g. `US`). */
export const Alpha2 = Schema.String.pipe(
  Schema.pattern(/^[A-Z]{2}$/, { message: () => "must be an ISO 3166-1 alpha-2 country code such as US" })
)

const subjectString = (spec: Subjects.SubjectSpec) =>
  Schema.transformOrFail(
    Storable.pipe(
      Schema.maxLength(Subjects.maxLength),
      Schema.filter(() => true, {
        jsonSchema: {
          type: "string",
          maxLength: Subjects.maxLength,
          description: spec.describe,
          anyOf: Subjects.jsonForms(spec)
        }
      })
    ).annotations({ description: spec.describe }),
    Schema.String,
    {
      strict: true,
      decode: (raw, _, ast) =>
        Either.match(Subjects.normalize(spec, raw), {
          onLeft: (p) => ParseResult.fail(new ParseResult.Type(ast, raw, p.message)),
          onRight: (key) => ParseResult.succeed(key)
        }),
      encode: ParseResult.succeed
    }
  )

/** `subjects`: 1 to `max` subjects of the accepted forms, decoded into canonical entity keys (D3). */
export const subjects = (spec: Subjects.SubjectSpec, max: number) =>
  Schema.Array(subjectString(spec))
    .annotations({ message: () => ({ message: `must be a list of 1 to ${max} subjects`, override: false }) })
    .pipe(
      Schema.minItems(1, { message: () => "must list at least one subject" }),
      Schema.maxItems(max, { message: () => `must list at most ${max} subjects` })
    )

/** `subject`: one subject of the accepted forms, decoded into its canonical entity key (D3). */
export const subject = (spec: Subjects.SubjectSpec) => subjectString(spec)

/** `days` of a `history` op: integer 1-730, default 90. */
export const days = withDefault(int(1, 730), 90)

/** The forms of a quick-commerce `store` locator (D3), each with the request fields that make it. */
export const storeForms = {
  storeId: ["storeId"],
  pincode: ["pincode", "city"],
  latLon: ["lat", "lon"]
} as const

/** A form of store locator: `storeId`; or `pincode` with `city`; or `latLon` (`lat` with `lon`). */
export type StoreForm = keyof typeof storeForms

/** Every store locator form, in the order the catalogue lists them. */
export const storeFormNames = Object.keys(storeForms) as ReadonlyArray<StoreForm>

/** The form of a decoded store locator (undefined for none: the request Schema refuses it). */
export const storeFormOf = (locator: Readonly<Record<string, unknown>>): StoreForm | undefined =>
  storeFormNames.find((f) => storeForms[f].every((k) => locator[k] !== undefined && locator[k] !== null))

/** An example locator of each form (the catalogue's example requests use the first form the served op takes). */
export const storeExamples: { readonly [F in StoreForm]: Readonly<Record<string, unknown>> } = {
  storeId: { storeId: "blr-001" },
  pincode: { pincode: "560001", city: "Bengaluru" },
  latLon: { lat: 12.9716, lon: 77.5946 }
}

/** The `store` locator of quick-commerce ops: `storeId`; or `pincode` with `city`; or `lat` with `lon`. */
export const Store = Schema.Struct({
  storeId: optional(text(80)),
  pincode: optional(
    Schema.String.pipe(Schema.pattern(/^[1-9][0-9]{5}$/, { message: () => "must be a 6-digit pincode" }))
  ),
  city: optional(text(80)),
  lat: optional(number(-90, 90)),
  lon: optional(number(-180, 180))
}).pipe(
  Schema.filter((s) => {
    const given = (["storeId", "pincode", "city", "lat", "lon"] as const).filter((k) => s[k] !== undefined)
    const is = (...keys: ReadonlyArray<(typeof given)[number]>) =>
      given.length === keys.length && keys.every((k) => given.includes(k))
    if (storeFormNames.some((f) => is(...storeForms[f]))) return true
    if (given.length === 0) return "must give one locator: storeId; or pincode with city; or lat with lon"
    if (given.includes("pincode") && !given.includes("city"))
      return { path: ["city"], message: "is required with pincode" }
    if (given.includes("city") && !given.includes("pincode"))
      return { path: ["pincode"], message: "is required with city" }
    if (given.includes("lat") && !given.includes("lon")) return { path: ["lon"], message: "is required with lat" }
    if (given.includes("lon") && !given.includes("lat")) return { path: ["lat"], message: "is required with lon" }
    return "must give exactly one locator: storeId; or pincode with city; or lat with lon"
  })
)

/** The locator rule in JSON Schema: exactly one form, and nothing else. */
export const storeJsonRule = {
  oneOf: storeFormNames.map((f) => ({ required: [...storeForms[f]], maxProperties: storeForms[f].length })),
  description: "exactly one locator: storeId; or pincode with city; or lat with lon"
}

/** The decoded `store` locator. */
export type Store = typeof Store.Type

const stayDates = <A extends { readonly checkIn?: string | undefined; readonly checkOut?: string | undefined }>(
  s: A
) => {
  if (s.checkIn !== undefined && s.checkOut === undefined)
    return { path: ["checkOut"], message: "is required with checkIn" }
  if (s.checkOut !== undefined && s.checkIn === undefined)
    return { path: ["checkIn"], message: "is required with checkOut" }
  if (s.checkIn !== undefined && s.checkOut !== undefined && s.checkOut <= s.checkIn) {
    return { path: ["checkOut"], message: "must be after checkIn" }
  }
  return true
}

/** The stay date rules in JSON Schema (the order of the dates cannot be a keyword: it is said). */
export const stayJsonRule = {
  dependentRequired: { checkIn: ["checkOut"], checkOut: ["checkIn"] },
  description:
    "checkIn and checkOut come both or neither; checkOut must be after checkIn (else a 400 naming stay.checkOut)"
}

/** `stay` of lodging_booking: dates, currency (USD), language (en-GB). */
export const LodgingStay = Schema.Struct({
  checkIn: optional(Day),
  checkOut: optional(Day),
  currency: withDefault(Currency, "USD"),
  language: withDefault(Bcp47, "en-GB")
}).pipe(Schema.filter(stayDates))

/** `stay` of home_rentals: dates, currency, guests and locale. */
export const RentalStay = Schema.Struct({
  checkIn: optional(Day),
  checkOut: optional(Day),
  currency: withDefault(Currency, "USD"),
  adults: withDefault(int(1, 16), 2),
  children: withDefault(int(0, 10), 0),
  infants: withDefault(int(0, 5), 0),
  pets: withDefault(int(0, 5), 0),
  locale: withDefault(text(10), "en-US")
}).pipe(Schema.filter(stayDates))

/** `stay` of travel_reviews: dates only. */
export const TravelStay = Schema.Struct({ checkIn: optional(Day), checkOut: optional(Day) }).pipe(
  Schema.filter(stayDates)
)

/** A stay object that defaults to all members at their defaults. */
export const stay = <A, I>(schema: Schema.Schema<A, I>) =>
  Schema.optionalWith(schema, { default: () => Schema.decodeUnknownSync(schema)({}), exact: true })

/** A `metric` enum with its default, for a `history` op. */
export const metric = <const L extends ReadonlyArray<string>>(values: L, fallback: L[number]) =>
  withDefault(oneOf(...values), fallback)

/** `postedWithin` of the forum: `1h`, `1d`, `7d`, `30d`, `1y`, `any`. */
export const ForumWindow = oneOf("1h", "1d", "7d", "30d", "1y", "any")

/** `postedWithin` of the job boards: `1d`, `3d`, `7d`, `15d`, `30d`, `any`. */
export const JobsWindow = oneOf("1d", "3d", "7d", "15d", "30d", "any")

/** A numeric board id of at most 20 digits (jobs_in coded filters). */
export const NumericId = Schema.String.pipe(
  Schema.pattern(/^[0-9]{1,20}$/, { message: () => "must be a numeric id of at most 20 digits" })
)

/** jobs_in `experience`: `all` or an integer 0-23 (a number or its decimal string). */
export const Experience = Schema.Union(
  Schema.Literal("all"),
  Schema.String.pipe(Schema.pattern(/^(?:[0-9]|1[0-9]|2[0-3])$/)),
  Schema.transform(int(0, 23), Schema.String, { strict: true, decode: String, encode: Number })
).annotations({ message: () => ({ message: 'must be "all" or an integer from 0 to 23', override: true }) })

const utf8Length = (s: string): number => {
  let n = 0
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i)
    if (c < 0x80) n += 1
    else if (c < 0x800) n += 2
    else if (c >= 0xd800 && c < 0xdc00) {
      n += 4
      i++
    } else n += 3
  }
  return n
}

const prototypeKeys: ReadonlySet<string> = new Set(["__proto__", "constructor", "prototype"])

/**
 * A free-form JSON object (explore `run`'s `input`) within the given limits: at most `maxDepth` levels of nesting
 * (the object itself is level 1) and `maxBytes` bytes as JSON; no `__proto__`, `constructor` or `prototype` key at
 * any depth; every key and string storable. Checked with an explicit stack (no recursion) before the record is read.
 */
export const jsonObject = (limits: { readonly maxDepth: number; readonly maxBytes: number }) => {
  const description =
    `a JSON object of at most ${limits.maxDepth} levels and ${limits.maxBytes} bytes; ` +
    "the keys __proto__, constructor and prototype are refused at any depth"
  const check = (input: unknown): true | { path: ReadonlyArray<PropertyKey>; message: string } | string => {
    if (typeof input !== "object" || input === null || Array.isArray(input)) return "must be a JSON object"
    const work: Array<{ readonly v: unknown; readonly path: ReadonlyArray<PropertyKey>; readonly depth: number }> = [
      { v: input, path: [], depth: 1 }
    ]
    while (work.length > 0) {
      const { v, path, depth } = work.pop()!
      if (typeof v === "string") {
        if (!Subjects.isStorable(v)) return { path, message: Subjects.unstorableMessage }
        continue
      }
      if (typeof v !== "object" || v === null) continue
      if (depth > limits.maxDepth) return { path, message: `is nested deeper than ${limits.maxDepth} levels` }
      if (Array.isArray(v)) {
        for (let i = 0; i < v.length; i++) work.push({ v: v[i], path: [...path, i], depth: depth + 1 })
        continue
      }
      for (const [key, value] of Object.entries(v)) {
        if (prototypeKeys.has(key)) return { path: [...path, key], message: "is a key that is not accepted" }
        if (!Subjects.isStorable(key)) return { path: [...path, key], message: `key ${Subjects.unstorableMessage}` }
        work.push({ v: value, path: [...path, key], depth: depth + 1 })
      }
    }
    const bytes = utf8Length(JSON.stringify(input))
    return bytes <= limits.maxBytes ? true : `must be at most ${limits.maxBytes} bytes as JSON (it is ${bytes})`
  }
  // any JSON value under any key (issue 23: without `additionalProperties` a generated client typed it as an object
  // that can hold nothing)
  const jsonSchema = {
    type: "object",
    additionalProperties: true,
    description,
    "x-maxDepth": limits.maxDepth,
    "x-maxBytes": limits.maxBytes
  }
  // typed as what it accepts, an object of JSON values, on both sides (issue 23: typed clients take nothing else);
  // the check itself runs on anything, so a wrong input is still answered with its own message; the one cast left:
  // the check proves JSON-ness at run time, which a filter on `Unknown` cannot carry into either side's type
  return Schema.compose(
    Schema.Unknown.annotations({ jsonSchema }).pipe(Schema.filter(check, { jsonSchema: {} })),
    Schema.Record({ key: Schema.String, value: Schema.Unknown }),
    { strict: false }
  ) as Schema.Schema<JsonObject, JsonObject>
}

/** A JSON value. */
export type JsonValue =
  | string
  | number
  | boolean
  | null
  | ReadonlyArray<JsonValue>
  | { readonly [key: string]: JsonValue }

/** A JSON object. */
export type JsonObject = { readonly [key: string]: JsonValue }
