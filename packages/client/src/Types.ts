/**
 * Types of the public API, read from the types generated from its OpenAPI document (src/generated/openapi.ts):
 * they follow the document, so they are exactly as precise as the contract.
 */
import type { components, paths } from "./generated/openapi.js"

type JsonOf<R> = R extends { readonly content: { readonly "application/json": infer B } } ? B : never
type Success<O> = O extends { readonly responses: infer R } ? JsonOf<R[200 & keyof R]> : never
type Failure<O> = O extends { readonly responses: infer R } ? JsonOf<R[Exclude<keyof R, 200 | 201>]> : never
type Operations = {
  [K in keyof paths]: { [M in keyof paths[K]]: paths[K][M] }[keyof paths[K]]
}[keyof paths]

/** `GET /api/v1/platforms`. */
export type CatalogueResponse = Success<paths["/api/v1/platforms"]["get"]>

/** `GET /api/v1/balance`. */
export type BalanceResponse = Success<paths["/api/v1/balance"]["get"]>

/** Any error body the API documents: `{ error: { code, message, requestId, details? } }`. */
export type ErrorBody = Extract<Failure<Operations>, { readonly error: unknown }>

type PlatformOfPath<K> = K extends `/api/v1/platforms/{${string}}`
  ? string
  : K extends `/api/v1/platforms/${infer P}`
    ? P extends `${string}/${string}`
      ? never
      : P
    : never

/** A platform name, as the paths of the document spell it (`string` while the document has one generic path). */
export type Platform = PlatformOfPath<keyof paths>

/** The document's path of a platform's op calls. */
export type PathOf<P extends Platform> = `/api/v1/platforms/${P}` extends keyof paths
  ? `/api/v1/platforms/${P}`
  : Extract<keyof paths, `/api/v1/platforms/{${string}}`>

type Post<P extends Platform> = paths[PathOf<P>] extends { readonly post: infer O } ? O : never

/** The call envelope of a platform: `{ request, estimateOnly?, maxCredits? }`. */
export type EnvelopeOf<P extends Platform> =
  Post<P> extends { readonly requestBody: { readonly content: { readonly "application/json": infer B } } } ? B : never

/** The `request` of a platform's call: `op` and that op's fields. */
export type RequestOf<P extends Platform> = EnvelopeOf<P> extends { readonly request: infer R } ? R : never

/** The ops of a platform (`request.op`). */
export type OpOf<P extends Platform> = RequestOf<P> extends { readonly op: infer O } ? O : never

/** The `request` of one op of a platform. */
export type OpRequestOf<P extends Platform, O extends OpOf<P>> = Extract<RequestOf<P>, { readonly op: O }>

type Schemas = components extends { readonly schemas: infer S } ? S : never

/** The Schema of one op's `data` rows, as the document names it (`<platform>.<op>.Row`). */
export type RowOf<P extends Platform, O extends OpOf<P> = OpOf<P>> = O extends string
  ? `${P}.${O}.Row` extends keyof Schemas
    ? Schemas[`${P}.${O}.Row`]
    : Success<Post<P>> extends { readonly data: ReadonlyArray<infer R> }
      ? R
      : never
  : never

/** The 200 answer of a platform's call (of one op when `O` is given): rows, cost, coverage (D4). */
export type OpResponseOf<P extends Platform, O extends OpOf<P> = OpOf<P>> = Omit<Success<Post<P>>, "data"> & {
  readonly data: ReadonlyArray<RowOf<P, O>>
}

/** The error bodies a platform's call can answer. */
export type CallErrorOf<P extends Platform> = Extract<Failure<Post<P>>, { readonly error: unknown }>

/** `202 Accepted` of a call not done yet: its id, quote and progress (issue 21). */
export type CallAccepted = Schemas extends { readonly CallAccepted: infer A } ? A : never

/** `GET /api/v1/calls`: a page of the account's calls (issue 21). */
export type CallList = Success<paths["/api/v1/calls"]["get"]>
