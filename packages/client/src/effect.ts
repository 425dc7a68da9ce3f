/**
 * The Effect clients, derived from the HttpApi contracts of @pdr/http-api: requests, answers and errors are the
 * contract's own Schemas, so they are exactly as precise as the contract. They need an `HttpClient`
 * (`FetchHttpClient.layer` or `NodeHttpClient.layer`).
 */
import {
  HttpApiClient,
  HttpClient,
  type HttpClientError,
  HttpClientRequest,
  type HttpClientResponse
} from "@effect/platform"
import { AdminApi, Api, Failure } from "@pdr/http-api"
import { Context, Duration, Effect, Layer, Redacted } from "effect"
import { maxRetryWaitMs, retryAfterMs } from "./Client.js"

/** How to reach the public API. */
export interface Options {
  /** e.g. `http://127.0.0.1:8080` */
  readonly baseUrl: string
  readonly apiKey: string | Redacted.Redacted<string>
  /**
   * Retries of a 429 (after its Retry-After, at most 30 s), of a 409 `idempotency_in_flight` and of a connection
   * failure (after 250 ms, doubling), each with the same request and so the same Idempotency-Key; default 3.
   */
  readonly maxRetries?: number
}

/** How to reach the operator API. */
export interface AdminOptions {
  /** e.g. `http://127.0.0.1:8081` */
  readonly baseUrl: string
  readonly token: string | Redacted.Redacted<string>
}

const reveal = (s: string | Redacted.Redacted<string>) => (Redacted.isRedacted(s) ? Redacted.value(s) : s)

/** The same request again after a 429 or a 409 in flight (D12, D16), or after a connection failure. */
const retrying =
  (maxRetries: number) =>
  (client: HttpClient.HttpClient): HttpClient.HttpClient =>
    HttpClient.transformResponse(client, (send) => {
      const backoff = (n: number) => Duration.millis(Math.min(maxRetryWaitMs, 250 * 2 ** n))
      const attempt = (
        n: number
      ): Effect.Effect<HttpClientResponse.HttpClientResponse, HttpClientError.HttpClientError> =>
        Effect.matchEffect(send, {
          onFailure: (e) =>
            e._tag === "RequestError" && e.reason === "Transport" && n < maxRetries
              ? Effect.zipRight(Effect.sleep(backoff(n)), attempt(n + 1))
              : Effect.fail(e),
          onSuccess: (res) => {
            if ((res.status !== 429 && res.status !== 409) || n >= maxRetries) return Effect.succeed(res)
            const after = retryAfterMs(new Headers(res.headers as Record<string, string>))
            const wait = after === undefined ? backoff(n) : Duration.millis(Math.min(maxRetryWaitMs, after))
            return res.text.pipe(Effect.ignore, Effect.zipRight(Effect.sleep(wait)), Effect.zipRight(attempt(n + 1)))
          }
        })
      return attempt(0)
    })

/** The public API's client, with the key set once on every request and retries (`maxRetries`). */
export const make = (options: Options) =>
  HttpApiClient.make(Api.Api, {
    baseUrl: options.baseUrl,
    transformClient: (client) =>
      retrying(options.maxRetries ?? 3)(
        HttpClient.mapRequest(client, HttpClientRequest.setHeader("x-api-key", reveal(options.apiKey)))
      )
  })

/**
 * The client `make` builds: `client.catalogue.platforms()`, one method per platform (`client.platforms.maps({ payload:
 * { request: { op: "places", subjects } }, headers: {} })`, requests typed per op, rows typed per platform) and
 * `client.account.balance()`.
 */
export type Client = Effect.Effect.Success<ReturnType<typeof make>>

/**
 * Any failure of an op call: the D5 errors an op call answers, by tag (`Effect.catchTag("InsufficientCredits", ...)`),
 * transport and decoding. Each endpoint of the derived client has its own union: `client.account.balance()` cannot
 * fail with `InsufficientCredits`, and catching it there does not compile (issue 23).
 */
export type CallError = Effect.Effect.Error<ReturnType<Client["platforms"][Api.Platform]>>

