/**
 * The Promise client of the public API: no Effect in its types. Retries 429 (honouring `Retry-After` and the
 * `RateLimit` header, capped) and connection failures; every paid call carries an `Idempotency-Key`, the same on
 * each retry, so a retry is never billed twice (D16).
 */
import type {
  BalanceResponse,
  CallAccepted,
  CallErrorOf,
  CallList,
  CatalogueResponse,
  ErrorBody,
  OpOf,
  OpRequestOf,
  OpResponseOf,
  Platform
} from "./Types.js"

/** How to reach the API. */
export interface ClientOptions {
  /** e.g. `http://127.0.0.1:8080` */
  readonly baseUrl: string
  readonly apiKey: string
  readonly fetch?: typeof fetch
  /** Retries of a 429 or a connection failure; default 3. */
  readonly maxRetries?: number
}

/** An answer: the value on success, the documented error body otherwise. */
export type Result<T, E extends { readonly error: unknown } = ErrorBody> =
  | {
      readonly ok: true
      readonly status: number
      readonly value: T
      readonly requestId: string
      readonly headers: Headers
    }
  | {
      readonly ok: false
      readonly status: number
      readonly error: E["error"]
      readonly requestId: string
      readonly headers: Headers
    }

/** Options of one op call. */
export interface CallOptions {
  /** Quote the exact cost without spending. */
  readonly estimateOnly?: boolean
  /** Refuse the call if its quote exceeds this many credits (D18). */
  readonly maxCredits?: number
  /** The call's idempotency key; a random UUID by default for a paid call. */
  readonly idempotencyKey?: string
  /** A stored result older than this many seconds is fetched again (issue 21). */
  readonly maxAgeSeconds?: number
  /** Fetch every unit even when a fresh result is stored (issue 21). */
  readonly forceFresh?: boolean
}

/** Options of a call that may run long (`callAsync`, issue 21). */
export interface AsyncCallOptions extends CallOptions {
  /** Seconds the server waits for the answer before answering 202 (`Prefer: wait=N`); 0 by default. */
  readonly waitSeconds?: number
  /** Told the call's id, quote and progress at each 202. */
  readonly onProgress?: (accepted: CallAccepted) => void
  /** Aborting cancels the call (DELETE): nothing more is fetched or billed; its answer is still collected. */
  readonly signal?: AbortSignal
  /** The longest wait between two collects, whatever Retry-After says (ms); default 10,000. */
  readonly maxPollMs?: number
}

/** The longest wait before a retry, whatever the server asks (ms). */
export const maxRetryWaitMs = 30_000

