/**
 * `/mcp` on the public listener: the MCP server (`@pdr/mcp`) over Streamable HTTP. It calls this server's own public
 * API over loopback with the key of each request's `Authorization` header, like any other client (no second path
 * into the core); the key is forwarded, never stored or logged. Each loopback request carries its caller's address,
 * vouched for by this process's secret (Forwarding), so the API limits every `/mcp` caller by its own address.
 */
import { HttpApiBuilder, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Http } from "@pdr/mcp"
import { Effect } from "effect"
import * as Forwarding from "./Forwarding.js"

// the caller's address, handed from this route to the handler beside the request (never read from the client)
const callerHeader = "x-pdr-mcp-caller"

const forwarded = ["accept", "authorization", "content-type", "mcp-protocol-version", "mcp-session-id", "last-event-id"]

/** Mounts `/mcp`, calling the public API at the URL `baseUrl` yields (this server's own address). */
export const layer = <E, R>(baseUrl: Effect.Effect<string, E, R>) =>
  HttpApiBuilder.Router.use((router) =>
    Effect.gen(function* () {
      const base = yield* Effect.orDie(baseUrl)
      const handle = Http.handler({
        baseUrl: base,
        headersFor: (web) => Forwarding.headersFor(web.headers.get(callerHeader) ?? "unknown")
      })
      yield* router.all(
        "/mcp",
        Effect.gen(function* () {
          const request = yield* HttpServerRequest.HttpServerRequest
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
