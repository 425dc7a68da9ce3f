/**
 * The OpenAPI 3.1 document of the public API, generated from the catalogue: one path per platform whose body is a
 * `oneOf` of its ops' request envelopes (each the op's own request Schema, the same one `GET /api/v1/platforms`
 * publishes), whose 200 is typed with that op's rows, and which lists only the error statuses and codes the
 * endpoint can answer (D5), with the request and response headers the server reads and writes.
 */
import { type HttpApiGroup, OpenApi } from "@effect/platform"
import { Catalogue, Envelope, ErrorCodes, Examples } from "@pdr/domain"
import { SchemaAST as AST, JSONSchema, Schema } from "effect"
import * as Api from "./Api.js"
import * as Failure from "./Failure.js"

type Json = Record<string, unknown>

/** What the document needs from the running server. */
export interface DocumentOptions {
  /** `info.version`: the engine version. */
  readonly version: string
  /** `servers`; by default the server answering the document. */
  readonly servers?: ReadonlyArray<{ readonly url: string; readonly description?: string }>
}

/** The D5 error codes of the public API by HTTP status, read from the errors' own declarations (`Failure.codes`). */
export const errorCodes: Readonly<Record<Failure.ApiStatus, ReadonlyArray<Failure.ApiCode>>> = (() => {
  const byStatus: Partial<Record<Failure.ApiStatus, Array<Failure.ApiCode>>> = {}
  for (const [code, { status, surface }] of Object.entries(Failure.codes)) {
    if (surface !== "api") continue
    const s = status as Failure.ApiStatus
    byStatus[s] = [...(byStatus[s] ?? []), code as Failure.ApiCode]
  }
  return byStatus as Record<Failure.ApiStatus, ReadonlyArray<Failure.ApiCode>>
})()

const members = (ast: AST.AST): ReadonlyArray<AST.AST> => (AST.isUnion(ast) ? ast.types : [ast])

/**
 * The statuses an endpoint of the contract answers, read from its declarations (its own errors, its group's, the
 * API's, its middleware's), but for the codes in `except`.
 */
const statusesOf = (
  groupName: string,
  endpointName: string,
  except: ReadonlyArray<Failure.Code> = []
): Array<Failure.ApiStatus> => {
  const group = (Api.Api.groups as unknown as Record<string, HttpApiGroup.HttpApiGroup.AnyWithProps>)[groupName]!
  const endpoint = group.endpoints[endpointName]!
  const schemas = [
    Api.Api.errorSchema,
    group.errorSchema,
    endpoint.errorSchema,
    ...[...group.middlewares, ...endpoint.middlewares].map((m) => m.failure)
  ]
  const codes = schemas
    .flatMap((s) => members(s.ast))
    .map(Failure.codeOfAst)
    .filter((code): code is Failure.Code => code !== undefined && !except.includes(code))
  return [...new Set(codes.map((code) => Failure.codes[code].status as Failure.ApiStatus))]
}

/** What each status means, for a person; a status without a line here is described by its codes. */
const statusText: Partial<Record<Failure.ApiStatus, string>> = {
  400: "The body, the envelope or a field is invalid; every offending field is named in `details`.",
  401: "The API key is missing, malformed, unknown, revoked or expired.",
  402: "The quote exceeds the spendable credits, `maxCredits`, or what is left of the key's monthly credit limit; nothing was held, fetched or billed.",
  404: "No such route, platform, or call of this account.",
  409: "A call with this Idempotency-Key is still running, or (DELETE /api/v1/calls/<id>) the call already ended.",
  413: "The body is over 64 KiB; nothing was read or billed.",
  415: "The body is not JSON, or is content-encoded.",
  422: "This Idempotency-Key was used with another request.",
  429: "The key's rate limit (or the failed-authentication limit) is reached; retry after Retry-After seconds.",
  500: "Internal error. An op call was not billed, unless the message says its billing could not be confirmed (D24); any other request billed nothing (a collect whose read failed: the call is unchanged, ask again).",
  502: "Every unit failed upstream; nothing was billed. A unit refused because its upstream host's circuit is open says `retryAfterSeconds` in `details.coverage`, and the longest of them is the `Retry-After` header.",
  503: "The op is currently unavailable (D11); nothing was billed."
}

/** A code's `details` as JSON Schema, from its one declaration (`ErrorCodes.codes`). */
const detailsOf = (code: Failure.ApiCode): Json | undefined => {
  const schema = ErrorCodes.declaration(code).details
  if (schema === undefined) return undefined
  const { $schema: _, ...json } = JSONSchema.make(schema) as unknown as Json
  return json
}

