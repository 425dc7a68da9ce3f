/**
 * `/mcp` on the public listener: the MCP server (`@pdr/mcp`) over Streamable HTTP. It calls this server's own public
 * API over loopback with the key of each request's `Authorization` header, like any other client (no second path
 * into the core); the key is forwarded, never stored or logged.
 */
import { HttpApiBuilder, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Http } from "@pdr/mcp"
import { Effect } from "effect"

const forwarded = ["accept", "authorization", "content-type", "mcp-protocol-version", "mcp-session-id", "last-event-id"]

/** Mounts `/mcp`, calling the public API at the URL `baseUrl` yields (this server's own address). */
export const layer = <E, R>(baseUrl: Effect.Effect<string, E, R>) =>
  HttpApiBuilder.Router.use((router) =>
    Effect.gen(function* () {
      const base = yield* Effect.orDie(baseUrl)
      const handle = Http.handler({ baseUrl: base })
      yield* router.all(
        "/mcp",
        Effect.gen(function* () {
          const request = yield* HttpServerRequest.HttpServerRequest
          const body = request.method === "POST" ? yield* request.text : undefined
          const headers = new Headers()
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
