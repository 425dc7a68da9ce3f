/**
 * Every error code the service answers (D5), declared once: its HTTP status, its `details` Schema, the surface that
 * answers it, and whether an op call answers it. Pure data: `@pdr/http-api` builds from it the tagged errors of the
 * public and operator contracts (tag `InsufficientCredits` for `insufficient_credits`), the document's `details`
 * schemas and the clients' typed errors. A domain error says which code it is answered with (`Answered`).
 */
import { Schema } from "effect"

const int = (description: string) => Schema.Number.pipe(Schema.int()).annotations({ description })

/** Every offending field of a 400: its path from the body's root and what is wrong with it. */
const FieldProblems = Schema.Array(
  Schema.Struct({
    path: Schema.String.annotations({ description: "e.g. request.subjects[2]" }),
    message: Schema.String
  })
).annotations({ description: "every offending field: its path from the body's root and what is wrong with it" })

/** Where a code is answered: the public API, the dashboard only, or the operator API only. */
export type Surface = "api" | "dashboard" | "operator"

/** One code's declaration. */
export interface Declaration {
  readonly status: number
  readonly surface: Surface
  /** The Schema of its `details`, when it has them. */
  readonly details?: Schema.Schema.AnyNoContext
  /** Its `details` may be absent (else they are always sent). */
  readonly detailsOptional?: true
  /** An op call answers it (and collecting the call answers it again). */
  readonly call?: true
}

/** Every error code, by code. */
export const codes = {
  invalid_request: { status: 400, surface: "api", details: FieldProblems, call: true },
  unknown_op: { status: 400, surface: "api", details: FieldProblems, call: true },
  unauthorized: { status: 401, surface: "api" },
  insufficient_credits: {
    status: 402,
    surface: "api",
    call: true,
    details: Schema.Struct({
      required: int("the quote, in credits"),
      available: Schema.Number.annotations({ description: "spendable credits" })
    })
  },
  quote_above_max_credits: {
    status: 402,
    surface: "api",
    call: true,
    details: Schema.Struct({
      required: int("the quote, in credits"),
      maxCredits: int("the cap the request gave (D18)")
    })
  },
  key_credit_limit: {
    status: 402,
    surface: "api",
    call: true,
    details: Schema.Struct({
      required: int("the quote, in credits"),
      limit: int("the key's monthly credit limit"),
      spentThisMonth: int("credits the key captured this UTC month plus what its calls in flight hold"),
      resetsAt: Schema.String.annotations({
        description: "the start of the next UTC month",
        jsonSchema: { type: "string", format: "date-time", description: "the start of the next UTC month" }
      })
    })
  },
  forbidden: { status: 403, surface: "dashboard" },
  unknown_platform: { status: 404, surface: "api" },
  not_found: { status: 404, surface: "api" },
  idempotency_in_flight: { status: 409, surface: "api", call: true },
  call_finished: {
    status: 409,
    surface: "api",
    details: Schema.Struct({
      status: Schema.Literal("done", "cancelled").annotations({ description: "how the call ended" }),
      httpStatus: Schema.NullOr(Schema.Number).annotations({ description: "the status of its answer" })
    })
  },
  conflict: { status: 409, surface: "operator" },
  payload_too_large: { status: 413, surface: "api" },
  unsupported_media_type: { status: 415, surface: "api" },
  idempotency_mismatch: { status: 422, surface: "api", call: true },
  rate_limited: {
    status: 429,
    surface: "api",
    detailsOptional: true,
    details: Schema.Struct({
      limit: Schema.Struct({ name: Schema.String, perSecond: Schema.Number, burst: Schema.Number })
    }).annotations({ description: "the key's rate limit (absent when the failed-authentication limit answered)" })
  },
  internal: { status: 500, surface: "api" },
  upstream_failed: {
    status: 502,
    surface: "api",
    call: true,
    details: Schema.Struct({
      coverage: Schema.Array(Schema.Unknown).annotations({
        description: "every unit, each omitted with its reason",
        jsonSchema: {
          type: "array",
          description: "every unit, each omitted with its reason",
          items: { $ref: "#/components/schemas/CoverageItem" }
        }
      })
    })
  },
  op_unavailable: { status: 503, surface: "api", call: true }
} as const satisfies Record<string, Declaration>

/** An error code. */
export type Code = keyof typeof codes

/** Every error code, in declaration order. */
export const all = Object.keys(codes) as ReadonlyArray<Code>

/** The `details` Schema of a code, if it declares one. */
export type DetailsSchema<C extends Code> = (typeof codes)[C] extends { readonly details: infer S } ? S : never

/** The `details` of a code, as values: `unknown` when the code declares none. */
export type Details<C extends Code> = [DetailsSchema<C>] extends [never]
  ? unknown
  : DetailsSchema<C> extends Schema.Schema<infer A, infer _I, never>
    ? A
    : unknown

/** The declaration of a code, read as its common shape. */
export const declaration = (code: Code): Declaration => codes[code]

type Pascal<S extends string> = S extends `${infer H}_${infer T}` ? `${Capitalize<H>}${Pascal<T>}` : Capitalize<S>

/** The tag of a code's error: `InsufficientCredits` for `insufficient_credits`. */
export type Tag<C extends Code> = Pascal<C>

/** The tag of a code's error, as a value. */
export const tagOf = <C extends Code>(code: C): Tag<C> =>
  code
    .split("_")
    .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
    .join("") as Tag<C>

/** What a domain error is answered with: its code, its `details` and, when it is not the error's own, a message. */
export interface Wire<C extends Code = Code> {
  readonly code: C
  readonly message?: string
  readonly details?: Details<C>
}

/** The key under which a domain error carries its `Wire`. */
export const WireId: unique symbol = Symbol.for("@pdr/domain/ErrorCodes/Wire")

/** A domain error the service answers with a code of this table. */
export interface Answered {
  readonly _tag: string
  readonly message: string
  readonly [WireId]: Wire
}

/** The wire form of a domain error: this code, these details (of the code's Schema), and optionally a message. */
export const wire = <C extends Code>(code: C, details?: Details<C>, message?: string): Wire<C> => ({
  code,
  ...(details === undefined ? {} : { details }),
  ...(message === undefined ? {} : { message })
})

/** Whether a value is a domain error the service answers with one of these codes. */
export const isAnswered = (u: unknown): u is Answered => typeof u === "object" && u !== null && WireId in u
