/**
 * The errors of the public and operator APIs, one family: one `Schema.TaggedError` per error code of the domain's
 * table (`ErrorCodes.codes`: status, `details` Schema, surface), its tag the code in PascalCase (`InsufficientCredits`
 * for `insufficient_credits`), each sent as the D5 body `{"error": {"code", "message", "requestId", "details"?}}` (no
 * `_tag` on the wire). Nothing here is written per code: the contract declares each code's `wire` Schema, so the
 * derived clients decode a 402 into `InsufficientCredits` or `QuoteAboveMaxCredits` by its `code`, with its
 * `details` typed, and `Effect.catchTag` catches it by name.
 */
import { HttpApiSchema } from "@effect/platform"
import { ErrorCodes } from "@pdr/domain"
import { type SchemaAST as AST, type Cause, Schema } from "effect"

/** An error code. */
export type Code = ErrorCodes.Code

/** The `error` member of a body of this code, its `details` typed as the code declares them. */
export interface ErrorObject<C extends Code> {
  readonly code: C
  readonly message: string
  readonly requestId: string
  readonly details?: ErrorCodes.Details<C>
}

/** The error of one code, as the contract decodes it. */
export interface FailureOf<C extends Code> extends Cause.YieldableError {
  readonly _tag: ErrorCodes.Tag<C>
  readonly error: ErrorObject<C>
}

/** The error of this code (of each code of a union). */
export type Of<C extends Code> = C extends Code ? FailureOf<C> : never

/** Any error of the family. */
export type Failure = Of<Code>

/** The D5 body of an error. */
export interface Body {
  readonly error: {
    readonly code: string
    readonly message: string
    readonly requestId: string
    readonly details?: unknown
  }
}

/** The `error` member of a body of this code. */
const errorOf = (code: Code) => {
  const { details } = ErrorCodes.declaration(code)
  return Schema.Struct({
    code: Schema.Literal(code),
    message: Schema.String,
    requestId: Schema.String,
    details: Schema.optionalWith(details ?? Schema.Unknown, { exact: true })
  })
}

/** Whether this code always carries `details` (the document marks them required). */
export const alwaysDetailed = (code: Code) => {
  const d = ErrorCodes.declaration(code)
  return d.details !== undefined && d.detailsOptional !== true
}

type Ctor = new (props: Body, disableValidation?: boolean) => Failure
type ErrorClass = Ctor & Schema.Schema.AnyNoContext

const classes = new Map<Code, ErrorClass>(
  ErrorCodes.all.map((code) => {
    const cls = Schema.TaggedError<Failure>()(ErrorCodes.tagOf(code), { error: errorOf(code) })
    // named as a declared class would be (`InsufficientCredits`), for logs and stack traces
    Object.defineProperty(cls, "name", { value: ErrorCodes.tagOf(code) })
    return [code, cls as unknown as ErrorClass]
  })
)
const classOf = (code: Code): ErrorClass => classes.get(code)!

/**
 * Every error code: its class, its HTTP status and where it is answered (the public API, the dashboard only, or the
 * operator API only), read from the code's one declaration.
 */
export const codes = Object.fromEntries(
  ErrorCodes.all.map((code) => {
    const { status, surface } = ErrorCodes.declaration(code)
    return [code, { error: classOf(code), status, surface }]
  })
) as unknown as {
  readonly [C in Code]: {
    readonly error: new (props: { readonly error: ErrorObject<C> }, disableValidation?: boolean) => FailureOf<C>
    readonly status: (typeof ErrorCodes.codes)[C]["status"]
    readonly surface: (typeof ErrorCodes.codes)[C]["surface"]
  }
}

/** An error code of the public API (not the dashboard's, not the operator's). */
export type ApiCode = { [C in Code]: (typeof codes)[C]["surface"] extends "api" ? C : never }[Code]

/** An HTTP status of an error of the public API. */
export type ApiStatus = (typeof codes)[ApiCode]["status"]

