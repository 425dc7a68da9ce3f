/** The public HTTP contract: catalogue, op calls and balance under `/api/v1`. */
import { HttpApi, HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Rows } from "@pdr/domain"
import { Schema } from "effect"
import { DashboardGroup } from "./DashboardApi.js"
import * as Failure from "./Failure.js"
import { Authentication } from "./Security.js"

/** `contextVersion` of the envelope contract (D13). */
export const contextVersion = 1 as const

const Versions = {
  contextVersion: Schema.Literal(contextVersion),
  engineVersion: Schema.String
}

/** One op as the catalogue publishes it (D13). */
export const CatalogueOp = Schema.Struct({
  op: Schema.String,
  description: Schema.String,
  price: Schema.Struct({
    rule: Schema.String,
    startingPrice: Schema.Number,
    rows: Schema.NullOr(Schema.Number),
    parts: Schema.optionalWith(Schema.Record({ key: Schema.String, value: Schema.Number }), { exact: true })
  }),
  freshnessSeconds: Schema.NullOr(Schema.Number),
  available: Schema.Boolean,
  units: Schema.Literal("subjects", "subject", "query"),
  subjects: Schema.NullOr(Schema.String),
  metrics: Schema.optionalWith(Schema.Array(Schema.String), { exact: true }),
  sources: Schema.optionalWith(
    Schema.Array(
      Schema.Struct({
        name: Schema.String,
        price: Schema.Struct({ credits: Schema.Number, rows: Schema.Number })
      })
    ).annotations({ description: "explore run: the sources served now, each with its price per `rows` rows (D19)" }),
    { exact: true }
  ),
  requestSchema: Schema.Unknown
})

/** `GET /api/v1/platforms`. */
export const CatalogueResponse = Schema.Struct({
  platforms: Schema.Array(
    Schema.Struct({ platform: Schema.String, description: Schema.String, ops: Schema.Array(CatalogueOp) })
  ),
  ...Versions
})

/** `GET /api/v1/balance` (D7). */
export const BalanceResponse = Schema.Struct({ creditsRemaining: Schema.Number, ...Versions })

/** One unit of work in `coverage` (D4). */
export const CoverageItem = Schema.Struct({
  subject: Schema.optionalWith(Schema.String.annotations({ description: "the unit's canonical subject" }), {
    exact: true
  }),
  query: Schema.optionalWith(Schema.String.annotations({ description: "the unit's query (query ops)" }), {
    exact: true
  }),
  status: Schema.Literal("fetched", "stored", "omitted", "fetch").annotations({
    description: "fetched now, served from the store, left out, or (estimateOnly) would be fetched"
  }),
  measuredAt: Schema.NullOr(Rows.dateTime("when the unit's data was measured")),
  rows: Schema.NonNegativeInt.annotations({ description: "rows (or pages) delivered, or quoted for" }),
  credits: Schema.NonNegative.annotations({ description: "the exact, unrounded price of the unit (D17)" }),
  source: Schema.NullOr(Schema.String),
  reason: Schema.optionalWith(
    Schema.Literal("not_found", "upstream_failed", "upstream_timeout", "nothing_on_file", "invalid_subject"),
    { exact: true }
  ),
  detail: Schema.optionalWith(Schema.String, { exact: true })
}).annotations({ identifier: "CoverageItem" })

/** `cost` of an answer (D4). */
export const Cost = Schema.Struct({
  creditsCharged: Schema.NonNegativeInt.annotations({ description: "credits this call captured" }),
  creditsRemaining: Schema.Number.annotations({ description: "spendable credits after the call" })
})

/** `estimate` of an `estimateOnly` answer (D8, D18). */
export const Estimate = Schema.Struct({
  credits: Schema.NonNegativeInt.annotations({ description: "the exact quote of the call" }),
  fitsMaxCredits: Schema.optionalWith(
    Schema.Boolean.annotations({ description: "whether the quote fits maxCredits (present when it was given)" }),
    { exact: true }
  )
})

/** The answer envelope (D4) with rows of this Schema. */
export const answerOf = <R extends Schema.Schema.AnyNoContext>(row: R) =>
  Schema.Struct({
    data: Schema.Array(row),
    cost: Cost,
    coverage: Schema.Array(CoverageItem),
    estimate: Schema.optionalWith(Estimate, { exact: true }),
    requestId: Schema.String,
    ...Versions
  })

