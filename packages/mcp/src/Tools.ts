/**
 * The MCP tools: a small fixed set generated from the published catalogue (not one tool per op). Every tool calls the
 * public API through the client; every answer tells the model, in its text, what was charged, what is left, and per
 * subject whether it was fetched now or served from storage and when it was measured.
 */
import { randomUUID } from "node:crypto"
import {
  type ApiError,
  type CatalogueOp,
  type CatalogueResponse,
  ContractSchemas,
  type CoverageItem,
  dynamicCall,
  dynamicCallAsync,
  type OpResponse,
  type PdrClient,
  type Result,
  retryAfterMs
} from "./Client.js"

/** Rows of an answer are cut to this many bytes of JSON, so a model can take the answer whole. */
export const rowBudgetBytes = 20_000

/** A tool's answer, as the MCP `tools/call` result. */
export interface ToolResult {
  readonly [key: string]: unknown
  readonly content: ReadonlyArray<{ readonly type: "text"; readonly text: string }>
  readonly structuredContent?: Record<string, unknown>
  readonly isError?: boolean
}

/** A tool: its MCP declaration and what it runs. */
export interface Tool {
  readonly name: string
  readonly title: string
  readonly description: string
  readonly inputSchema: Record<string, unknown>
  readonly outputSchema: Record<string, unknown>
  readonly annotations: {
    readonly title: string
    readonly readOnlyHint: boolean
    readonly destructiveHint: boolean
    readonly idempotentHint: boolean
    readonly openWorldHint: boolean
  }
  readonly run: (args: Record<string, unknown>, context?: RunContext) => Promise<ToolResult>
}

/** What a tool run may use of its MCP request (issue 21): the client's cancellation and progress notifications. */
export interface RunContext {
  /** Aborted when the client cancels the request (`notifications/cancelled`). */
  readonly signal?: AbortSignal
  /** Sends a `notifications/progress` when the client asked for them (a `progressToken`). */
  readonly progress?: (progress: number, total: number | undefined, message: string) => Promise<void>
}

/** How long the server waits for a call's answer before answering 202 (then the tool follows it). */
export const callWaitSeconds = 10

type Platform = CatalogueResponse["platforms"][number]

const text = (t: string) => [{ type: "text" as const, text: t }]

/** A tool error the model can act on. */
const toolError = (message: string): ToolResult => ({ content: text(message), isError: true })

const isRecord = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null && !Array.isArray(u)

/** An API error as a tool error: the code, the message, every field named, and what to do next. */
export const fromApiError = (status: number, e: ApiError, headers?: Headers): ToolResult => {
  const lines = [`Error ${e.code}${status > 0 ? ` (HTTP ${status})` : ""}: ${e.message}`]
  if (Array.isArray(e.details)) {
    for (const d of e.details) {
      if (isRecord(d) && typeof d["path"] === "string") lines.push(`- field \`${d["path"]}\`: ${String(d["message"])}`)
    }
  } else if (isRecord(e.details)) {
    lines.push(`Details: ${JSON.stringify(e.details)}`)
  }
  if (e.code === "unauthorized")
    lines.push(
      "The API key was refused. Over stdio set PDR_API_KEY; over HTTP send `Authorization: Bearer <key>` on each request."
    )
  if (e.code === "quote_above_max_credits" && isRecord(e.details))
    lines.push(
      `The quote is ${String(e.details["required"])} credits. Call again with maxCredits >= ${String(e.details["required"])} if that is acceptable, or ask for less (fewer subjects, a smaller limit).`
    )
  if (e.code === "key_credit_limit")
    lines.push("This API key reached its monthly credit limit; an owner can raise it on the dashboard's key page.")
  if (e.code === "insufficient_credits") lines.push("Use the balance tool; ask for fewer subjects or a smaller limit.")
  if (e.code === "rate_limited") {
    // the wait the API named (Retry-After, else the RateLimit header's reset), so the model knows when to call again
    const ms = headers === undefined ? undefined : retryAfterMs(headers)
    lines.push(
      ms === undefined
        ? "Wait a few seconds before calling again."
        : `Wait ${Math.max(1, Math.ceil(ms / 1000))} second(s) before calling again.`
    )
  }
  if (e.code === "upstream_failed") {
    // units refused by an open circuit: the API names when their hosts are tried again (Retry-After)
    const ms = headers === undefined ? undefined : retryAfterMs(headers)
    lines.push(
      ms === undefined
        ? "Every unit failed upstream; calling again may succeed."
        : `The upstream refuses calls for now; call again in ${Math.max(1, Math.ceil(ms / 1000))} second(s), not sooner.`
    )
  }
  lines.push(e.code === "unreachable" ? "Nothing was charged." : "Nothing was charged (an error never bills).")
  if (e.requestId) lines.push(`requestId: ${e.requestId}`)
  return toolError(lines.join("\n"))
}

/**
 * The API could not be reached even after the client's retries. A paid call may have run: the same idempotency key
 * replays its answer without a second charge (D16), so the model is given the key to retry with.
 */
