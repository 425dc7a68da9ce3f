/**
 * How a client that was refused learns how to sign in (issue 23): RFC 9728 (OAuth 2.0 Protected Resource Metadata,
 * https://datatracker.ietf.org/doc/html/rfc9728). Every 401 of the API and of `/mcp` carries
 * `WWW-Authenticate: Bearer resource_metadata="<metadata URL>"` (§5.1), and the metadata document is served at
 * `/.well-known/oauth-protected-resource` (the API) and `/.well-known/oauth-protected-resource/mcp` (the MCP endpoint:
 * §3.1 inserts the well-known path between the host and the resource's path). Its fields are §2's: `resource`,
 * `bearer_methods_supported` (`header`), `resource_name`, `resource_documentation`; there is no OAuth authorization
 * server (no `authorization_servers`): an API key is made on the dashboard, which the documentation URL names.
 */
import { HttpApiBuilder, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Effect } from "effect"

/** The well-known path of the metadata of a resource at `path` (`""` for the API itself). */
export const metadataPath = (path: "" | "/mcp") => `/.well-known/oauth-protected-resource${path}` as const

/** The base URL a request reached, as the client named it (scheme from the proxy's `X-Forwarded-Proto`). */
export const baseOf = (request: HttpServerRequest.HttpServerRequest): string => {
  const proto = request.headers["x-forwarded-proto"] === "https" ? "https" : "http"
  const host = request.headers["host"] ?? "localhost"
  return `${proto}://${host}`
}

/** The challenge of a 401 for the resource at `path`. */
export const challenge = (request: HttpServerRequest.HttpServerRequest, path: "" | "/mcp") =>
  `Bearer realm="pdr", resource_metadata="${baseOf(request)}${metadataPath(path)}"`

/** The metadata document of the resource at `path`. */
export const metadata = (base: string, path: "" | "/mcp") => ({
  resource: `${base}${path}`,
  bearer_methods_supported: ["header"],
  resource_name: path === "/mcp" ? "Platform Data Retrieval API (MCP)" : "Platform Data Retrieval API",
  // how to get a key: an account member makes one on the dashboard (its page links the API's documentation)
  resource_documentation: `${base}/docs`,
  // not in RFC 9728's registry: said plainly for an agent or a person reading the document
  pdr_how_to_get_a_key: `Sign in at ${base}/dashboard and create an API key (key_live_...); send it as "Authorization: Bearer <key>" or "X-API-Key: <key>". There is no OAuth authorization server.`
})

/** Mounts the two metadata documents. */
export const layer = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function* () {
    for (const path of ["", "/mcp"] as const)
      yield* router.get(
        metadataPath(path),
        Effect.map(HttpServerRequest.HttpServerRequest, (request) =>
          HttpServerResponse.unsafeJson(metadata(baseOf(request), path), {
            headers: { "cache-control": "public, max-age=3600" }
          })
        )
      )
  })
)