/** The D5 error an op call fails with for an op its platform does not have (the server's 400 `unknown_op`). */
export type UnknownOp = Failure.Of<"unknown_op">

/** An op forced past the types that its platform does not have: `UnknownOp`, as the server would answer. */
const unknownOp = (platform: string, op: unknown): Effect.Effect<never, UnknownOp> | undefined => {
  const ops = Api.opsOf(platform)
  if (ops === undefined || (typeof op === "string" && ops.includes(op))) return undefined
  return Effect.fail(
    Failure.make(
      "unknown_op",
      `unknown op ${JSON.stringify(op)} of platform ${platform} (refused by the client before sending)`,
      "client",
      [{ path: "request.op", message: `must be one of ${ops.join(", ")}` }]
    )
  )
}

/** How a call is made. */
export interface CallOptions {
  /** Quote the exact cost without spending (D8). */
  readonly estimateOnly?: boolean
  /** Refuse the call (402 `QuoteAboveMaxCredits`) when its quote is above this (D18). */
  readonly maxCredits?: number
  /** The Idempotency-Key of a paid call (D16); a fresh one is sent when left out, none with a quote. */
  readonly idempotencyKey?: string
  /** A stored result older than this many seconds is fetched again (issue 21). */
  readonly maxAgeSeconds?: number
  /** Fetch every unit even when a fresh result is stored (issue 21). */
  readonly forceFresh?: boolean
}

type PlatformMethod = (request: {
  readonly payload: Api.EnvelopeOf<unknown>
  readonly headers: Api.CallHeaders
}) => Effect.Effect<unknown, CallError>

/**
 * Calls (or quotes) one op of one platform on the derived client, its answer typed with that op's rows: the same
 * endpoint as `client.platforms[platform]`, with the envelope built and an Idempotency-Key sent with every paid call,
 * so that the caller's retries never bill twice.
 */
export const call = <P extends Api.Platform, O extends Api.OpOf<P>>(
  client: Client,
  platform: P,
  request: Api.RequestOf<P> & { readonly op: O },
  options: CallOptions = {}
): Effect.Effect<Api.AnswerOf<Api.RowOf<P, O>>, CallError> =>
  Effect.suspend(() => {
    const refused = unknownOp(platform, (request as { readonly op?: unknown }).op)
    if (refused !== undefined) return refused
    const key = options.idempotencyKey ?? (options.estimateOnly === true ? undefined : crypto.randomUUID())
    const method = (client.platforms as unknown as Record<string, PlatformMethod>)[platform]!
    return method({
      payload: envelopeOf(request, options),
      headers: key === undefined ? {} : { "idempotency-key": key }
    }) as Effect.Effect<Api.AnswerOf<Api.RowOf<P, O>>, CallError>
  })

const envelopeOf = (request: unknown, options: CallOptions): Api.EnvelopeOf<unknown> => ({
  request,
  ...(options.estimateOnly === undefined ? {} : { estimateOnly: options.estimateOnly }),
  ...(options.maxCredits === undefined ? {} : { maxCredits: options.maxCredits }),
  ...(options.maxAgeSeconds === undefined ? {} : { maxAgeSeconds: options.maxAgeSeconds }),
  ...(options.forceFresh === undefined ? {} : { forceFresh: options.forceFresh })
})

// ---- issue 21: long calls ----
/** The 202 of a call not done yet. */
export type Accepted = typeof Api.CallAccepted.Type

/** Options of a call that may run long. */
export interface AsyncCallOptions extends CallOptions {
  /** Seconds the server waits for the answer before answering 202 (`Prefer: wait=N`); 0 by default. */
  readonly waitSeconds?: number
  /** Told the call's id, quote and progress at each 202. */
  readonly onProgress?: (accepted: Accepted) => Effect.Effect<void>
  /** Time between two collects; 1 second by default. */
  readonly pollEvery?: Duration.DurationInput
}

const isAccepted = (u: unknown): u is Accepted => typeof u === "object" && u !== null && "progress" in u

