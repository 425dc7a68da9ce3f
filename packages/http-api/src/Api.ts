/** The public HTTP contract: catalogue, op calls and balance under `/api/v1`. */
import { HttpApi, HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Catalogue, type Envelope, Fields, Requests, Rows } from "@pdr/domain"
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
  requestSchema: Schema.Unknown,
  example: Schema.optionalWith(
    Schema.Record({ key: Schema.String, value: Schema.Unknown }).annotations({
      description:
        "a valid request of this op (its `request`): it decodes and quotes as it is; its subjects are placeholders of the right form, not real entities"
    }),
    { exact: true }
  ),
  servedBy: Schema.optionalWith(
    Schema.Struct({
      adapter: Schema.String,
      actor: Schema.optionalWith(Schema.String, { exact: true }),
      store: Schema.optionalWith(
        Schema.Array(Schema.Literal(...Fields.storeFormNames)).annotations({
          description:
            "quick-commerce ops: the store locator forms the upstream serving this op takes here (storeId; pincode with city; latLon, lat with lon); a request with another form is refused 400 naming request.store before anything is spent"
        }),
        { exact: true }
      ),
      requires: Schema.optionalWith(
        Schema.Record({ key: Schema.String, value: Schema.String }).annotations({
          description:
            "optional request fields the upstream serving this op here cannot do without, each with why; a request without one is refused 400 naming it before anything is spent"
        }),
        { exact: true }
      ),
      refuses: Schema.optionalWith(
        Schema.Record({ key: Schema.String, value: Schema.String }).annotations({
          description:
            "optional request fields the upstream serving this op here cannot serve, each with why; a request giving one is refused 400 naming it before anything is spent"
        }),
        { exact: true }
      ),
      maxRows: Schema.optionalWith(
        Schema.Int.pipe(Schema.positive()).annotations({
          description:
            "the most rows one fetch of this op serves here, when fewer than a request may ask: a request asking more is delivered with what came, billed for it, and its coverage is never complete"
        }),
        { exact: true }
      )
    }).annotations({
      description:
        "which upstream adapter serves this op in this deployment (synthetic, storefront, forum, provider), for the provider which actor, for a quick-commerce op which store locator forms it takes, which optional request fields it cannot do without, which it cannot serve, and the most rows one fetch serves"
    }),
    { exact: true }
  )
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
    Schema.Literal(
      "not_found",
      "upstream_failed",
      "upstream_timeout",
      "nothing_on_file",
      "invalid_subject",
      "cancelled"
    ),
    { exact: true }
  ),
  detail: Schema.optionalWith(Schema.String, { exact: true }),
  complete: Schema.optionalWith(
    Schema.Boolean.annotations({
      description:
        "measured units: true when the rows are every row (page) asked for or all there is; false when the unit was cut short (a limit, a budget, a charge limit, an unexpanded stub) and billed for what it holds; a later request for as many rows fetches again"
    }),
    { exact: true }
  ),
  missing: Schema.optionalWith(
    Schema.NonNegativeInt.annotations({
      description: "rows the upstream announced but that could not be fetched within the unit's budget"
    }),
    { exact: true }
  ),
  retryAfterSeconds: Schema.optionalWith(
    Schema.Int.pipe(Schema.positive()).annotations({
      description:
        "omitted units whose upstream host refuses calls for now (its circuit open after repeated failures, shared by every instance): the seconds until the host is tried again; asked sooner, the unit is refused the same way, nothing billed"
    }),
    { exact: true }
  )
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
    callId: Schema.String.annotations({
      description: "the call's id: `GET /api/v1/calls/<callId>` answers this again, free, for 24 hours (issue 21)"
    }),
    ...Versions
  })

/** The op answer envelope (D4), rows of any op. */
export const OpResponse = answerOf(Schema.Record({ key: Schema.String, value: Schema.Unknown }))

/** The answer (D4) of an op whose rows are of type `Row`. */
export type AnswerOf<Row> = Omit<typeof OpResponse.Type, "data"> & { readonly data: ReadonlyArray<Row> }

// ---- issue 21: long calls ----
/** Units done of a call and its units in all (null until it is planned). */
export const CallProgress = Schema.Struct({
  unitsDone: Schema.NonNegativeInt,
  unitsTotal: Schema.NullOr(Schema.NonNegativeInt)
})

/** `202 Accepted`: a call still running (after `Prefer: respond-async` / `wait=N`, or when collected early). */
export const CallAccepted = Schema.Struct({
  callId: Schema.String,
  status: Schema.Literal("running", "cancelling"),
  quote: Schema.NullOr(Schema.NonNegativeInt).annotations({ description: "the call's quote (null until planned)" }),
  progress: CallProgress,
  requestId: Schema.String,
  ...Versions
}).annotations({ identifier: "CallAccepted" })

