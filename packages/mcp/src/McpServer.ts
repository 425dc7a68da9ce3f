/**
 * The MCP server (official TypeScript SDK, low-level `Server`): the tools are declared with the catalogue's own
 * JSON Schemas as input schemas, output schemas, annotations and structured content. One server per API key.
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js"
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js"
import type { CatalogueResponse, PdrClient } from "./Client.js"
import * as Tools from "./Tools.js"

/** This server's name and version, as MCP clients see them. */
export const info = { name: "pdr", title: "Platform Data Retrieval API", version: "0.1.0" } as const

const instructions =
  "Measured public data about entities on many platforms, billed in credits. Flow: list_platforms -> describe_op -> " +
  "quote (free, exact and binding) -> call with maxCredits (never billed above the quote; refused, unbilled, if the " +
  "quote exceeds maxCredits) -> history (free, never fetches, no maxCredits). Every answer states what was charged " +
  "and what is left, and its callId: read_rows reads every row of an answer cut to fit, free. " +
  Tools.evidenceRule

/** What a model is told when the API cannot be reached: the URL tried and what to check. */
export const unreachableText = (apiUrl: string, cause: unknown) =>
  `the API at ${apiUrl} could not be reached (${cause instanceof Error ? cause.message : String(cause)}): check that the service is running there and that PDR_API_URL (stdio) or the server's own address names it`

/** The catalogue, read once through the API and kept; a failed read is retried on the next use. */
export const catalogueLoader = (client: PdrClient, apiUrl = "the configured URL") => {
  let loaded: Promise<CatalogueResponse> | undefined
  return (): Promise<CatalogueResponse> => {
    if (loaded === undefined) {
      loaded = client.catalogue().then(
        (r) => {
          if (!r.ok)
            throw new Error(
              `the catalogue could not be read from ${apiUrl}/api/v1/platforms: ${r.error.code}: ${r.error.message}`
            )
          return r.value
        },
        (cause) => {
          throw new Error(unreachableText(apiUrl, cause))
        }
      )
      loaded.catch(() => {
        loaded = undefined
      })
    }
    return loaded
  }
}

/** Tools that need no catalogue: they answer even while the catalogue cannot be read. */
const withoutCatalogue = new Set(["balance", "collect_call", "read_rows"])

/** An MCP server whose tools call the API with this client. */
export const make = (
  client: PdrClient,
  catalogue: () => Promise<CatalogueResponse>,
  options: { readonly callWaitSeconds?: number; readonly apiUrl?: string } = {}
): Server => {
  const server = new Server(info, { capabilities: { tools: {} }, instructions })
  let tools: Promise<ReadonlyArray<Tools.Tool>> | undefined
  const toolsOf = () => {
    if (tools === undefined) {
      tools = catalogue().then((c) => Tools.make(client, c, options))
      tools.catch(() => {
        tools = undefined
      })
    }
    return tools
  }
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: (await toolsOf()).map((t) => ({
      name: t.name,
      title: t.title,
      description: t.description,
      inputSchema: t.inputSchema as { type: "object" },
      outputSchema: t.outputSchema as { type: "object" },
      annotations: t.annotations
    }))
  }))
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    let all: ReadonlyArray<Tools.Tool>
    try {
      // issue 23: the account's own tools never wait for the catalogue (nor fail with it)
      all = withoutCatalogue.has(request.params.name)
        ? Tools.make(client, { platforms: [] } as unknown as CatalogueResponse, options)
        : await toolsOf()
    } catch (e) {
      return errorResult(`Error unreachable: ${e instanceof Error ? e.message : String(e)}. Nothing was charged.`)
    }
    const tool = all.find((t) => t.name === request.params.name)
    if (!tool)
      return errorResult(
        `Error unknown_tool: "${request.params.name}" is not a tool of this server; valid values: ${all.map((t) => t.name).join(", ")}`
      )
    try {
      // issue 21: the client's cancellation and its progress token reach the tool
      const token = request.params._meta?.progressToken
      return await tool.run(request.params.arguments ?? {}, {
        signal: extra.signal,
        ...(token === undefined
          ? {}
          : {
              progress: (progress, total, message) =>
                extra.sendNotification({
                  method: "notifications/progress",
                  params: { progressToken: token, progress, ...(total === undefined ? {} : { total }), message }
                })
            })
      })
    } catch (e) {
      return errorResult(`Error internal: ${e instanceof Error ? e.message : String(e)}. Nothing was charged.`)
    }
  })
  return server
}

const errorResult = (message: string) => ({ content: [{ type: "text" as const, text: message }], isError: true })