/**
 * The answer of a derived platform endpoint called without `Prefer` (which never answers 202): its type without the
 * 202 branch the endpoint declares for asynchronous calls.
 */
export const answered = <A>(a: A): Exclude<A, Accepted> => {
  if (isAccepted(a)) throw new Error(`call ${a.callId} was answered 202; collect it with PdrClient.collect`)
  return a as Exclude<A, Accepted>
}

/** A call's answer by id (free, 24 hours): the answer once done, else its 202 progress. */
export const collect = (client: Client, callId: string) => client.calls.collect({ path: { id: callId } })

/** Cancels a running call: nothing more is fetched or billed; a finished call fails with `CallFinished`. */
export const cancel = (client: Client, callId: string) => client.calls.cancel({ path: { id: callId } })

/** The account's calls, newest first (`after`: the previous page's `next`). */
export const listCalls = (client: Client, page: { readonly after?: string; readonly limit?: number } = {}) =>
  client.calls.list({ urlParams: page })

/**
 * Calls one op asking for an asynchronous answer (`Prefer: respond-async`, or `wait=N`) and follows its 202s to the
 * answer; interrupting the effect cancels the call (nothing more fetched or billed), issue 21.
 */
export const callAsync = <P extends Api.Platform, O extends Api.OpOf<P>>(
  client: Client,
  platform: P,
  request: Api.RequestOf<P> & { readonly op: O },
  options: AsyncCallOptions = {}
): Effect.Effect<Api.AnswerOf<Api.RowOf<P, O>>, CallError> =>
  Effect.gen(function* () {
    const refused = unknownOp(platform, (request as { readonly op?: unknown }).op)
    if (refused !== undefined) return yield* refused
    const key = options.idempotencyKey ?? (options.estimateOnly === true ? undefined : crypto.randomUUID())
    const method = (client.platforms as unknown as Record<string, PlatformMethod>)[platform]!
    const first = yield* method({
      payload: envelopeOf(request, options),
      headers: {
        prefer: options.waitSeconds === undefined ? "respond-async" : `respond-async, wait=${options.waitSeconds}`,
        ...(key === undefined ? {} : { "idempotency-key": key })
      }
    })
    if (!isAccepted(first)) return first as Api.AnswerOf<Api.RowOf<P, O>>
    const id = first.callId
    let r: unknown = first
    const follow = Effect.gen(function* () {
      while (isAccepted(r)) {
        if (options.onProgress) yield* options.onProgress(r)
        yield* Effect.sleep(options.pollEvery ?? "1 second")
        r = yield* collect(client, id)
      }
      return r as Api.AnswerOf<Api.RowOf<P, O>>
    })
    return yield* follow.pipe(Effect.onInterrupt(() => Effect.ignore(cancel(client, id))))
  }) as Effect.Effect<Api.AnswerOf<Api.RowOf<P, O>>, CallError>

/** The public API's client as a service. */
export class PdrClient extends Context.Tag("@pdr/client/PdrClient")<PdrClient, Client>() {}

/** Provides `PdrClient` over the `HttpClient` it is given. */
export const layer = (options: Options) => Layer.effect(PdrClient, make(options))

/** The operator API's client, with the operator token set once on every request. */
export const makeAdmin = (options: AdminOptions) =>
  HttpApiClient.make(AdminApi.AdminApi, {
    baseUrl: options.baseUrl,
    transformClient: HttpClient.mapRequest(HttpClientRequest.bearerToken(reveal(options.token)))
  })

/** The client `makeAdmin` builds: `admin.accounts.create(...)`, `admin.keys.revoke(...)`, ... */
export type AdminClient = Effect.Effect.Success<ReturnType<typeof makeAdmin>>

/** The operator API's client as a service. */
export class PdrAdminClient extends Context.Tag("@pdr/client/PdrAdminClient")<PdrAdminClient, AdminClient>() {}

/** Provides `PdrAdminClient` over the `HttpClient` it is given. */
export const adminLayer = (options: AdminOptions) => Layer.effect(PdrAdminClient, makeAdmin(options))