const unreachable = (cause: unknown, idempotencyKey?: string, apiUrl?: string): ToolResult =>
  toolError(
    [
      apiUrl === undefined
        ? `Error unreachable: the API could not be reached (${cause instanceof Error ? cause.message : String(cause)}).`
        : `Error unreachable: the API at ${apiUrl} could not be reached (${cause instanceof Error ? cause.message : String(cause)}): check that the service is running there and that PDR_API_URL (stdio) or the server's own address names it.`,
      idempotencyKey === undefined
        ? "Nothing was charged."
        : `The call may have run. Retry with the same request and idempotencyKey "${idempotencyKey}": if it ran, its answer is replayed without a second charge.`
    ].join("\n")
  )

/** Runs a client request; a rejection (connection lost after retries) becomes a tool error. */
const attemptAt = async <T>(
  apiUrl: string | undefined,
  send: () => Promise<T>,
  idempotencyKey?: string
): Promise<{ readonly done: T } | { readonly failed: ToolResult }> => {
  try {
    return { done: await send() }
  } catch (cause) {
    return { failed: unreachable(cause, idempotencyKey, apiUrl) }
  }
}

/** The per-unit lines of an answer. */
const coverageLines = (coverage: ReadonlyArray<CoverageItem>, quoting: boolean): ReadonlyArray<string> =>
  coverage.map((c) => {
    const who = c.subject !== undefined ? c.subject : `query "${c.query ?? ""}"`
    switch (c.status) {
      case "fetched":
        return `- ${who}: fetched now, measured ${c.measuredAt}; ${c.rows} row(s); ${c.credits} credits (source ${c.source})`
      case "stored":
        return quoting
          ? `- ${who}: would be served from storage, measured ${c.measuredAt}; free`
          : `- ${who}: served from storage, measured ${c.measuredAt}; ${c.rows} row(s); free (source ${c.source})`
      case "fetch":
        return `- ${who}: would be fetched now; ${c.credits} credits`
      default:
        return `- ${who}: omitted (${c.reason ?? "unknown"}): ${c.detail ?? ""}; not charged${
          c.retryAfterSeconds === undefined
            ? ""
            : `; its upstream is tried again in ${c.retryAfterSeconds} s: ask again after that`
        }`
    }
  })

/** Rows cut to the budget, whole rows only. */
export const cut = (rows: ReadonlyArray<unknown>, budget = rowBudgetBytes) => {
  const shown: Array<unknown> = []
  let bytes = 2
  for (const row of rows) {
    const size = Buffer.byteLength(JSON.stringify(row)) + 1
    if (bytes + size > budget) break
    shown.push(row)
    bytes += size
  }
  return { shown, omitted: rows.length - shown.length }
}

/**
 * The contract's own JSON Schemas (generated from @pdr/http-api into the client, never written here): a coverage item
 * and a catalogue op's price, window, availability and units. Open to members a newer API adds (an MCP server older
 * than the API it talks to still validates what it passes on).
 */
const open = <S extends object>(schema: S) => ({ ...schema, additionalProperties: true })
const coverageSchema = { type: "array", items: open(ContractSchemas.coverageItemSchema) }
const priceSchema = open(ContractSchemas.opPriceSchema)

const rowsAnswerSchema = {
  type: "object",
  required: [
    "platform",
    "op",
    "creditsCharged",
    "creditsRemaining",
    "coverage",
    "rows",
    "rowsTotal",
    "rowsOmitted",
    "requestId"
  ],
  properties: {
    platform: { type: "string" },
    op: { type: "string" },
    creditsCharged: { type: "number" },
    creditsRemaining: { type: "number" },
    maxCredits: { type: "number" },
    coverage: coverageSchema,
    rows: { type: "array" },
    rowsTotal: { type: "integer" },
    rowsOmitted: { type: "integer" },
    callId: { type: "string" },
    nextOffset: { type: "integer" },
    replayed: { type: "boolean" },
    requestId: { type: "string" }
  }
}

/** An example value of a JSON Schema: its default, first enum value, bounds, or a placeholder naming the field. */
const exampleOf = (schema: unknown, name: string): unknown => {
  if (!isRecord(schema)) return `<${name}>`
  if (schema["default"] !== undefined) return schema["default"]
  if (Array.isArray(schema["enum"])) return schema["enum"][0]
  const type = schema["type"]
  if (type === "integer" || type === "number") return schema["minimum"] ?? 1
  if (type === "boolean") return false
  if (type === "array") return [exampleOf(schema["items"], name.replace(/s$/, ""))]
  if (type === "object") {
    const props = isRecord(schema["properties"]) ? schema["properties"] : {}
    const required = Array.isArray(schema["required"]) ? (schema["required"] as Array<string>) : []
    const keys = required.length > 0 ? required : Object.keys(props).slice(0, 1)
    return Object.fromEntries(keys.map((k) => [k, exampleOf(props[k], k)]))
  }
  return `<${typeof schema["description"] === "string" ? schema["description"] : name}>`
}

/** The fields of an op's request schema, one line each for the model. */
/** A `$ref` of the request schema resolved against its root's `$defs`. */
const resolve = (root: Record<string, unknown>, raw: unknown): Record<string, unknown> => {
  if (!isRecord(raw)) return {}
  const ref = raw["$ref"]
  if (typeof ref !== "string" || !ref.startsWith("#/$defs/")) return raw
  const defs = isRecord(root["$defs"]) ? root["$defs"] : {}
  const target = defs[ref.slice("#/$defs/".length)]
  return {
    ...(isRecord(target) ? target : {}),
    ...Object.fromEntries(Object.entries(raw).filter(([k]) => k !== "$ref"))
  }
}