/** The op answer envelope (D4), rows of any op. */
export const OpResponse = answerOf(Schema.Record({ key: Schema.String, value: Schema.Unknown }))

const envelopeJsonSchema = {
  type: "object",
  required: ["request"],
  additionalProperties: false,
  properties: {
    request: {
      type: "object",
      required: ["op"],
      properties: { op: { type: "string" } },
      additionalProperties: true,
      description: "`op` and the op's own fields; each op's request JSON Schema is published by GET /api/v1/platforms"
    },
    estimateOnly: { type: "boolean", description: "quote the exact cost without spending" },
    maxCredits: { type: "integer", minimum: 0, description: "refuse the call when its quote is above this (D18)" }
  }
}

/** The request envelope; the op's fields are decoded by the domain so every bad field is named (D5). */
export const OpEnvelope = Schema.Unknown.annotations({ jsonSchema: envelopeJsonSchema, identifier: "OpEnvelope" })

/**
 * Declares the two ways of sending an API key (D6) in the OpenAPI document: the key check is our own middleware
 * (it compares both headers), so the schemes are added here, on every path but the catalogue's.
 */
const withKeySecurity = (spec: Record<string, unknown>): Record<string, unknown> => {
  const paths: Record<string, unknown> = {}
  for (const [path, item] of Object.entries((spec["paths"] ?? {}) as Record<string, Record<string, object>>)) {
    paths[path] =
      path === "/api/v1/platforms"
        ? item
        : Object.fromEntries(
            Object.entries(item).map(([method, op]) => [method, { ...op, security: [{ apiKey: [] }, { bearer: [] }] }])
          )
  }
  return {
    ...spec,
    paths,
    components: {
      ...(spec["components"] as object),
      securitySchemes: {
        apiKey: { type: "apiKey", in: "header", name: "X-API-Key", description: "key_live_ followed by 32 characters" },
        bearer: { type: "http", scheme: "bearer", description: "the same key as Authorization: Bearer <key>" }
      }
    }
  }
}

/** Catalogue: no key. */
export class CatalogueGroup extends HttpApiGroup.make("catalogue").add(
  HttpApiEndpoint.get("platforms", "/api/v1/platforms")
    .addSuccess(CatalogueResponse)
    .annotate(OpenApi.Summary, "Every platform and op with prices, windows, availability and request schemas")
) {}

/** Op calls and balance: an API key is required. */
export class OpsGroup extends HttpApiGroup.make("ops")
  .add(
    HttpApiEndpoint.post("call", "/api/v1/platforms/:platform")
      .setPath(Schema.Struct({ platform: Schema.String }))
      .setPayload(OpEnvelope)
      .addSuccess(OpResponse)
      .annotate(OpenApi.Summary, "Call one op of one platform (or quote it with estimateOnly)")
  )
  .add(
    HttpApiEndpoint.get("balance", "/api/v1/balance")
      .addSuccess(BalanceResponse)
      .annotate(OpenApi.Summary, "Spendable credits of the key's account")
  )
  .middleware(Authentication) {}

/** The public API. */
export class Api extends HttpApi.make("pdr")
  .add(CatalogueGroup)
  .add(OpsGroup)
  .add(DashboardGroup)
  .addError(Failure.wire.InvalidRequest)
  .addError(Failure.wire.UnknownOp)
  .addError(Failure.wire.Unauthorized)
  .addError(Failure.wire.InsufficientCredits)
  .addError(Failure.wire.QuoteAboveMaxCredits)
  .addError(Failure.wire.Forbidden)
  .addError(Failure.wire.UnknownPlatform)
  .addError(Failure.wire.NotFound)
  .addError(Failure.wire.IdempotencyInFlight)
  .addError(Failure.wire.PayloadTooLarge)
  .addError(Failure.wire.UnsupportedMediaType)
  .addError(Failure.wire.IdempotencyMismatch)
  .addError(Failure.wire.RateLimited)
  .addError(Failure.wire.Internal)
  .addError(Failure.wire.UpstreamFailed)
  .addError(Failure.wire.OpUnavailable)
  .annotate(OpenApi.Transform, withKeySecurity)
  .annotate(OpenApi.Title, "Platform Data Retrieval API")
  .annotate(OpenApi.Description, "Credit-billed measured public data about entities on many platforms.") {}