/** The `error` of one code: a generated client narrows `details` by `code` (issue 23). */
const errorOfCode = (code: Failure.ApiCode): Json => {
  const details = detailsOf(code)
  return {
    type: "object",
    required: [
      "code",
      "message",
      "requestId",
      ...(details !== undefined && Failure.alwaysDetailed(code) ? ["details"] : [])
    ],
    additionalProperties: false,
    properties: {
      code: { type: "string", enum: [code] },
      message: { type: "string", description: "what happened, for a person" },
      requestId: { type: "string" },
      ...(details ? { details } : {})
    }
  }
}

const errorBody = (status: Failure.ApiStatus): Json => {
  const codes = errorCodes[status]
  return {
    type: "object",
    required: ["error"],
    additionalProperties: false,
    properties: { error: codes.length === 1 ? errorOfCode(codes[0]!) : { oneOf: codes.map(errorOfCode) } }
  }
}

const headerRef = (name: string) => ({ $ref: `#/components/headers/${name}` })

const headers = {
  "x-request-id": { description: "the request's id (also in the body)", schema: { type: "string" }, required: true },
  RateLimit: {
    description:
      'IETF draft-ietf-httpapi-ratelimit-headers RateLimit: the key\'s bucket after this call, `"<policy>";r=<remaining>;t=<seconds until a request is admitted again>` (e.g. `"default";r=39;t=0`)',
    schema: { type: "string" }
  },
  "RateLimit-Policy": {
    description:
      'RateLimit-Policy: `"<policy>";q=<burst>;w=<seconds to refill the burst>` (e.g. `"default";q=40;w=2`; D12, D17)',
    schema: { type: "string" }
  },
  "Retry-After": { description: "seconds to wait before retrying", schema: { type: "integer", minimum: 1 } },
  "Idempotent-Replayed": {
    description: "`true` when the answer is the replay of an earlier call with this Idempotency-Key (D16)",
    schema: { type: "string", enum: ["true"] }
  },
  "Call-Id": {
    description: "the call's id: `GET /api/v1/calls/<id>` answers it again, free, for 24 hours (issue 21)",
    schema: { type: "string" }
  },
  Location: { description: "where the call is collected: `/api/v1/calls/<id>`", schema: { type: "string" } },
  "Preference-Applied": { description: "RFC 7240: `respond-async`", schema: { type: "string" } }
} as const

type HeaderName = keyof typeof headers

const response = (description: string, schema: Json, names: ReadonlyArray<HeaderName>, examples?: Json) => ({
  description,
  headers: Object.fromEntries(names.map((n) => [n, headerRef(n.replace(/[^A-Za-z0-9]/g, ""))])),
  content: { "application/json": { schema, ...(examples ? { examples } : {}) } }
})

const errorResponses = (statuses: ReadonlyArray<Failure.ApiStatus>, keyed: boolean, replayable: boolean) =>
  Object.fromEntries(
    statuses.map((status) => {
      const names: Array<HeaderName> = ["x-request-id"]
      if (keyed && status !== 401) names.push("RateLimit", "RateLimit-Policy")
      // a 502 whose units were refused by an open circuit: when they are tried again (their longest retryAfterSeconds)
      if (status === 429 || status === 502) names.push("Retry-After")
      if (replayable) names.push("Idempotent-Replayed")
      const description = statusText[status] ?? `Errors ${errorCodes[status].map((c) => `\`${c}\``).join(", ")}.`
      return [String(status), response(description, { $ref: `#/components/schemas/Error${status}` }, names)]
    })
  )

/** Removes the `$id` the generator gives every `unknown` (one `$id` repeated breaks validators). */
const withoutIds = (node: unknown): unknown => {
  if (Array.isArray(node)) return node.map(withoutIds)
  if (node === null || typeof node !== "object") return node
  const out: Json = {}
  for (const [k, v] of Object.entries(node)) if (k !== "$id") out[k] = withoutIds(v)
  return out
}

const security = [{ apiKey: [] }, { bearer: [] }]

/** A 202 of a call not done yet (issue 21). */
const accepted = (description: string, definitions: Record<string, JSONSchema.JsonSchema7>) =>
  response(description, schemaOf(Api.CallAccepted, definitions), [
    "x-request-id",
    "RateLimit",
    "RateLimit-Policy",
    "Call-Id",
    "Location",
    "Retry-After",
    "Preference-Applied"
  ])

const idempotencyKey = {
  name: "Idempotency-Key",
  in: "header",
  required: false,
  description:
    "retries with the same key and body answer the first call's result without billing again (D16); 1-255 printable ASCII characters",
  schema: { type: "string", minLength: 1, maxLength: 255 }
}