const typeOf = (s: Record<string, unknown>): string =>
  s["format"] === "date"
    ? "date YYYY-MM-DD"
    : s["format"] === "date-time"
      ? "date-time"
      : Array.isArray(s["type"])
        ? (s["type"] as Array<string>).join(" or ")
        : typeof s["type"] === "string"
          ? s["type"]
          : Array.isArray(s["anyOf"])
            ? "one of the forms below"
            : "any"

/** Every constraint a schema states, in words (issue 23: enums of arrays, dates, bounds, patterns, alternatives). */
const constraintsOf = (root: Record<string, unknown>, raw: unknown, depth = 0): Array<string> => {
  const s = resolve(root, raw)
  const out: Array<string> = []
  if (Array.isArray(s["enum"])) out.push(`one of ${(s["enum"] as Array<unknown>).join(", ")}`)
  if (s["minimum"] !== undefined || s["maximum"] !== undefined)
    out.push(`${String(s["minimum"] ?? "")}..${String(s["maximum"] ?? "")}`)
  if (s["minLength"] !== undefined && s["minLength"] !== 0) out.push(`at least ${String(s["minLength"])} characters`)
  if (s["maxLength"] !== undefined) out.push(`at most ${String(s["maxLength"])} characters`)
  if (typeof s["pattern"] === "string" && s["format"] === undefined) out.push(`matching ${s["pattern"]}`)
  if (s["minItems"] !== undefined && s["minItems"] !== 0) out.push(`at least ${String(s["minItems"])} items`)
  if (s["maxItems"] !== undefined) out.push(`at most ${String(s["maxItems"])} items`)
  if (s["type"] === "array" && s["items"] !== undefined && depth < 2) {
    const item = resolve(root, s["items"])
    const each = constraintsOf(root, item, depth + 1)
    const desc =
      typeof item["description"] === "string" && !/^an? (string|number)/.test(item["description"])
        ? item["description"]
        : undefined
    if (each.length > 0 || desc !== undefined)
      out.push(`each item (${typeOf(item)}): ${[...(desc === undefined ? [] : [desc]), ...each].join(", ")}`)
  }
  if (Array.isArray(s["anyOf"]) && depth < 2)
    out.push(
      `any of: ${(s["anyOf"] as Array<unknown>)
        .map((alt) => {
          const a = resolve(root, alt)
          const words = constraintsOf(root, a, depth + 1)
          const desc = typeof a["description"] === "string" ? a["description"] : typeOf(a)
          return words.length === 0 ? desc : `${desc} (${words.join(", ")})`
        })
        .join(" | ")}`
    )
  if (isRecord(s["properties"]) && depth < 2) {
    const required = new Set(Array.isArray(s["required"]) ? (s["required"] as Array<string>) : [])
    for (const [name, sub] of Object.entries(s["properties"])) {
      const r = resolve(root, sub)
      const words = constraintsOf(root, r, depth + 1)
      out.push(
        `.${name} (${typeOf(r)}${required.has(name) ? ", required" : ""}${words.length === 0 ? "" : `: ${words.join(", ")}`})`
      )
    }
  }
  if (isRecord(s["dependentRequired"]))
    for (const [k, v] of Object.entries(s["dependentRequired"]))
      out.push(`${k} requires ${(v as Array<string>).join(", ")}`)
  return out
}

const fieldsOf = (op: CatalogueOp) => {
  const schema = isRecord(op.requestSchema) ? op.requestSchema : {}
  const props = isRecord(schema["properties"]) ? schema["properties"] : {}
  const required = new Set(Array.isArray(schema["required"]) ? (schema["required"] as Array<string>) : [])
  return Object.entries(props)
    .filter(([name]) => name !== "op")
    .map(([name, raw]) => {
      const s = resolve(schema, raw)
      const field: Record<string, unknown> = { name, type: typeOf(s), required: required.has(name) }
      for (const k of [
        "description",
        "default",
        "enum",
        "minimum",
        "maximum",
        "minItems",
        "maxItems",
        "maxLength",
        "format"
      ]) {
        if (s[k] !== undefined) field[k] = s[k]
      }
      if (isRecord(s["items"])) {
        const item = resolve(schema, s["items"])
        if (Array.isArray(item["enum"])) field["itemsEnum"] = item["enum"]
      }
      if (isRecord(s["properties"])) field["properties"] = Object.keys(s["properties"])
      field["constraints"] = constraintsOf(schema, s)
      return field
    })
}

/** The rules across fields of an op's request (its schema's own description, e.g. `until` not before `since`). */
const rulesOf = (op: CatalogueOp): Array<string> => {
  const schema = isRecord(op.requestSchema) ? op.requestSchema : {}
  return typeof schema["description"] === "string" ? [`Rule: ${schema["description"]}`] : []
}

