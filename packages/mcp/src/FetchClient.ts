/**
 * TEMPORARY: a minimal fetch implementation of the `@pdr/client` Promise API, used until that package (branch i9c)
 * is merged; it is then replaced by `createClient` from `@pdr/client` and this file is deleted.
 */
import type { ApiError, CallOptions, MakeClient, Result } from "./Client.js"

const request = async <T>(url: string, init: RequestInit): Promise<Result<T>> => {
  try {
    const res = await fetch(url, init)
    const text = await res.text()
    let body: { readonly requestId?: string; readonly error?: ApiError } | undefined
    try {
      body = JSON.parse(text)
    } catch {
      body = undefined
    }
    const requestId = res.headers.get("x-request-id") ?? body?.requestId ?? body?.error?.requestId ?? ""
    if (res.ok) return { ok: true, status: res.status, value: body as T, requestId, headers: res.headers }
    const error: ApiError =
      body?.error && typeof body.error.code === "string"
        ? body.error
        : { code: "http_error", message: `HTTP ${res.status}: ${text.slice(0, 200)}`, requestId }
    return { ok: false, status: res.status, error, requestId, headers: res.headers }
  } catch (cause) {
    const message = `the API at ${url} could not be reached: ${cause instanceof Error ? cause.message : String(cause)}`
    return { ok: false, status: 0, error: { code: "unreachable", message, requestId: "" }, requestId: "", headers: {} }
  }
}

/** A client over `fetch` with the caller's key. */
export const createClient: MakeClient = ({ baseUrl, apiKey }) => {
  const base = baseUrl.replace(/\/+$/, "")
  const auth = { authorization: `Bearer ${apiKey}` }
  return {
    catalogue: () => request(`${base}/api/v1/platforms`, { method: "GET" }),
    balance: () => request(`${base}/api/v1/balance`, { method: "GET", headers: auth }),
    call: (platform: string, body: Record<string, unknown>, options: CallOptions = {}) =>
      request(`${base}/api/v1/platforms/${encodeURIComponent(platform)}`, {
        method: "POST",
        headers: {
          ...auth,
          "content-type": "application/json",
          ...(options.idempotencyKey === undefined ? {} : { "idempotency-key": options.idempotencyKey })
        },
        body: JSON.stringify({
          request: body,
          ...(options.estimateOnly === undefined ? {} : { estimateOnly: options.estimateOnly }),
          ...(options.maxCredits === undefined ? {} : { maxCredits: options.maxCredits })
        })
      })
  }
}
