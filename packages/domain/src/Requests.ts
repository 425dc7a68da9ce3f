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
 * of the platform's endpoint in the contract, and `decode` decodes every call with it (then the op's request Schema,
 * for the typed, defaulted request and the rules an encoded side cannot carry).
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

const decoders = new WeakMap<Catalogue.PlatformDef, (u: unknown) => Either.Either<unknown, ParseResult.ParseError>>()

/** The decoder of a platform's payload Schema (the contract's), built once per platform. */
const payloadDecoder = (p: Catalogue.PlatformDef) => {
  const known = decoders.get(p)
  if (known !== undefined) return known
  const made = Schema.decodeUnknownEither(payload(p), options)
  decoders.set(p, made)
  return made
}

const isEnvelopeField = (key: PropertyKey | undefined): key is Envelope.FieldName =>
  typeof key === "string" && Object.hasOwn(Envelope.fields, key)

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

/**
 * A call is decoded by the contract: the platform's payload Schema (`payload`, the endpoint's payload in the contract and
 * in the document) decides whether the envelope is well formed, then the op's request Schema gives the typed, defaulted
 * request (and checks the bounds its encoded side does not carry). What the Schemas refuse is named field by field, in
 * the body's order: the envelope's members first, then the request's fields; `request.op` that names no op of the
 * platform is D5's `unknown_op`.
 */
const decodeFor = (p: Catalogue.PlatformDef, body: unknown): Effect.Effect<Call, InvalidRequest | UnknownOp> => {
  const atOnce = acceptedRemembered(p, body)
  return atOnce === undefined ? inTwoSteps(p, body) : Effect.succeed(atOnce)
}

/**
 * The JSON text of a body made only of what JSON.parse makes (plain objects and arrays, strings, booleans, null and
 * numbers that JSON writes back as the same number), else undefined. Two bodies with the same such text are the same
 * value, so they decode alike: an infinite number (written `null`), -0 (written `0`), an undefined member (left out),
 * a Date or any other object (written by its `toJSON` or as a plain object), a symbol key (left out) all make it
 * undefined.
 */
export const plainJsonKey = (body: unknown): string | undefined => {
  let plain = true
  const text = JSON.stringify(body, function (this: unknown, key: string, value: unknown) {
    const raw = (this as Record<string, unknown>)[key]
    switch (typeof raw) {
      case "string":
      case "boolean":
        return value
      case "number":
        if (!Number.isFinite(raw) || Object.is(raw, -0)) plain = false
        return value
      case "object": {
        if (raw === null) return value
        const proto = Object.getPrototypeOf(raw)
        if (
          !(Array.isArray(raw) ? proto === Array.prototype : proto === Object.prototype || proto === null) ||
          Object.getOwnPropertySymbols(raw).length > 0 ||
          Object.hasOwn(raw, "toJSON")
        )
          plain = false
        return value
      }
      default:
        // undefined, a function, a symbol, a bigint (which JSON.stringify cannot write)
        plain = false
        return null
    }
  })
  return plain ? text : undefined
}

/** The most bodies remembered per platform, and the longest body text remembered. */
const rememberedMost = 256
const rememberedLongest = 4096

const remembered = new WeakMap<Catalogue.PlatformDef, Map<string, Call>>()

/** Freezes the plain objects and arrays of a decoded request (never a class instance's own state). */
const freezePlain = <A>(value: A): A => {
  if (typeof value !== "object" || value === null || Object.isFrozen(value)) return value
  const proto = Object.getPrototypeOf(value)
  if (Array.isArray(value) ? proto !== Array.prototype : proto !== Object.prototype && proto !== null) return value
  for (const v of Object.values(value)) freezePlain(v)
  return Object.freeze(value)
}

/**
 * `acceptedAtOnce`, remembered per platform by the body's JSON text (issue 22: a re-served call sends the same body
 * every time, and its decode was the largest part of the domain's work on a stored call, about 30 KB of heap and 25
 * us). The decode is a function of the body alone (no clock, no state), so the remembered call is the one a new
 * decode would make; it is frozen, shared by the calls that send that body. Only a body both Schemas accept is
 * remembered (a refused one is decoded again, to name its fields), and only a plain JSON one (`plainJsonKey`).
 */