/** One call of `GET /api/v1/calls`. */
export const CallSummary = Schema.Struct({
  callId: Schema.String,
  platform: Schema.String,
  op: Schema.NullOr(Schema.String),
  status: Schema.Literal("running", "done", "cancelled"),
  httpStatus: Schema.NullOr(Schema.Int).annotations({ description: "the status of its answer once it ended" }),
  quote: Schema.NullOr(Schema.NonNegativeInt),
  progress: CallProgress,
  cancelRequested: Schema.Boolean,
  createdAt: Rows.dateTime("when the call started"),
  finishedAt: Schema.NullOr(Rows.dateTime("when the call ended"))
}).annotations({ identifier: "CallSummary" })

/** `GET /api/v1/calls`: the account's calls, newest first, and the cursor of the next page. */
export const CallList = Schema.Struct({
  calls: Schema.Array(CallSummary),
  next: Schema.NullOr(Schema.String).annotations({ description: "pass as `after` for the next page; null at the end" }),
  requestId: Schema.String,
  ...Versions
})

/**
 * The request envelope of a call: one op's request, `estimateOnly` (D8), `maxCredits` (D18), `maxAgeSeconds` and
 * `forceFresh` (issue 21); the fields beside `request` are `Envelope.fields`.
 */
export type EnvelopeOf<Request> = Schema.Schema.Encoded<ReturnType<typeof Envelope.of<Schema.Schema<Request>>>>

/** A platform of the catalogue (its path segment). */
export type Platform = Catalogue.TypedPlatform["id"]

type OpsOf<P extends Platform> = Extract<Catalogue.TypedPlatform, { readonly id: P }>["ops"][number]

/** The ops of a platform (`request.op`). */
export type OpOf<P extends Platform> = OpsOf<P>["name"]

/** The request of an op (of any op of the platform when `O` is left out), as sent: defaulted fields may be left out. */
export type RequestOf<P extends Platform, O extends string = OpOf<P>> = Schema.Schema.Encoded<
  Extract<OpsOf<P>, { readonly name: O }>["request"]
>

/** One `data` row of an op's answer (of any op of the platform when `O` is left out). */
export type RowOf<P extends Platform, O extends string = OpOf<P>> = Schema.Schema.Type<
  Extract<OpsOf<P>, { readonly name: O }>["row"]
>

/**
 * The request headers of a call: an optional `Idempotency-Key` (D16), `Prefer` (RFC 7240 `respond-async`, `wait=N`)
 * and `Cache-Control` (`max-age=N`, `no-cache`), issue 21.
 */
export interface CallHeaders {
  readonly "idempotency-key"?: string | undefined
  readonly prefer?: string | undefined
  readonly "cache-control"?: string | undefined
}

/**
 * The endpoint of one platform's calls: its body is one of its ops' requests (as sent: defaults may be left out),
 * its 200 answer has rows of its ops.
 */
export type PlatformEndpoint<P> =
  P extends Catalogue.PlatformDef<infer Id, infer Ops>
    ? HttpApiEndpoint.HttpApiEndpoint<
        Id,
        "POST",
        never,
        never,
        EnvelopeOf<Schema.Schema.Encoded<Ops[number]["request"]>>,
        CallHeaders,
        AnswerOf<Schema.Schema.Type<Ops[number]["row"]>> | typeof CallAccepted.Type
      >
    : never

const callHeaders = Schema.Struct({
  "idempotency-key": Schema.optional(Schema.String),
  prefer: Schema.optional(Schema.String),
  "cache-control": Schema.optional(Schema.String)
})

/** The ops of a platform of the contract, by name (a client refuses an unknown op as `unknown_op`, issue 23). */
export const opsOf = (platform: string): ReadonlyArray<string> | undefined =>
  Catalogue.findPlatform(platform)?.ops.map((o) => o.name)

/**
 * The endpoint of a platform, from its catalogue entry (`POST /api/v1/platforms/<id>`); its payload is the domain's
 * Schema of the platform's body (`Requests.payload`), the one the server decodes with.
 */
const platformEndpoint = (p: Catalogue.PlatformDef) =>
  HttpApiEndpoint.post(p.id, `/api/v1/platforms/${p.id}`)
    .setPayload(Requests.payload(p))
    .setHeaders(callHeaders)
    .addSuccess(answerOf(Schema.Union(...p.ops.map((o) => o.row))))
    .addSuccess(CallAccepted, { status: 202 })
    .annotate(OpenApi.Summary, p.description)

/**
 * One endpoint per platform of the catalogue, each typed with its ops' requests and rows: the derived client has
 * `platforms.maps(...)`, `platforms.web_search(...)`, and so on. An API key is required.
 */