const fieldLine = (f: Record<string, unknown>) => {
  const bits = [`${String(f["name"])} (${String(f["type"])}${f["required"] ? ", required" : ""})`]
  if (f["description"] && !/^an? (string|number|array)/.test(String(f["description"])))
    bits.push(String(f["description"]))
  for (const c of (f["constraints"] as Array<string> | undefined) ?? []) bits.push(c)
  if (f["default"] !== undefined) bits.push(`default ${JSON.stringify(f["default"])}`)
  return `- ${bits.join("; ")}`
}

/** What an op keeps: a series op (history) reads what is stored and never fetches (its window means nothing). */
const windowOf = (op: { readonly freshnessSeconds: number | null; readonly metrics?: ReadonlyArray<string> }) =>
  op.metrics !== undefined ? "reads the stored history, never fetches" : window(op.freshnessSeconds)

const window = (seconds: number | null) =>
  seconds === null
    ? "not stored (every call fetches)"
    : seconds % 3600 === 0
      ? `stored ${seconds / 3600} h (repeats within it are free)`
      : `stored ${seconds} s (repeats within it are free)`

const priceText = (p: CatalogueOp["price"]) =>
  p.rule === "free"
    ? "free"
    : `${p.rule}, from ${p.startingPrice} credits${p.rows === null ? "" : ` per ${p.rows} rows`}${
        p.parts
          ? ` (${Object.entries(p.parts)
              .map(([k, v]) => `${k} ${v}`)
              .join(", ")})`
          : ""
      }`

/** Where subjects come from (the specification: a handle typed from a name bills credits and can reveal another person). */
export const evidenceRule =
  "Subjects (handles, ids, URLs) must come from evidence: a URL or an id the user gave, or one seen in an earlier answer. Never type one from a person's or company's name: a guessed handle is billed and may be someone else's."