const acceptedRemembered = (p: Catalogue.PlatformDef, body: unknown): Call | undefined => {
  const key = plainJsonKey(body)
  if (key === undefined || key.length > rememberedLongest) return acceptedAtOnce(p, body)
  let known = remembered.get(p)
  const hit = known?.get(key)
  if (hit !== undefined) return hit
  const call = acceptedAtOnce(p, body)
  if (call === undefined) return undefined
  const frozen = Object.freeze({ ...call, request: freezePlain(call.request) })
  if (known === undefined) {
    known = new Map()
    remembered.set(p, known)
  }
  if (known.size >= rememberedMost) known.delete(known.keys().next().value as string)
  known.set(key, frozen)
  return frozen
}

/**
 * The body as the payload Schema's union may read it: Effect 3's union parser looks its candidates up by `String(op)`,
 * which throws for an object whose `toString` and `valueOf` are not functions (`{"op": {"toString": "x"}}`, a 500
 * found by the fuzz test in stop 33); such an `op` is read as an empty object, which the union refuses alike ("must be
 * a string"), so the answer is the same 400 as for any other object.
 */
const unionSafe = (body: unknown): unknown => {
  if (!isRecord(body)) return body
  const request = body["request"]
  if (!isRecord(request)) return body
  const op = request["op"]
  if (typeof op !== "object" || op === null) return body
  try {
    String(op)
    return body
  } catch {
    return { ...body, request: { ...request, op: {} } }
  }
}

/** The two-step decode (the payload Schema, then the op's): what `decode` answers for every body (tests compare). */
export const inTwoSteps = (
  p: Catalogue.PlatformDef,
  body: unknown
): Effect.Effect<Call, InvalidRequest | UnknownOp> => {
  const envelope = payloadDecoder(p)(unionSafe(body))
  if (Either.isLeft(envelope)) return Effect.fail(refused(p, body, envelope.left))
  // accepted by the payload Schema: an object whose `request` names an op of the platform
  const accepted = envelope.right
  const request = isRecord(accepted) ? accepted["request"] : undefined
  const op = isRecord(request) ? opNamed(p, request["op"]) : undefined
  if (!isRecord(accepted) || op === undefined) return Effect.fail(refused(p, body, undefined))
  const decoded = Schema.decodeUnknownEither(op.schema, options)(request)
  if (Either.isLeft(decoded)) return Effect.fail(invalidFields(p, op, requestProblems(decoded.left)))
  return Effect.succeed(callOf(op, decoded.right, accepted))
}

/** A decoded call: its op, its decoded request and the envelope's accepted members. */
const callOf = (
  op: Catalogue.OpDef,
  request: Catalogue.OpRequest,
  accepted: Readonly<Record<string, unknown>>
): Call => {
  const maxCredits = accepted["maxCredits"]
  const maxAgeSeconds = accepted["maxAgeSeconds"]
  return {
    op,
    request,
    estimateOnly: accepted["estimateOnly"] === true,
    maxCredits: typeof maxCredits === "number" ? maxCredits : undefined,
    maxAgeSeconds: typeof maxAgeSeconds === "number" ? maxAgeSeconds : undefined,
    forceFresh: accepted["forceFresh"] === true
  }
}

const opNamed = (p: Catalogue.PlatformDef, name: unknown): Catalogue.OpDef | undefined =>
  p.ops.find((o) => o.name === name)

/** The envelope's members beside `request`, checked as the payload Schema checks them (`request` left as it is). */
const envelopeDecoder = Schema.decodeUnknownEither(Envelope.of(Schema.Unknown), options)

const opDecoders = new WeakMap<
  Catalogue.OpDef,
  (u: unknown) => Either.Either<Catalogue.OpRequest, ParseResult.ParseError>
>()

/** The decoder of an op's request Schema, built once per op. */
const opDecoder = (op: Catalogue.OpDef) => {
  const known = opDecoders.get(op)
  if (known !== undefined) return known
  const made = Schema.decodeUnknownEither(op.schema, options)
  opDecoders.set(op, made)
  return made
}

