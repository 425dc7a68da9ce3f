/**
 * `pnpm mcp`: the MCP server over stdio. The API key comes from PDR_API_KEY, the API's base URL from PDR_API_URL
 * (default http://127.0.0.1:8080). Nothing is written to stdout but the protocol; diagnostics go to stderr.
 */
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js"
import { createClient } from "./Client.js"
import * as McpServer from "./McpServer.js"

const apiKey = process.env["PDR_API_KEY"] ?? ""
const baseUrl = process.env["PDR_API_URL"] ?? "http://127.0.0.1:8080"
if (apiKey === "") console.error("[pdr-mcp] PDR_API_KEY is not set: paid and account tools will answer unauthorized")

const client = createClient({ baseUrl, apiKey })
// issue 21: how long a call waits for its answer before the tool follows it asynchronously (PDR_MCP_CALL_WAIT_S)
const wait = process.env["PDR_MCP_CALL_WAIT_S"]
const server = McpServer.make(client, McpServer.catalogueLoader(client, baseUrl), {
  apiUrl: baseUrl,
  ...(wait === undefined || wait === "" ? {} : { callWaitSeconds: Number(wait) })
})
await server.connect(new StdioServerTransport())
console.error(`[pdr-mcp] serving over stdio, API at ${baseUrl}`)
