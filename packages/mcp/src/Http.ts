/**
 * Streamable HTTP (stateless, JSON responses): each request gets a server for the API key in its `Authorization`
 * header, forwarded to the API and never stored or logged. Web-standard `Request` in, `Response` out, so it mounts on
 * any HTTP server (the public server mounts it at `/mcp`).
 */
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js"
import { createClient } from "./Client.js"
import * as McpServer from "./McpServer.js"

/** The API key of a request: `Authorization: Bearer <key>` (empty when absent: the API then answers 401). */
export const keyOf = (authorization: string | null): string => {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? "")
  return match?.[1] ?? ""
}

/** A handler of MCP requests over Streamable HTTP, calling the API at `baseUrl`. */
export const handler = (options: {
  readonly baseUrl: string
  /**
   * Headers added to the API requests made for one MCP request (the server mounting `/mcp` forwards its caller's
   * address with them, so the API limits each caller by its own address, not by loopback's).
   */
  readonly headersFor?: (request: Request) => Readonly<Record<string, string>>
  /** Retries of a 429 or a lost connection per API request; default 0: a rate-limited tool says how long to wait. */
  readonly maxRetries?: number
}) => {
  // the catalogue is public: read once (without a key) for every caller
  const catalogue = McpServer.catalogueLoader(createClient({ baseUrl: options.baseUrl, apiKey: "" }), options.baseUrl)
  return async (request: Request, parsedBody?: unknown): Promise<Response> => {
    // stateless: no server-initiated stream to open (GET) and no session to end (DELETE)
    if (request.method !== "POST")
      return Response.json(
        { jsonrpc: "2.0", error: { code: -32000, message: "Method not allowed: this endpoint takes POST" }, id: null },
        { status: 405, headers: { allow: "POST" } }
      )
    const extra = options.headersFor?.(request) ?? {}
    const client = createClient({
      baseUrl: options.baseUrl,
      apiKey: keyOf(request.headers.get("authorization")),
      maxRetries: options.maxRetries ?? 0,
      fetch: (input, init) => {
        const headers = new Headers(init?.headers)
        for (const [name, value] of Object.entries(extra)) headers.set(name, value)
        return globalThis.fetch(input, { ...init, headers })
      }
    })
    const server = McpServer.make(client, catalogue, { apiUrl: options.baseUrl })
    // no sessionIdGenerator: stateless, a request carries everything (its key included)
    const transport = new WebStandardStreamableHTTPServerTransport({ enableJsonResponse: true })
    await server.connect(transport)
    try {
      return await transport.handleRequest(request, parsedBody === undefined ? undefined : { parsedBody })
    } finally {
      await server.close()
    }
  }
}
