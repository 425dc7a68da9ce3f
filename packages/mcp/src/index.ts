/** The MCP server over the public API: tools, the server, and its Streamable HTTP handler. */
export * as Client from "./Client.js"
export * as Http from "./Http.js"
export * as McpServer from "./McpServer.js"
export * as Tools from "./Tools.js"