/** `Prefer` (RFC 7240) and `Cache-Control` (RFC 9111) on a call (issue 21). */
const prefer = {
  name: "Prefer",
  in: "header",
  required: false,
  description:
    "`respond-async` answers 202 as soon as the call is quoted; `wait=N` (0-600 seconds) waits up to N seconds for the answer first. The call goes on regardless of the connection and is collected at `Location`.",
  schema: { type: "string" }
}
const cacheControl = {
  name: "Cache-Control",
  in: "header",
  required: false,
  description: "`max-age=N` means `maxAgeSeconds: N`; `no-cache` means `forceFresh: true`",
  schema: { type: "string" }
}

/** The request envelope (`Envelope.of`, the Struct the server decodes with) as JSON Schema; `request` is set per op. */
const envelope: Json = (() => {
  const { $schema: _, ...json } = JSONSchema.make(Envelope.of(Schema.Unknown)) as unknown as Json
  return json
})()

/** The request envelope of one op: the envelope with the op's request Schema (D8, D18, issue 21). */
const envelopeOf = (op: Catalogue.OpDef, definitions: Record<string, JSONSchema.JsonSchema7>): Json => ({
  type: envelope["type"],
  title: `${op.platform} ${op.name}`,
  description: op.description,
  required: envelope["required"],
  additionalProperties: envelope["additionalProperties"],
  properties: {
    ...(envelope["properties"] as Json),
    request: Catalogue.requestJsonSchema(op, { definitions, definitionPath: "#/components/schemas/" })
  }
})

const schemaOf = (schema: Schema.Schema.AnyNoContext, definitions: Record<string, JSONSchema.JsonSchema7>) =>
  JSONSchema.fromAST(schema.ast, {
    definitions,
    definitionPath: "#/components/schemas/",
    target: "openApi3.1"
  }) as unknown as Json

