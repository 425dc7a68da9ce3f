/**
 * Decoding of the request envelope (`Envelope.of`: `{request: {op, ...fields}, estimateOnly?, maxCredits?, maxAgeSeconds?,
 * forceFresh?}`) for a platform into a typed, defaulted op request; every offending field is named by its path (D5).
 */
import { Effect, Either, ParseResult, Schema } from "effect"
import * as Catalogue from "./Catalogue.js"
import * as Envelope from "./Envelope.js"
import { WireId, wire } from "./ErrorCodes.js"

/** One offending field: its path from the body's root (`request.subjects[2]`) and what is wrong with it. */
export class FieldProblem extends Schema.Class<FieldProblem>("FieldProblem")({
  path: Schema.String,
  message: Schema.String
}) {}

/** 400 `invalid_request`: the body or the op's fields fail validation. */
export class InvalidRequest extends Schema.TaggedError<InvalidRequest>()("InvalidRequest", {
  message: Schema.String,
  details: Schema.Array(FieldProblem)
}) {
  get [WireId]() {
    return wire(
      "invalid_request",
      this.details.map((d) => ({ path: d.path, message: d.message }))
    )
  }
}

/** 400 `unknown_op`: `request.op` is not an op of the platform. */
export class UnknownOp extends Schema.TaggedError<UnknownOp>()("UnknownOp", {
  platform: Schema.String,
  op: Schema.String,
  ops: Schema.Array(Schema.String)
}) {
  override get message() {
    return `"${this.op}" is not an op of ${this.platform}; its ops are ${this.ops.join(", ")}`
  }
  get [WireId]() {
    return wire("unknown_op", [{ path: "request.op", message: `must be one of ${this.ops.join(", ")}` }])
  }
}

/** 404 `unknown_platform`: the path names no served platform. */
export class UnknownPlatform extends Schema.TaggedError<UnknownPlatform>()("UnknownPlatform", {
  platform: Schema.String
}) {
  override get message() {
    return `"${this.platform}" is not a served platform; the platforms are ${Catalogue.platforms.map((p) => p.id).join(", ")} (GET /api/v1/platforms lists their ops)`
  }
  get [WireId]() {
    return wire("unknown_platform")
  }
}

/** The deepest nesting of arrays and objects a request body may have (the body itself is level 1). */
export const maxJsonDepth = 64

/**
 * The path of the first array or object of a JSON text nested deeper than `max`, or undefined. A scan of the text
 * with an explicit stack, no recursion and no parse, so it runs before the body is parsed or decoded; it expects the
 * text to be JSON only as far as it reads it (a malformed text is refused later by the parse).
 */
export const tooDeep = (text: string, max: number = maxJsonDepth): string | undefined => {
  const stack: Array<{ array: boolean; key: string | number; expectKey: boolean }> = []
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c === 0x22) {
      let j = i + 1
      while (j < text.length) {
        const d = text.charCodeAt(j)
        if (d === 0x5c) j += 2
        else if (d === 0x22) break
        else j++
      }
      const top = stack[stack.length - 1]
      if (top?.expectKey) {
        try {
          top.key = String(JSON.parse(text.slice(i, j + 1)))
        } catch {
          top.key = text.slice(i + 1, Math.min(j, i + 41))
        }
        top.expectKey = false
      }
      i = j
    } else if (c === 0x5b || c === 0x7b) {
      if (stack.length >= max) return renderPath(stack.map((e) => e.key))
      stack.push({ array: c === 0x5b, key: c === 0x5b ? 0 : "", expectKey: c === 0x7b })
    } else if (c === 0x5d || c === 0x7d) {
      stack.pop()
    } else if (c === 0x2c) {
      const top = stack[stack.length - 1]
      if (top !== undefined) {
        if (top.array) top.key = typeof top.key === "number" ? top.key + 1 : top.key
        else top.expectKey = true
      }
    }
  }
  return undefined
}

/** A decoded call: the op, its typed and defaulted request, and whether only a quote is asked. */
export interface Call {
  readonly op: Catalogue.OpDef
  readonly request: Catalogue.OpRequest
  readonly estimateOnly: boolean
  /** The spend cap (D18): a call whose quote exceeds it is refused before anything is held. */
  readonly maxCredits: number | undefined
  /** Freshness control (issue 21): a stored result older than this is fetched again. */
  readonly maxAgeSeconds: number | undefined
  /** Freshness control (issue 21): fetch every unit even when a fresh result is stored. */
  readonly forceFresh: boolean
}

/** The envelope of one op's calls as sent (`Envelope.of` its request Schema's encoded side: defaults may be left out). */
export const envelope = (op: Catalogue.OpDef) => Envelope.of(Schema.encodedSchema(op.request))

const payloadOf = (p: Catalogue.PlatformDef) =>
  Envelope.of(Schema.Union(...p.ops.map((o) => Schema.encodedSchema(o.request))))

const payloads = new WeakMap<Catalogue.PlatformDef, ReturnType<typeof payloadOf>>()

