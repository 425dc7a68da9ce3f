/**
 * `/mcp` on the public listener: the MCP server (`@pdr/mcp`) over Streamable HTTP. It calls this server's own public
 * API over loopback with the key of each request's `Authorization` header, like any other client (no second path
 * into the core); the key is forwarded, never stored or logged. Each loopback request carries its caller's address,
 * vouched for by this process's secret (Forwarding), so the API limits every `/mcp` caller by its own address.
 */
import { HttpApiBuilder, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Keys, RateLimits } from "@pdr/domain"
import type { Http } from "@pdr/mcp"
import { Effect, Either } from "effect"
import * as Discovery from "./Discovery.js"
import * as Forwarding from "./Forwarding.js"

// the caller's address, handed from this route to the handler beside the request (never read from the client)
const callerHeader = "x-pdr-mcp-caller"

const forwarded = ["accept", "authorization", "content-type", "mcp-protocol-version", "mcp-session-id", "last-event-id"]

/** Whether an `Origin` may call `/mcp`: loopback's, PUBLIC_URL's and the configured ones (never by the Host header). */
export const originAllowed = (origin: string, allowed: ReadonlyArray<string>): boolean => {
  let url: URL
  try {
    url = new URL(origin)
  } catch {
    return false
  }
  const host = url.hostname
  if (host === "localhost" || host === "[::1]" || /^127\.\d+\.\d+\.\d+$/.test(host)) return true
  return allowed.some((a) => {
    try {
      return new URL(a).origin === url.origin
    } catch {
      return false
    }
  })
}

/** A JSON-RPC error with no id (the MCP transport's answer to a request refused before it was read). */
const refused = (status: number, message: string, headers: Record<string, string> = {}) =>
  HttpServerResponse.unsafeJson({ jsonrpc: "2.0", error: { code: -32000, message }, id: null }, { status, headers })

/** Mounts `/mcp`, calling the public API at the URL `baseUrl` yields (this server's own address). */
export const layer = <E, R>(
  baseUrl: Effect.Effect<string, E, R>,
  options: { readonly allowedOrigins: ReadonlyArray<string> }
) =>
  HttpApiBuilder.Router.use((router) =>
    Effect.gen(function* () {
      const base = yield* Effect.orDie(baseUrl)
      const keys = yield* Keys.Keys
      const limits = yield* RateLimits.RateLimits
      // the MCP SDK (and the schema libraries it brings, about 6 MB of heap) is loaded with the first `/mcp` call
      // (issue 22: not at start)
      let handler: Promise<ReturnType<typeof Http.handler>> | undefined
      const handle = (web: Request) => {
        if (handler === undefined)
          handler = import("@pdr/mcp").then(({ Http }) =>
            Http.handler({
              baseUrl: base,
              headersFor: (request) => Forwarding.headersFor(request.headers.get(callerHeader) ?? "unknown")
            })
          )
        return handler.then((h) => h(web))
      }
      yield* router.all(
        "/mcp",
        Effect.gen(function* () {
          const request = yield* HttpServerRequest.HttpServerRequest
          // MCP Streamable HTTP, Security: "Servers MUST validate the Origin header on all incoming connections to
          // prevent DNS rebinding attacks. If the Origin header is present and invalid, servers MUST respond with HTTP
          // 403 Forbidden." A request without Origin (not a browser) passes.
          const origin = request.headers["origin"]
          if (origin !== undefined && !originAllowed(origin, options.allowedOrigins))
            return refused(
              403,
              `Forbidden: the origin ${origin} may not call /mcp (MCP_ALLOWED_ORIGINS lists those that may)`
            )
          // a key that is sent is checked here, so a refused one is a 401 naming how to sign in (RFC 9728) rather
          // than a tool error; without a key the catalogue tools still work. D12's limit on failed authentications
          // applies per caller address, as on the API.
          const authorization = request.headers["authorization"]
          if (request.method === "POST" && authorization !== undefined) {
            const address = Forwarding.clientAddress(request)
            const gate = yield* limits.failedAuth.peek(address)
            if (!gate.allowed)
              return refused(
                429,
                "Too many failed authentications from this address; retry after Retry-After seconds",
                {
                  "retry-after": String(Math.max(1, gate.resetSeconds))
                }
              )
            const known = yield* Effect.either(keys.authenticate({ apiKey: undefined, authorization }))
            if (Either.isLeft(known)) {
              yield* limits.failedAuth.take(address)
              return refused(401, "Unauthorized: the API key was refused (send Authorization: Bearer <key>)", {
                "www-authenticate": Discovery.challenge(request, "/mcp")
              })
            }
          }
          const body = request.method === "POST" ? yield* request.text : undefined
          const headers = new Headers()
          headers.set(callerHeader, Forwarding.clientAddress(request))
          for (const name of forwarded) {
            const value = request.headers[name]
            if (value !== undefined) headers.set(name, value)
          }
          const web = new Request(`${base}/mcp`, {
            method: request.method,
            headers,
            ...(body === undefined ? {} : { body })
          })
          return HttpServerResponse.fromWeb(yield* Effect.promise(() => handle(web)))
        })
      )
    })
  )