/** A code an op call answers (and collecting the call answers again). */
export type CallCode = { [C in Code]: (typeof ErrorCodes.codes)[C] extends { readonly call: true } ? C : never }[Code]

/** The error of this code, with its message, request id and details. */
export const make = <C extends Code>(
  code: C,
  message: string,
  requestId: string,
  details?: ErrorCodes.Details<C>
): Of<C> => {
  const error = details === undefined ? { code, message, requestId } : { code, message, requestId, details }
  return new (classOf(code) as Ctor)({ error }, true) as Of<C>
}

/** The error of this D5 body whose code is one of ours, else `undefined` (a replayed body, D16). */
export const fromBody = (body: Body): Failure | undefined =>
  Object.hasOwn(ErrorCodes.codes, body.error.code)
    ? new (classOf(body.error.code as Code) as Ctor)(body, true)
    : undefined

/** The answer of a domain error: the error of its code, with its details and message. */
export const fromDomain = <E extends ErrorCodes.Answered>(e: E, requestId: string): Of<CodeOf<E>> => {
  const wire = e[ErrorCodes.WireId]
  return make(wire.code, wire.message ?? e.message, requestId, wire.details) as Of<CodeOf<E>>
}

/** The code a domain error is answered with. */
export type CodeOf<E extends ErrorCodes.Answered> = E[typeof ErrorCodes.WireId]["code"]

const statusByClass: ReadonlyMap<unknown, number> = new Map(
  ErrorCodes.all.map((code) => [classOf(code), ErrorCodes.codes[code].status] as const)
)

/** The status of an error of this family (one lookup by its class), else `undefined`. */
export const statusOf = (u: unknown): number | undefined =>
  typeof u === "object" && u !== null ? statusByClass.get(u.constructor) : undefined

/** Whether a value is an error of this family. */
export const isFailure = (u: unknown): u is Failure => statusOf(u) !== undefined

/**
 * The contract Schema of the error of this code: the D5 body on the wire, the tagged error in code, with the status.
 */
const wireOf = <C extends Code>(code: C): Schema.Schema<Of<C>, Body> => {
  const cls = classOf(code)
  return Schema.transform(Schema.Struct({ error: errorOf(code) }), Schema.typeSchema(cls), {
    strict: false,
    decode: (body) => new cls(body as Body, true),
    encode: (e) => ({ error: (e as Body).error })
  }).annotations({
    ...HttpApiSchema.annotations({ status: ErrorCodes.codes[code].status }),
    identifier: `Error_${code}`
  }) as unknown as Schema.Schema<Of<C>, Body>
}

/** The contract Schema of each error, by tag. */
export const wire = Object.fromEntries(ErrorCodes.all.map((code) => [ErrorCodes.tagOf(code), wireOf(code)])) as {
  readonly [C in Code as ErrorCodes.Tag<C>]: Schema.Schema<Of<C>, Body>
}

const codeByAst: ReadonlyMap<AST.AST, Code> = new Map(
  ErrorCodes.all.map((code) => [wire[ErrorCodes.tagOf(code)].ast, code] as const)
)

/** The code of a contract error Schema of this family (one of `wire`), else `undefined`. */
export const codeOfAst = (ast: AST.AST): Code | undefined => codeByAst.get(ast)

const union = <C extends Code>(codes: ReadonlyArray<C>): Schema.Schema<Of<C>, Body> =>
  Schema.Union(...codes.map((code) => wire[ErrorCodes.tagOf(code)])) as unknown as Schema.Schema<Of<C>, Body>

/** Every code an op call answers, as one contract Schema (a group's `addError` takes each member). */
export const callErrors = union(
  ErrorCodes.all.filter((code): code is CallCode => ErrorCodes.declaration(code).call === true)
)

/** Every error of the family, as one contract Schema. */
export const every = union(ErrorCodes.all)