/** Seconds to wait before a retry, from `Retry-After` (seconds or an HTTP date) or the `RateLimit` `t` parameter. */
export const retryAfterMs = (headers: Headers, now = Date.now()): number | undefined => {
  const after = headers.get("retry-after")
  if (after !== null) {
    const seconds = Number(after)
    if (Number.isFinite(seconds) && after.trim() !== "") return Math.max(0, seconds * 1000)
    const date = Date.parse(after)
    if (!Number.isNaN(date)) return Math.max(0, date - now)
  }
  const reset = /(?:^|;)\s*t=(\d+(?:\.\d+)?)/.exec(headers.get("ratelimit") ?? "")
  return reset ? Number(reset[1]) * 1000 : undefined
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

/** A client of the public API. */
export const createClient = (options: ClientOptions) => {
  const base = options.baseUrl.replace(/\/+$/, "")
  const doFetch = options.fetch ?? globalThis.fetch
  const maxRetries = options.maxRetries ?? 3

  const send = async <T, E extends { readonly error: unknown }>(
    method: "GET" | "POST" | "DELETE",
    path: string,
    body?: unknown,
    extraHeaders: Record<string, string> = {}
  ): Promise<Result<T, E>> => {
    const headers: Record<string, string> = { "x-api-key": options.apiKey, accept: "application/json", ...extraHeaders }
    if (body !== undefined) headers["content-type"] = "application/json"
    const init: RequestInit = { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) }
    for (let attempt = 0; ; attempt++) {
      const backoff = Math.min(maxRetryWaitMs, 250 * 2 ** attempt)
      let res: Response
      try {
        res = await doFetch(`${base}${path}`, init)
      } catch (cause) {
        if (attempt >= maxRetries) throw cause
        await sleep(backoff)
        continue
      }
      const text = await res.text()
      let payload: unknown
      try {
        payload = text === "" ? undefined : JSON.parse(text)
      } catch {
        payload = undefined
      }
      const requestId =
        res.headers.get("x-request-id") ??
        ((payload as { requestId?: string; error?: { requestId?: string } } | undefined)?.requestId ||
          (payload as { error?: { requestId?: string } } | undefined)?.error?.requestId ||
          "")
      if (res.ok) return { ok: true, status: res.status, value: payload as T, requestId, headers: res.headers }
      const error = (payload as { error?: E["error"] } | undefined)?.error ?? {
        code: res.status === 429 ? "rate_limited" : "internal",
        message: `HTTP ${res.status}${text === "" ? "" : `: ${text.slice(0, 200)}`}`,
        requestId
      }
      const code = (error as { code?: string }).code
      const retryable = res.status === 429 || (res.status === 409 && code === "idempotency_in_flight")
      if (retryable && attempt < maxRetries) {
        await sleep(Math.min(maxRetryWaitMs, retryAfterMs(res.headers) ?? backoff))
        continue
      }
      return { ok: false, status: res.status, error: error as E["error"], requestId, headers: res.headers }
    }
  }

  const envelopeOf = (request: unknown, callOptions: CallOptions) => ({
    request,
    ...(callOptions.estimateOnly === undefined ? {} : { estimateOnly: callOptions.estimateOnly }),
    ...(callOptions.maxCredits === undefined ? {} : { maxCredits: callOptions.maxCredits }),
    ...(callOptions.maxAgeSeconds === undefined ? {} : { maxAgeSeconds: callOptions.maxAgeSeconds }),
    ...(callOptions.forceFresh === undefined ? {} : { forceFresh: callOptions.forceFresh })
  })

  /** A call's answer by id (free): the answer once done (its own status), else 202 with its progress. */
  const collect = <T = OpResponseOf<Platform>, E extends { readonly error: unknown } = ErrorBody>(
    callId: string
  ): Promise<Result<T | CallAccepted, E>> => send("GET", `/api/v1/calls/${encodeURIComponent(callId)}`)

  /** Cancels a running call; 409 `call_finished` once it ended. */
  const cancel = (callId: string): Promise<Result<CallAccepted>> =>
    send("DELETE", `/api/v1/calls/${encodeURIComponent(callId)}`)

  const isAccepted = (status: number, value: unknown): value is CallAccepted =>
    status === 202 && typeof value === "object" && value !== null && "progress" in value

  /** Follows a 202 to the call's answer: collects after each Retry-After; an abort of `signal` cancels the call. */
  const follow = async <T, E extends { readonly error: unknown }>(
    first: Result<T | CallAccepted, E>,
    callOptions: AsyncCallOptions
  ): Promise<Result<T, E>> => {
    let r = first
    let cancelled = false
    while (r.ok && isAccepted(r.status, r.value)) {
      const accepted = r.value
      callOptions.onProgress?.(accepted)
      if (callOptions.signal?.aborted === true && !cancelled) {
        cancelled = true
        await cancel(accepted.callId)
      }
      const wait = Math.min(callOptions.maxPollMs ?? 10_000, retryAfterMs(r.headers) ?? 1000)
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, wait)
        function done() {
          clearTimeout(timer)
          callOptions.signal?.removeEventListener("abort", done)
          resolve()
        }
        callOptions.signal?.addEventListener("abort", done, { once: true })
      })
      r = await collect<T, E>(accepted.callId)
    }
    return r as Result<T, E>
  }

  return {
    /** A call's answer by id (free, 24 hours): the answer once done, else 202 with its progress (issue 21). */
    collect,
    /** Cancels a running call (issue 21). */
    cancel,
    /** The account's calls of the last 24 hours, newest first; `after` is the previous page's `next`. */
    listCalls: (page: { readonly after?: string; readonly limit?: number } = {}): Promise<Result<CallList>> => {
      const q = new URLSearchParams()
      if (page.after !== undefined) q.set("after", page.after)
      if (page.limit !== undefined) q.set("limit", String(page.limit))
      const query = q.toString()
      return send("GET", `/api/v1/calls${query === "" ? "" : `?${query}`}`)
    },
    /**
     * Calls one op asking for an asynchronous answer (`Prefer: respond-async`, or `wait=N`), then follows 202 and
     * Retry-After to the answer; `onProgress` sees each 202, aborting `signal` cancels the call (issue 21).
     */
    callAsync: async <P extends Platform, const O extends OpOf<P>>(
      platform: P,
      request: { readonly op: O } & NoInfer<OpRequestOf<P, O>>,
      callOptions: AsyncCallOptions = {}
    ): Promise<Result<OpResponseOf<P, O>, CallErrorOf<P>>> => {
      const paid = callOptions.estimateOnly !== true
      const key = callOptions.idempotencyKey ?? (paid ? crypto.randomUUID() : undefined)
      const first = await send<OpResponseOf<P, O> | CallAccepted, CallErrorOf<P>>(
        "POST",
        `/api/v1/platforms/${encodeURIComponent(platform)}`,
        envelopeOf(request, callOptions),
        {
          prefer:
            callOptions.waitSeconds === undefined ? "respond-async" : `respond-async, wait=${callOptions.waitSeconds}`,
          ...(key === undefined ? {} : { "idempotency-key": key })
        }
      )
      return follow(first, callOptions)
    },
    /** Every platform and op with prices, windows and request schemas (no key needed). */
    catalogue: (): Promise<Result<CatalogueResponse>> => send("GET", "/api/v1/platforms"),
    /** Spendable credits of the key's account. */
    balance: (): Promise<Result<BalanceResponse>> => send("GET", "/api/v1/balance"),
    /** Calls (or, with `estimateOnly`, quotes) one op of one platform. */
    call: <P extends Platform, const O extends OpOf<P>>(
      platform: P,
      // the op is inferred from `op` alone, then the request is checked against that op's fields (and its rows typed)
      request: { readonly op: O } & NoInfer<OpRequestOf<P, O>>,
      callOptions: CallOptions = {}
    ): Promise<Result<OpResponseOf<P, O>, CallErrorOf<P>>> => {
      const paid = callOptions.estimateOnly !== true
      const key = callOptions.idempotencyKey ?? (paid ? crypto.randomUUID() : undefined)
      return send(
        "POST",
        `/api/v1/platforms/${encodeURIComponent(platform)}`,
        envelopeOf(request, callOptions),
        key === undefined ? {} : { "idempotency-key": key }
      )
    }
  }
}

/** The client `createClient` returns. */
export type Client = ReturnType<typeof createClient>