/** The tools over one client and the catalogue it published. */
export const make = (
  client: PdrClient,
  catalogue: CatalogueResponse,
  options: { readonly callWaitSeconds?: number; readonly apiUrl?: string } = {}
): ReadonlyArray<Tool> => {
  const attempt = <T>(send: () => Promise<T>, idempotencyKey?: string) =>
    attemptAt(options.apiUrl, send, idempotencyKey)
  const platforms = catalogue.platforms
  const platformIds = platforms.map((p) => p.platform)
  const opNames = [...new Set(platforms.flatMap((p) => p.ops.map((o) => o.op)))]
  // a platform's series op (its history, D9) is the op the catalogue publishes metrics for: found, never named
  const seriesOp = new Map(
    platforms.flatMap((p) => {
      const series = p.ops.find((o) => o.metrics !== undefined)
      return series === undefined ? [] : [[p.platform, series.op] as const]
    })
  )
  const historyPlatforms = [...seriesOp.keys()]

  const platformArg = (ids: ReadonlyArray<string>) => ({
    type: "string",
    enum: ids,
    description: "a served platform (see list_platforms)"
  })
  const requestArg = {
    type: "object",
    required: ["op"],
    properties: { op: { type: "string", enum: opNames, description: "an op of the platform" } },
    additionalProperties: true,
    description: "`op` and the op's own fields, exactly as describe_op shows them (the API validates each field)"
  }

  const findPlatform = (args: Record<string, unknown>, ids = platformIds): Platform | ToolResult => {
    const id = args["platform"]
    const found = platforms.find((p) => p.platform === id && ids.includes(p.platform))
    if (found) return found
    return toolError(
      `Error invalid_argument: \`platform\` ${id === undefined ? "is missing" : `"${String(id)}" is not served here`}; valid values: ${ids.join(", ")}. Nothing was charged.`
    )
  }

  const requestOf = (
    args: Record<string, unknown>
  ): ({ readonly op: string } & Record<string, unknown>) | ToolResult => {
    const r = args["request"]
    if (isRecord(r) && typeof r["op"] === "string") return r as { readonly op: string } & Record<string, unknown>
    return toolError(
      "Error invalid_argument: `request` must be an object holding `op` and the op's fields, e.g. " +
        '{"op":"profiles","subjects":["..."]}; use describe_op to see them. Nothing was charged.'
    )
  }

  const isResult = (u: unknown): u is ToolResult => isRecord(u) && Array.isArray(u["content"])

  const rowsAnswer = (
    platform: string,
    op: string,
    r: Extract<Result<OpResponse>, { ok: true }>,
    extra: { readonly maxCredits?: number; readonly hint: string }
  ): ToolResult => {
    const v = r.value
    const { shown, omitted } = cut(v.data)
    const fetched = v.coverage.filter((c) => c.status === "fetched").length
    const stored = v.coverage.filter((c) => c.status === "stored").length
    const left = v.coverage.filter((c) => c.status === "omitted").length
    const callId = (v as { callId?: string }).callId ?? r.headers.get("call-id") ?? undefined
    // D16: a replay is the first answer again, billed then, not now
    const replayed = r.headers.get("idempotent-replayed") === "true"
    const lines = [
      replayed
        ? `Replayed the earlier answer of this idempotencyKey: charged 0 credits now (the first call was billed ${v.cost.creditsCharged}); ${v.cost.creditsRemaining} credits were left then.`
        : `Charged ${v.cost.creditsCharged} credits${extra.maxCredits === undefined ? "" : ` (cap ${extra.maxCredits})`}; ${v.cost.creditsRemaining} credits left.`,
      `${platform} ${op}: ${v.coverage.length} unit(s): ${fetched} fetched now, ${stored} served from storage, ${left} omitted.`,
      ...coverageLines(v.coverage, false),
      omitted > 0
        ? `Rows: ${shown.length} of ${v.data.length} shown; ${omitted} row(s) left out to stay under ${rowBudgetBytes / 1000} KB. ${
            callId === undefined
              ? extra.hint
              : `Read the rest free with read_rows {"callId":"${callId}","offset":${shown.length}} (the answer is kept 24 hours; \`fields\` picks columns).`
          }`
        : `Rows (${v.data.length}):`,
      JSON.stringify(shown),
      ...(callId === undefined ? [] : [`callId: ${callId}`]),
      `requestId: ${v.requestId || r.requestId}`
    ]
    return {
      content: text(lines.join("\n")),
      structuredContent: {
        platform,
        op,
        creditsCharged: replayed ? 0 : v.cost.creditsCharged,
        creditsRemaining: v.cost.creditsRemaining,
        ...(extra.maxCredits === undefined ? {} : { maxCredits: extra.maxCredits }),
        coverage: v.coverage,
        rows: shown,
        rowsTotal: v.data.length,
        rowsOmitted: omitted,
        ...(callId === undefined ? {} : { callId }),
        ...(omitted > 0 ? { nextOffset: shown.length } : {}),
        ...(replayed ? { replayed } : {}),
        requestId: v.requestId || r.requestId
      }
    }
  }

  const readOnly = (title: string) => ({
    title,
    readOnlyHint: true,
    destructiveHint: false,
    idempotentHint: true,
    openWorldHint: false
  })

  const listPlatforms: Tool = {
    name: "list_platforms",
    title: "List platforms and ops",
    description:
      "Every served platform and its ops with price rule, starting price and storage window (free). Optionally one platform.",
    inputSchema: { type: "object", properties: { platform: platformArg(platformIds) } },
    outputSchema: {
      type: "object",
      required: ["platforms"],
      properties: {
        platforms: {
          type: "array",
          items: {
            type: "object",
            required: ["platform", "description", "ops"],
            properties: {
              platform: { type: "string" },
              description: { type: "string" },
              ops: {
                type: "array",
                items: {
                  type: "object",
                  required: ["op", "description", "price", "freshnessSeconds", "available", "units"],
                  properties: {
                    op: { type: "string" },
                    description: { type: "string" },
                    price: priceSchema,
                    freshnessSeconds: ContractSchemas.opFreshnessSecondsSchema,
                    available: ContractSchemas.opAvailableSchema,
                    units: ContractSchemas.opUnitsSchema
                  }
                }
              }
            }
          }
        }
      }
    },
    annotations: readOnly("List platforms and ops"),
    run: async (args) => {
      let chosen: ReadonlyArray<Platform> = platforms
      if (args["platform"] !== undefined) {
        const p = findPlatform(args)
        if (isResult(p)) return p
        chosen = [p]
      }
      const out = chosen.map((p) => ({
        platform: p.platform,
        description: p.description,
        ops: p.ops.map((o) => ({
          op: o.op,
          description: o.description,
          price: o.price,
          freshnessSeconds: o.freshnessSeconds,
          available: o.available,
          units: o.units
        }))
      }))
      const lines = chosen.flatMap((p) => [
        `${p.platform}: ${p.description}`,
        ...p.ops.map(
          (o) => `  - ${o.op}: ${priceText(o.price)}; ${windowOf(o)}${o.available ? "" : "; UNAVAILABLE now"}`
        )
      ])
      lines.push("Nothing was charged. Use describe_op for an op's fields, quote for an exact price.")
      return { content: text(lines.join("\n")), structuredContent: { platforms: out } }
    }
  }

  const describeOp: Tool = {
    name: "describe_op",
    title: "Describe one op",
    description: "One op's fields (types, bounds, defaults), price, storage window and an example request (free).",
    inputSchema: {
      type: "object",
      required: ["platform", "op"],
      properties: { platform: platformArg(platformIds), op: { type: "string", enum: opNames } }
    },
    outputSchema: {
      type: "object",
      required: ["platform", "op", "description", "price", "freshnessSeconds", "available", "fields", "example"],
      properties: {
        platform: { type: "string" },
        op: { type: "string" },
        description: { type: "string" },
        price: priceSchema,
        freshnessSeconds: ContractSchemas.opFreshnessSecondsSchema,
        available: ContractSchemas.opAvailableSchema,
        subjects: ContractSchemas.opSubjectsSchema,
        metrics: { type: "array", items: { type: "string" } },
        fields: { type: "array", items: { type: "object", required: ["name", "required"] } },
        example: { type: "object", description: "a request for the quote and call tools" },
        requestSchema: { type: "object" }
      }
    },
    annotations: readOnly("Describe one op"),
    run: async (args) => {
      const p = findPlatform(args)
      if (isResult(p)) return p
      const op = p.ops.find((o) => o.op === args["op"])
      if (!op)
        return toolError(
          `Error invalid_argument: \`op\` ${args["op"] === undefined ? "is missing" : `"${String(args["op"])}" is not an op of ${p.platform}`}; valid values: ${p.ops.map((o) => o.op).join(", ")}. Nothing was charged.`
        )
      const fields = fieldsOf(op)
      // the catalogue's own example is a valid request (it quotes as it is); an older API without one: built here
      const published = (op as { example?: Record<string, unknown> }).example
      const example = { platform: p.platform, request: published ?? exampleOf(op.requestSchema, "request") }
      const series = op.metrics !== undefined
      const lines = [
        `${p.platform} ${op.op}: ${op.description}`,
        `Price: ${priceText(op.price)}. Window: ${windowOf(op)}.${op.available ? "" : " UNAVAILABLE now."}`,
        ...(op.subjects ? [`Subjects: ${op.subjects}`] : []),
        ...(op.metrics ? [`Metrics: ${op.metrics.join(", ")}`] : []),
        "Fields:",
        ...fields.map(fieldLine),
        ...rulesOf(op),
        published === undefined
          ? `Example (angle brackets are placeholders): ${JSON.stringify(example)}`
          : `Example (valid as it is; its values only show the form: put real ones, subjects from evidence): ${JSON.stringify(example)}`,
        ...(op.subjects ? [evidenceRule] : []),
        series
          ? "Nothing was charged. This op is free and never fetches: it reads what is stored; use the history tool (no maxCredits)."
          : "Nothing was charged. Quote it first (free), then call with maxCredits."
      ]
      return {
        content: text(lines.join("\n")),
        structuredContent: {
          platform: p.platform,
          op: op.op,
          description: op.description,
          price: op.price,
          freshnessSeconds: op.freshnessSeconds,
          available: op.available,
          subjects: op.subjects,
          ...(op.metrics ? { metrics: op.metrics } : {}),
          fields,
          example,
          requestSchema: op.requestSchema
        }
      }
    }
  }

  const quote: Tool = {
    name: "quote",
    title: "Quote a call (free)",
    description:
      "The exact binding price of a call, per subject (what would be fetched, what is stored and free); spends nothing. Pass maxCredits to learn whether it fits.",
    inputSchema: {
      type: "object",
      required: ["platform", "request"],
      properties: {
        platform: platformArg(platformIds),
        request: requestArg,
        maxCredits: { type: "integer", minimum: 0, description: "a cap to check the quote against" }
      }
    },
    outputSchema: {
      type: "object",
      required: ["platform", "op", "quote", "creditsCharged", "creditsRemaining", "coverage", "requestId"],
      properties: {
        platform: { type: "string" },
        op: { type: "string" },
        quote: { type: "number" },
        fitsMaxCredits: { type: "boolean" },
        creditsCharged: { type: "number" },
        creditsRemaining: { type: "number" },
        coverage: coverageSchema,
        requestId: { type: "string" }
      }
    },
    annotations: readOnly("Quote a call (free)"),
    run: async (args) => {
      const p = findPlatform(args)
      if (isResult(p)) return p
      const request = requestOf(args)
      if (isResult(request)) return request
      const cap = args["maxCredits"] as number | undefined
      const sent = await attempt(() =>
        dynamicCall(client, p.platform, request, {
          estimateOnly: true,
          ...(cap === undefined ? {} : { maxCredits: cap })
        })
      )
      if ("failed" in sent) return sent.failed
      const r = sent.done
      if (!r.ok) return fromApiError(r.status, r.error, r.headers)
      const v = r.value
      const credits = v.estimate?.credits ?? 0
      const fits = v.estimate?.fitsMaxCredits
      const lines = [
        `Quote: ${credits} credits for ${p.platform} ${String(request["op"])}. Charged 0 credits (a quote is free); ${v.cost.creditsRemaining} credits left.`,
        ...(fits === undefined ? [] : [fits ? `Fits maxCredits ${cap}.` : `Does NOT fit maxCredits ${cap}.`]),
        ...coverageLines(v.coverage, true),
        `To run it: call with the same request and maxCredits >= ${credits}.`
      ]
      return {
        content: text(lines.join("\n")),
        structuredContent: {
          platform: p.platform,
          op: String(request["op"]),
          quote: credits,
          ...(fits === undefined ? {} : { fitsMaxCredits: fits }),
          creditsCharged: v.cost.creditsCharged,
          creditsRemaining: v.cost.creditsRemaining,
          coverage: v.coverage,
          requestId: v.requestId || r.requestId
        }
      }
    }
  }

  const call: Tool = {
    name: "call",
    title: "Call an op (spends credits)",
    description:
      "Runs one op and bills at most its quote. `maxCredits` is required: a call quoted above it is refused and nothing is billed. Stored subjects are served free within the op's window.",
    inputSchema: {
      type: "object",
      required: ["platform", "request", "maxCredits"],
      properties: {
        platform: platformArg(platformIds),
        request: requestArg,
        maxCredits: {
          type: "integer",
          minimum: 0,
          description: "the most this call may spend; quote first to know the exact price"
        },
        idempotencyKey: {
          type: "string",
          description: "optional: the same key with the same request replays the first answer without billing again"
        }
      }
    },
    outputSchema: rowsAnswerSchema,
    annotations: {
      title: "Call an op (spends credits)",
      readOnlyHint: false,
      destructiveHint: false,
      idempotentHint: false,
      openWorldHint: true
    },
    run: async (args, context = {}) => {
      const p = findPlatform(args)
      if (isResult(p)) return p
      const request = requestOf(args)
      if (isResult(request)) return request
      const cap = args["maxCredits"]
      if (cap === undefined)
        return toolError(
          "Error invalid_argument: `maxCredits` is required: quote the request first (free), then pass maxCredits >= the quote. Nothing was charged."
        )
      const key = typeof args["idempotencyKey"] === "string" ? args["idempotencyKey"] : randomUUID()
      // issue 21: an asynchronous call (a long one answers 202 and is followed), progress sent while it runs, and the
      // client's cancellation cancels the call (nothing more fetched or billed; what was delivered is answered)
      const sent = await attempt(
        () =>
          dynamicCallAsync(client, p.platform, request, {
            maxCredits: cap as number,
            idempotencyKey: key,
            waitSeconds: options.callWaitSeconds ?? callWaitSeconds,
            ...(context.signal === undefined ? {} : { signal: context.signal }),
            onProgress: (a) => {
              void context.progress?.(
                a.progress.unitsDone,
                a.progress.unitsTotal ?? undefined,
                `call ${a.callId}: ${a.progress.unitsDone} of ${a.progress.unitsTotal ?? "?"} units done (quote ${a.quote ?? "?"} credits)`
              )
            }
          }),
        key
      )
      if ("failed" in sent) return sent.failed
      const r = sent.done
      if (!r.ok) return fromApiError(r.status, r.error, r.headers)
      return rowsAnswer(p.platform, String(request["op"]), r, {
        maxCredits: cap as number,
        hint: "To get them: ask again with a smaller `limit`, or one subject per call (subjects already fetched are served free from storage within the op's window)."
      })
    }
  }

  const history: Tool = {
    name: "history",
    title: "Stored history (free)",
    description:
      "The stored series of one metric per subject over the last days; free, never fetches. Fields as describe_op shows for op `history`.",
    inputSchema: {
      type: "object",
      required: ["platform", "request"],
      properties: {
        platform: platformArg(historyPlatforms),
        request: {
          type: "object",
          properties: { subjects: { type: "array", items: { type: "string" } }, metric: { type: "string" } },
          additionalProperties: true,
          description: "the history op's fields (subjects, metric, days, ...); `op` may be left out"
        }
      }
    },
    outputSchema: rowsAnswerSchema,
    annotations: readOnly("Stored history (free)"),
    run: async (args) => {
      const p = findPlatform(args, historyPlatforms)
      if (isResult(p)) return p
      const given = args["request"]
      if (!isRecord(given))
        return toolError(
          'Error invalid_argument: `request` must be an object with the history fields, e.g. {"subjects":["..."],"metric":"..."}. Nothing was charged.'
        )
      const op = seriesOp.get(p.platform) ?? ""
      const sent = await attempt(() => dynamicCall(client, p.platform, { ...given, op }))
      if ("failed" in sent) return sent.failed
      const r = sent.done
      if (!r.ok) return fromApiError(r.status, r.error, r.headers)
      return rowsAnswer(p.platform, op, r, {
        hint: "To get them: ask for fewer `days`, or one subject per call."
      })
    }
  }

  const balance: Tool = {
    name: "balance",
    title: "Credits left",
    description: "The spendable credits of the API key's account (free).",
    inputSchema: { type: "object", properties: {} },
    outputSchema: {
      type: "object",
      required: ["creditsRemaining"],
      properties: { creditsRemaining: { type: "number" } }
    },
    annotations: readOnly("Credits left"),
    run: async () => {
      const sent = await attempt(() => client.balance())
      if ("failed" in sent) return sent.failed
      const r = sent.done
      if (!r.ok) return fromApiError(r.status, r.error, r.headers)
      return {
        content: text(`${r.value.creditsRemaining} credits left. Charged 0 credits.`),
        structuredContent: { creditsRemaining: r.value.creditsRemaining }
      }
    }
  }

  const collectCall: Tool = {
    name: "collect_call",
    title: "Collect a call by id (free)",
    description:
      "The answer of an earlier call by its callId (every answer names it; calls are kept 24 hours), free. A call still running answers its progress; ask again later.",
    inputSchema: {
      type: "object",
      required: ["callId"],
      properties: { callId: { type: "string", description: "the callId of an answer, e.g. call_0123456789abcdef0123" } }
    },
    outputSchema: { type: "object", properties: {}, additionalProperties: true },
    annotations: readOnly("Collect a call by id (free)"),
    run: async (args) => {
      const id = args["callId"]
      if (typeof id !== "string")
        return toolError(
          "Error invalid_argument: `callId` must be the callId string of an earlier answer. Nothing was charged."
        )
      const sent = await attempt(() => client.collect<OpResponse>(id))
      if ("failed" in sent) return sent.failed
      const r = sent.done
      if (!r.ok) return fromApiError(r.status, r.error, r.headers)
      if (r.status === 202 && "progress" in r.value) {
        const a = r.value
        return {
          content: text(
            `Call ${a.callId} is still running: ${a.progress.unitsDone} of ${a.progress.unitsTotal ?? "?"} units done (quote ${a.quote ?? "?"} credits). Charged 0 credits for asking; collect it again in a few seconds.`
          ),
          structuredContent: { callId: a.callId, status: a.status, quote: a.quote, progress: a.progress }
        }
      }
      const done = r as Extract<Result<OpResponse>, { ok: true }>
      const answer = rowsAnswer("call", id, done, {
        hint: "Collecting is free; the rows left out are in the call's answer (ask again with a smaller `limit`)."
      })
      return {
        ...answer,
        content: text(
          `Collected call ${id} (free; it was billed once when it ran).\n${(answer.content[0] as { text: string }).text}`
        )
      }
    }
  }

  const readRows: Tool = {
    name: "read_rows",
    title: "Read an answer's rows (free)",
    description:
      "Reads the rows of an earlier answer by its callId, from `offset`, free (nothing runs or bills again): the way to every row of an answer cut to fit. `fields` keeps only the columns you need. Answers are kept 24 hours.",
    inputSchema: {
      type: "object",
      required: ["callId"],
      properties: {
        callId: { type: "string", description: "the callId of the answer, e.g. call_0123456789abcdef0123" },
        offset: { type: "integer", minimum: 0, description: "the first row to read (0-based); default 0" },
        limit: {
          type: "integer",
          minimum: 1,
          maximum: 1000,
          description: "at most this many rows; default: as many as fit"
        },
        fields: {
          type: "array",
          items: { type: "string" },
          description: "only these columns of each row (names as in the rows); default: every column"
        }
      }
    },
    outputSchema: {
      type: "object",
      required: ["callId", "offset", "rows", "rowsTotal"],
      properties: {
        callId: { type: "string" },
        offset: { type: "integer" },
        rows: { type: "array" },
        rowsTotal: { type: "integer" },
        nextOffset: { type: "integer" }
      }
    },
    annotations: readOnly("Read an answer's rows (free)"),
    run: async (args) => {
      const id = args["callId"]
      if (typeof id !== "string" || id === "")
        return toolError(
          "Error invalid_argument: `callId` must be the callId string of an earlier answer. Nothing was charged."
        )
      const offset = args["offset"] ?? 0
      const limit = args["limit"]
      const fields = args["fields"]
      if (typeof offset !== "number" || !Number.isInteger(offset) || offset < 0)
        return toolError("Error invalid_argument: `offset` must be an integer of at least 0. Nothing was charged.")
      if (limit !== undefined && (typeof limit !== "number" || !Number.isInteger(limit) || limit < 1 || limit > 1000))
        return toolError("Error invalid_argument: `limit` must be an integer from 1 to 1000. Nothing was charged.")
      if (fields !== undefined && (!Array.isArray(fields) || fields.some((f) => typeof f !== "string")))
        return toolError("Error invalid_argument: `fields` must be an array of column names. Nothing was charged.")
      const sent = await attempt(() => client.collect<OpResponse>(id))
      if ("failed" in sent) return sent.failed
      const r = sent.done
      // an unknown, expired or other account's call: the API's one 404 for all three
      if (!r.ok) return fromApiError(r.status, r.error, r.headers)
      if (r.status === 202 && "progress" in r.value)
        return toolError(
          `Call ${id} is still running (${r.value.progress.unitsDone} of ${r.value.progress.unitsTotal ?? "?"} units done): its rows can be read when it ends. Charged 0 credits.`
        )
      const data = (r.value as OpResponse).data as ReadonlyArray<unknown>
      let rows = data.slice(offset, limit === undefined ? undefined : offset + (limit as number))
      if (fields !== undefined) {
        const columns = new Set<string>()
        for (const row of data) if (isRecord(row)) for (const k of Object.keys(row)) columns.add(k)
        const unknown = (fields as Array<string>).filter((f) => !columns.has(f))
        if (unknown.length > 0)
          return toolError(
            `Error invalid_argument: the rows of this answer have no column ${unknown.map((f) => `\`${f}\``).join(", ")}. Valid columns: ${[...columns].sort().join(", ")}. Nothing was charged.`
          )
        rows = rows.map((row) =>
          isRecord(row)
            ? Object.fromEntries((fields as Array<string>).filter((f) => f in row).map((f) => [f, row[f]]))
            : row
        )
      }
      const { shown } = cut(rows)
      const next = offset + shown.length
      const more = next < data.length
      return {
        content: text(
          [
            `Rows ${data.length === 0 ? 0 : offset + 1}-${offset + shown.length} of ${data.length} of call ${id}. Charged 0 credits.`,
            more ? `Next: read_rows {"callId":"${id}","offset":${next}}` : "That is the last row.",
            JSON.stringify(shown)
          ].join("\n")
        ),
        structuredContent: {
          callId: id,
          offset,
          rows: shown,
          rowsTotal: data.length,
          ...(more ? { nextOffset: next } : {})
        }
      }
    }
  }

  return [listPlatforms, describeOp, quote, call, history, balance, collectCall, readRows]
}
