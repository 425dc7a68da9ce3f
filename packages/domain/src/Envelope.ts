/**
 * The request envelope, defined once (`of`): `request` and the fields beside it, `estimateOnly` (D8), `maxCredits`
 * (D18), and the freshness controls `maxAgeSeconds` and `forceFresh` (issue 21). The decoder (Requests), the HttpApi
 * contract and the OpenAPI document read it from here.
 */
import { Schema } from "effect"

/** A whole number >= 0 (safe integer), published as `{type: integer, minimum: 0}` with its description. */
const count = (description: string) =>
  Schema.Number.pipe(
    Schema.filter((n) => Number.isSafeInteger(n) && n >= 0, {
      description,
      jsonSchema: { type: "integer", minimum: 0, description }
    })
  )

/** The envelope fields with their Schemas (descriptions are what the contract and the document publish). */
export const fields = {
  estimateOnly: Schema.Boolean.annotations({ description: "quote the exact cost without spending (D8)" }),
  maxCredits: count("refuse the call (402 quote_above_max_credits) when its quote is above this (D18)"),
  maxAgeSeconds: count(
    "a stored result older than this many seconds is fetched again (and priced as a fetch); it can only shorten the op's freshness window. `Cache-Control: max-age=N` means the same"
  ),
  forceFresh: Schema.Boolean.annotations({
    description:
      "fetch every unit even when a fresh result is stored (priced as a fetch); the new measurement replaces the stored copy for every account and adds a history point. `Cache-Control: no-cache` means the same"
  })
} as const

/** The name of an envelope field beside `request`. */
export type FieldName = keyof typeof fields

/** What an envelope field must be, as a 400 says it. */
export const problems: { readonly [K in FieldName]: string } = {
  estimateOnly: "must be a boolean",
  maxCredits: "must be an integer >= 0 (the most this call may spend)",
  maxAgeSeconds: "must be an integer >= 0 (seconds: a stored result older than this is fetched again)",
  forceFresh: "must be a boolean"
}

/** The envelope fields, optional, as the envelope's Struct takes them. */
export const optionalFields = {
  estimateOnly: Schema.optionalWith(fields.estimateOnly, { exact: true }),
  maxCredits: Schema.optionalWith(fields.maxCredits, { exact: true }),
  maxAgeSeconds: Schema.optionalWith(fields.maxAgeSeconds, { exact: true }),
  forceFresh: Schema.optionalWith(fields.forceFresh, { exact: true })
}

/**
 * The request envelope around a request Schema: `request` and the optional envelope fields; any other member is
 * refused (D5). The one definition of the envelope: each platform's endpoint payload (`Requests.payload`), the
 * document's envelope of each op and the members the decoder accepts (`names`) are this Struct.
 */
export const of = <R extends Schema.Schema.Any>(request: R) =>
  Schema.Struct({ request, ...optionalFields }).annotations({ parseOptions: { onExcessProperty: "error" } })

/** The names of the envelope's members (`request` first), read from its Struct. */
export const names: ReadonlyArray<string> = Object.keys(of(Schema.Unknown).fields)

/** The freshness a call asks for: a shorter window (seconds) and whether to fetch regardless. */
export interface FreshnessControl {
  readonly maxAgeSeconds: number | undefined
  readonly forceFresh: boolean
}

/**
 * `Cache-Control` request header (RFC 9111 §5.2.1): `no-cache` = forceFresh, `max-age=N` = maxAgeSeconds. Other
 * directives are ignored; a malformed `max-age` is a problem naming the header.
 */
export const fromCacheControl = (
  header: string | undefined
): { readonly maxAgeSeconds?: number; readonly forceFresh?: boolean } | { readonly problem: string } => {
  if (header === undefined) return {}
  const out: { maxAgeSeconds?: number; forceFresh?: boolean } = {}
  for (const raw of header.split(",")) {
    const directive = raw.trim()
    const eq = directive.indexOf("=")
    const name = (eq < 0 ? directive : directive.slice(0, eq)).trim().toLowerCase()
    if (name === "no-cache") out.forceFresh = true
    else if (name === "max-age") {
      const value =
        eq < 0
          ? ""
          : directive
              .slice(eq + 1)
              .trim()
              .replace(/^"(.*)"$/, "$1")
      if (!/^\d{1,10}$/.test(value))
        return { problem: "max-age must be a whole number of seconds >= 0 (Cache-Control: max-age=N)" }
      out.maxAgeSeconds = Math.min(Number(value), out.maxAgeSeconds ?? Number.POSITIVE_INFINITY)
    }
  }
  return out
}