/**
 * A body that both Schemas accept, decoded with one pass over its request (issue 22: the request was walked twice,
 * once by the payload's union and once by the op's Schema, about 35 KB of heap per 10-subject call). The op's request
 * Schema accepting `request` implies the payload's union accepts it (its member for that op is the encoded side of the
 * same struct, without the refinements), and the envelope's other members are checked by the same Schemas; so what is
 * accepted here is accepted, with the same result, by the two-step decode below. Anything refused here (or not an
 * object naming an op of the platform) goes that way, which names what is wrong.
 */
export const acceptedAtOnce = (p: Catalogue.PlatformDef, body: unknown): Call | undefined => {
  if (!isRecord(body)) return undefined
  const request = body["request"]
  const op = isRecord(request) ? opNamed(p, request["op"]) : undefined
  if (op === undefined) return undefined
  const envelope = envelopeDecoder(body)
  if (Either.isLeft(envelope)) return undefined
  const decoded = opDecoder(op)(request)
  if (Either.isLeft(decoded)) return undefined
  return callOf(op, decoded.right, envelope.right as Record<string, unknown>)
}

/** The request's offending fields as the op's Schema names them (`request.` and its path). */
const requestProblems = (error: ParseResult.ParseError) =>
  ParseResult.ArrayFormatter.formatErrorSync(error).map((issue) => ({
    path: renderPath(["request", ...issue.path]),
    message: readable(issue.message)
  }))

const invalidFields = (
  p: Catalogue.PlatformDef,
  op: Catalogue.OpDef,
  problems: ReadonlyArray<{ path: string; message: string }>
) => {
  const unique = problems.filter((e, i) => problems.findIndex((f) => f.path === e.path) === i)
  return invalid(`invalid fields for ${p.id} ${op.name}: ${unique.map((e) => e.path).join(", ")}`, unique)
}

/** Why the payload Schema refused a body, named member by member (D5). */
const refused = (
  p: Catalogue.PlatformDef,
  body: unknown,
  error: ParseResult.ParseError | undefined
): InvalidRequest | UnknownOp => {
  if (!isRecord(body))
    return invalid("the body must be a JSON object", [
      { path: "", message: "must be a JSON object with a `request` member" }
    ])
  const issues = error === undefined ? [] : ParseResult.ArrayFormatter.formatErrorSync(error)
  const envelope: Array<{ path: string; message: string }> = []
  for (const issue of issues) {
    const [member] = issue.path
    if (issue.path.length === 1 && issue._tag === "Unexpected" && member !== undefined)
      envelope.push({ path: String(member), message: `is unexpected, expected: ${Envelope.names.join(" | ")}` })
  }
  for (const issue of issues) {
    const [member] = issue.path
    if (issue.path.length === 1 && issue._tag !== "Unexpected" && isEnvelopeField(member))
      envelope.push({ path: member, message: Envelope.problems[member] })
  }
  const request = body["request"]
  if (!isRecord(request)) {
    envelope.push({
      path: "request",
      message: request === undefined ? "is missing" : "must be an object holding `op` and the op's fields"
    })
    return invalid("the request envelope is malformed", envelope)
  }
  const name = request["op"]
  if (typeof name !== "string") {
    envelope.push({ path: "request.op", message: name === undefined ? "is missing" : "must be a string" })
    return invalid("the request envelope is malformed", envelope)
  }
  const op = opNamed(p, name)
  if (op === undefined) return new UnknownOp({ platform: p.id, op: name, ops: p.ops.map((o) => o.name) })
  // the request's fields: as the op's Schema names them, else (a field its encoded side alone refuses) as the payload's
  const decoded = Schema.decodeUnknownEither(op.schema, options)(request)
  const fields = Either.isLeft(decoded)
    ? requestProblems(decoded.left)
    : issues
        .filter((issue) => issue.path[0] === "request")
        .map((issue) => ({ path: renderPath(issue.path), message: readable(issue.message) }))
  const named = [...envelope, ...fields]
  // a refusal none of the above names (none is known): every issue as the Schema says it
  return invalidFields(
    p,
    op,
    named.length > 0
      ? named
      : issues.map((issue) => ({ path: renderPath(issue.path), message: readable(issue.message) }))
  )
}