export class PlatformsGroup extends (
  Catalogue.typed.reduce<HttpApiGroup.HttpApiGroup.Any>(
    (group, p) => (group as HttpApiGroup.HttpApiGroup<"platforms">).add(platformEndpoint(p)),
    HttpApiGroup.make("platforms")
  ) as unknown as HttpApiGroup.HttpApiGroup<"platforms", PlatformEndpoint<Catalogue.TypedPlatform>>
)
  // issue 23: each group declares only the errors its endpoints answer (the derived client's union per endpoint)
  .addError(Failure.callErrors)
  .addError(Failure.wire.PayloadTooLarge)
  .middleware(Authentication) {}

const callPath = Schema.Struct({ id: Schema.String })

/** The calls of the key's account: collect, list, cancel (issue 21). An API key is required. */
export class CallsGroup extends HttpApiGroup.make("calls")
  .add(
    HttpApiEndpoint.get("collect", "/api/v1/calls/:id")
      .setPath(callPath)
      .addSuccess(OpResponse)
      .addSuccess(CallAccepted, { status: 202 })
      // a collected call answers with the status and body it ended with: any error of an op call, or 404
      .addError(Failure.wire.NotFound)
      .addError(Failure.callErrors)
      .annotate(OpenApi.Summary, "A call's answer (as it would have been answered), or 202 with its progress; free")
  )
  .add(
    HttpApiEndpoint.get("list", "/api/v1/calls")
      .setUrlParams(
        Schema.Struct({
          after: Schema.optional(Schema.String),
          limit: Schema.optional(Schema.NumberFromString.pipe(Schema.int(), Schema.between(1, 100)))
        })
      )
      .addSuccess(CallList)
      .addError(Failure.wire.InvalidRequest)
      .annotate(OpenApi.Summary, "The account's calls of the last 24 hours, newest first (keyset pages)")
  )
  .add(
    HttpApiEndpoint.del("cancel", "/api/v1/calls/:id")
      .setPath(callPath)
      .addSuccess(CallAccepted, { status: 202 })
      .addError(Failure.wire.NotFound)
      .addError(Failure.wire.CallFinished)
      .annotate(OpenApi.Summary, "Cancels a running call: nothing more is fetched or billed; delivered units are kept")
  )
  .middleware(Authentication) {}

/** Catalogue: no key. */
export class CatalogueGroup extends HttpApiGroup.make("catalogue").add(
  HttpApiEndpoint.get("platforms", "/api/v1/platforms")
    .addSuccess(CatalogueResponse)
    .annotate(OpenApi.Summary, "Every platform and op with prices, windows, availability and request schemas")
) {}

/** The key's account: an API key is required. */
export class AccountGroup extends HttpApiGroup.make("account")
  .add(
    HttpApiEndpoint.get("balance", "/api/v1/balance")
      .addSuccess(BalanceResponse)
      .annotate(OpenApi.Summary, "Spendable credits of the key's account")
  )
  .middleware(Authentication) {}

/**
 * What the server answers under `/api/v1/platforms/` that is no platform of the catalogue: the domain's 404
 * `unknown_platform` (after the key check, like any call). Served, not published: it is not in the contract.
 */
export class UnknownPlatformGroup extends HttpApiGroup.make("unknownPlatform")
  .add(HttpApiEndpoint.post("call", "/api/v1/platforms/:platform").setPath(Schema.Struct({ platform: Schema.String })))
  .middleware(Authentication) {}

/** The public API: every endpoint may answer 500 `internal`; the rest is declared per group and endpoint. */
export class Api extends HttpApi.make("pdr")
  .add(CatalogueGroup)
  .add(PlatformsGroup)
  .add(AccountGroup)
  .add(CallsGroup)
  .add(
    DashboardGroup.addError(Failure.wire.InvalidRequest)
      .addError(Failure.wire.Unauthorized)
      .addError(Failure.wire.Forbidden)
      .addError(Failure.wire.NotFound)
      .addError(Failure.wire.PayloadTooLarge)
      .addError(Failure.wire.RateLimited)
  )
  // any request may be refused as content-encoded before it is routed (415), or fail inside (500)
  .addError(Failure.wire.UnsupportedMediaType)
  .addError(Failure.wire.Internal)
  .annotate(OpenApi.Title, "Platform Data Retrieval API")
  .annotate(OpenApi.Description, "Credit-billed measured public data about entities on many platforms.") {}

/**
 * What the server serves: the contract, and the answer to a platform that is not in the catalogue. The server may
 * answer any error from anywhere it is raised (a precheck, a middleware, a handler), so here every error is declared
 * for every endpoint: the narrower unions above are the clients' (what each endpoint answers).
 */
export const Served = Api.add(UnknownPlatformGroup).addError(Failure.every)
