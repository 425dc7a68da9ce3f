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
  "quote exceeds maxCredits) -> history (free). Every answer states what was charged and what is left."

/** The catalogue, read once through the API and kept; a failed read is retried on the next use. */
export const catalogueLoader = (client: PdrClient) => {
  let loaded: Promise<CatalogueResponse> | undefined
  return (): Promise<CatalogueResponse> => {
    if (loaded === undefined) {
      loaded = client.catalogue().then((r) => {
        if (!r.ok) throw new Error(`the catalogue could not be read: ${r.error.code}: ${r.error.message}`)
        return r.value
      })
      loaded.catch(() => {
        loaded = undefined
      })
    }
    return loaded
  }
}

/** An MCP server whose tools call the API with this client. */
export const make = (
  client: PdrClient,
  catalogue: () => Promise<CatalogueResponse>,
  options: { readonly callWaitSeconds?: number } = {}
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
      all = await toolsOf()
    } catch (e) {
      return errorResult(e instanceof Error ? e.message : String(e))
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