/** The OpenAPI 3.1 document of the public API. */
export const document = (options: DocumentOptions): Json => {
  const definitions: Record<string, JSONSchema.JsonSchema7> = {}
  schemaOf(Api.CoverageItem, definitions)
  const paths: Json = {
    "/api/v1/platforms": {
      get: {
        operationId: "platforms",
        tags: ["catalogue"],
        security: [],
        summary: "Every platform and op with prices, windows, availability and request schemas",
        description:
          "The public catalogue (D13), no key needed. Each op's `requestSchema` (JSON Schema 2020-12) is the `request` of that op's branch below; explore `run` lists the sources served now (D19).",
        responses: {
          "200": response("The catalogue.", schemaOf(Api.CatalogueResponse, definitions), ["x-request-id"]),
          ...errorResponses(statusesOf("catalogue", "platforms"), false, false)
        }
      }
    },
    "/api/v1/balance": {
      get: {
        operationId: "balance",
        tags: ["account"],
        summary: "Spendable credits of the key's account (D7)",
        security,
        responses: {
          "200": response("The balance.", schemaOf(Api.BalanceResponse, definitions), [
            "x-request-id",
            "RateLimit",
            "RateLimit-Policy"
          ]),
          ...errorResponses(statusesOf("account", "balance"), true, false)
        }
      }
    }
  }
  for (const p of Catalogue.platforms) {
    const examples = Object.fromEntries(
      p.ops
        .filter((o) => o.available)
        .map((o) => [o.name, { summary: `${o.name}: ${o.description}`, value: { request: example(o) } }])
    )
    const fetches = p.ops.some((o) => o.kind._tag !== "Series" && o.available)
    const statuses = statusesOf("platforms", p.id, [
      ...(fetches ? [] : ["upstream_failed" as const]),
      ...(p.ops.some((o) => !o.available) ? [] : ["op_unavailable" as const])
    ])
    paths[`/api/v1/platforms/${p.id}`] = {
      post: {
        operationId: p.id,
        tags: ["ops"],
        summary: p.description,
        description: `Calls one op of ${p.id} (or quotes it with estimateOnly). Ops: ${p.ops
          .map((o) => `\`${o.name}\`${o.available ? "" : " (unavailable)"}`)
          .join(", ")}. The body is one of the ops' envelopes, told apart by \`request.op\`.`,
        security,
        parameters: [
          { $ref: "#/components/parameters/IdempotencyKey" },
          { $ref: "#/components/parameters/Prefer" },
          { $ref: "#/components/parameters/CacheControl" }
        ],
        requestBody: {
          required: true,
          content: {
            "application/json": {
              schema: { oneOf: p.ops.map((o) => envelopeOf(o, definitions)) },
              examples
            }
          }
        },
        responses: {
          "200": response(
            "The answer (D4): rows of the op, cost, coverage of every unit.",
            {
              anyOf: p.ops.map((o) => ({
                ...schemaOf(Api.answerOf(o.row), definitions),
                title: `${p.id} ${o.name}`
              }))
            },
            ["x-request-id", "RateLimit", "RateLimit-Policy", "Idempotent-Replayed", "Call-Id"]
          ),
          "202": accepted(
            "With `Prefer`: the call is not done yet; collect it at `Location` after `Retry-After`.",
            definitions
          ),
          ...errorResponses(statuses, true, true)
        }
      }
    }
  }
  // issue 21: the calls of the key's account
  const anyAnswer = schemaOf(Api.OpResponse, definitions)
  paths["/api/v1/calls/{id}"] = {
    parameters: [{ name: "id", in: "path", required: true, schema: { type: "string" } }],
    get: {
      operationId: "collectCall",
      tags: ["calls"],
      summary: "A call's answer, or its progress while it runs; free",
      description:
        "The call's answer exactly as it was (or would have been) answered: the same status and envelope (an error answer keeps its error status). While it runs: 202 with its quote and progress. Another account's, unknown or expired id: 404. Kept 24 hours.",
      security,
      responses: {
        "200": response("The call's answer (D4).", anyAnswer, [
          "x-request-id",
          "RateLimit",
          "RateLimit-Policy",
          "Call-Id"
        ]),
        "202": accepted("The call is still running.", definitions),
        ...errorResponses(statusesOf("calls", "collect"), true, false)
      }
    },
    delete: {
      operationId: "cancelCall",
      tags: ["calls"],
      summary: "Cancels a running call",
      description:
        "Units not yet fetched are not fetched or billed, fetches in flight are interrupted (provider runs aborted); what was already delivered is settled and kept. The call's answer is then collected as usual. A call that already ended: 409 `call_finished` with its status.",
      security,
      responses: {
        "202": accepted("The cancel is under way; collect the call's answer at `Location`.", definitions),
        ...errorResponses(statusesOf("calls", "cancel"), true, false)
      }
    }
  }
  paths["/api/v1/calls"] = {
    get: {
      operationId: "listCalls",
      tags: ["calls"],
      summary: "The account's calls of the last 24 hours, newest first",
      security,
      parameters: [
        {
          name: "after",
          in: "query",
          required: false,
          schema: { type: "string" },
          description: "`next` of the previous page"
        },
        { name: "limit", in: "query", required: false, schema: { type: "integer", minimum: 1, maximum: 100 } }
      ],
      responses: {
        "200": response("A page of calls.", schemaOf(Api.CallList, definitions), [
          "x-request-id",
          "RateLimit",
          "RateLimit-Policy"
        ]),
        ...errorResponses(statusesOf("calls", "list"), true, false)
      }
    }
  }
  const schemas: Json = { ...definitions }
  for (const status of Object.keys(errorCodes)) schemas[`Error${status}`] = errorBody(Number(status) as never)
  return withoutIds({
    openapi: "3.1.0",
    info: {
      title: "Platform Data Retrieval API",
      version: options.version,
      contact: { name: "Platform Data Retrieval API operators (account members manage keys on /dashboard)" },
      license: { name: "Proprietary: the service's terms of use", identifier: "LicenseRef-Proprietary" },
      description:
        "Credit-billed measured public data about entities on many platforms. Every platform is a path of its own; its body is one of its ops' request envelopes and its answer is typed with that op's rows. A platform that is not listed here answers 404 `unknown_platform` (body `Error404`), after the key check; any other unknown route answers 404 `not_found`."
    },
    servers: options.servers ?? [{ url: "/", description: "the server answering this document" }],
    tags: [
      { name: "catalogue", description: "What can be asked, and at what price" },
      { name: "ops", description: "One path per platform" },
      { name: "account", description: "The key's account" },
      { name: "calls", description: "Calls of the key's account: collect, list, cancel (issue 21)" }
    ],
    paths,
    components: {
      schemas,
      headers: Object.fromEntries(Object.entries(headers).map(([n, h]) => [n.replace(/[^A-Za-z0-9]/g, ""), h])),
      parameters: { IdempotencyKey: idempotencyKey, Prefer: prefer, CacheControl: cacheControl },
      securitySchemes: {
        apiKey: { type: "apiKey", in: "header", name: "X-API-Key", description: "key_live_ followed by 32 characters" },
        bearer: { type: "http", scheme: "bearer", description: "the same key as Authorization: Bearer <key>" }
      }
    }
  }) as Json
}

const example = (op: Catalogue.OpDef): Json => Examples.minimal(op, "synthetic/app-charts")

/** The public API whose OpenAPI document (`/openapi.json`, `/docs`) is this module's, for this engine version. */
export const api = (version: string) => {
  // built once (about 0.3 s), shared by /openapi.json and /docs
  let built: Json | undefined
  return Api.Served.annotate(OpenApi.Transform, () => {
    built ??= document({ version })
    return built as never
  })
}