/**
 * The body of a platform's calls: the envelope (`Envelope.of`) of any of its ops' requests as sent. It is the payload
 * of the platform's endpoint in the contract; `decode` is its fast decoder (the members it accepts are this Struct's,
 * each envelope field is tested by its own Schema, and `request` by its op's, found by `request.op` first: D5's
 * `unknown_op`, and every offending field named).
 */
export const payload = (p: Catalogue.PlatformDef): ReturnType<typeof payloadOf> => {
  const known = payloads.get(p)
  if (known !== undefined) return known
  const made = payloadOf(p)
  payloads.set(p, made)
  return made
}

/** Renders a parse path as `a.b[2].c`. */
export const renderPath = (path: ReadonlyArray<PropertyKey>): string =>
  path.reduce<string>(
    (out, key) =>
      typeof key === "number" ? `${out}[${key}]` : out.length === 0 ? String(key) : `${out}.${String(key)}`,
    ""
  )

const invalid = (message: string, details: ReadonlyArray<{ path: string; message: string }>) =>
  new InvalidRequest({ message, details: details.map((d) => new FieldProblem(d)) })

const isRecord = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null && !Array.isArray(u)

const options = { errors: "all", onExcessProperty: "error" } as const

/**
 * A field message as a person reads it: the library's own type-mismatch text (`Expected ReadonlyArray<...>, actual
 * "x"`) becomes what the field must be.
 */
export const readable = (message: string): string => {
  if (!message.startsWith("Expected ")) return message
  const expected = message.slice("Expected ".length)
  if (expected.startsWith("string")) return "must be a string"
  if (expected.startsWith("number") || expected.startsWith("Int") || expected.startsWith("int"))
    return "must be a number"
  if (expected.startsWith("boolean")) return "must be a boolean"
  if (expected.startsWith("ReadonlyArray") || expected.startsWith("readonly [")) return "must be a list"
  if (expected.startsWith("{")) return "must be an object"
  return "has the wrong type"
}

/** The platform with this path segment, or `UnknownPlatform`. */
export const platform = (id: string): Effect.Effect<Catalogue.PlatformDef, UnknownPlatform> => {
  const found = Catalogue.findPlatform(id)
  return found ? Effect.succeed(found) : Effect.fail(new UnknownPlatform({ platform: id }))
}

/** Decodes a request body (already parsed JSON) for a platform. */
export const decode = (
  platformId: string,
  body: unknown
): Effect.Effect<Call, InvalidRequest | UnknownOp | UnknownPlatform> =>
  Effect.flatMap(platform(platformId), (p) => Effect.suspend(() => decodeFor(p, body)))

const decodeFor = (p: Catalogue.PlatformDef, body: unknown): Effect.Effect<Call, InvalidRequest | UnknownOp> => {
  if (!isRecord(body))
    return Effect.fail(
      invalid("the body must be a JSON object", [
        { path: "", message: "must be a JSON object with a `request` member" }
      ])
    )
  const envelope: Array<{ path: string; message: string }> = []
  for (const key of Object.keys(body)) {
    if (!Envelope.names.includes(key))
      envelope.push({ path: key, message: `is unexpected, expected: ${Envelope.names.join(" | ")}` })
  }
  for (const name of Envelope.fieldNames) {
    if (body[name] !== undefined && !Envelope.valid[name](body[name]))
      envelope.push({ path: name, message: Envelope.problems[name] })
  }
  const maxCredits = body["maxCredits"]
  const maxAgeSeconds = body["maxAgeSeconds"]
  const request = body["request"]
  if (!isRecord(request)) {
    envelope.push({
      path: "request",
      message: request === undefined ? "is missing" : "must be an object holding `op` and the op's fields"
    })
    return Effect.fail(invalid("the request envelope is malformed", envelope))
  }
  const opName = request["op"]
  if (typeof opName !== "string") {
    envelope.push({ path: "request.op", message: opName === undefined ? "is missing" : "must be a string" })
    return Effect.fail(invalid("the request envelope is malformed", envelope))
  }
  const op = p.ops.find((o) => o.name === opName)
  if (!op) return Effect.fail(new UnknownOp({ platform: p.id, op: opName, ops: p.ops.map((o) => o.name) }))
  const decoded = Schema.decodeUnknownEither(op.schema, options)(request)
  if (Either.isLeft(decoded)) {
    for (const issue of ParseResult.ArrayFormatter.formatErrorSync(decoded.left)) {
      const problem = { path: renderPath(["request", ...issue.path]), message: readable(issue.message) }
      if (!envelope.some((e) => e.path === problem.path)) envelope.push(problem)
    }
  }
  if (envelope.length > 0 || Either.isLeft(decoded)) {
    return Effect.fail(
      invalid(`invalid fields for ${p.id} ${op.name}: ${envelope.map((e) => e.path).join(", ")}`, envelope)
    )
  }
  return Effect.succeed({
    op,
    request: decoded.right,
    estimateOnly: body["estimateOnly"] === true,
    maxCredits: typeof maxCredits === "number" ? maxCredits : undefined,
    maxAgeSeconds: typeof maxAgeSeconds === "number" ? maxAgeSeconds : undefined,
    forceFresh: body["forceFresh"] === true
  })
}
