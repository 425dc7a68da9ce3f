// Prints a real agent session for the README: the real server on PostgreSQL (a fresh schema), the MCP server over
// stdio (`src/main.ts`), and the SDK's Client calling its tools. Run: pnpm --filter @pdr/mcp transcript
import { fileURLToPath } from "node:url"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import { account, start } from "../../../apps/server/test/harness.js"

const server = await start()
try {
  const { key } = await account(server, 100, "agent")
  const client = new Client({ name: "transcript", version: "1.0.0" })
  await client.connect(
    new StdioClientTransport({
      command: fileURLToPath(new URL("../node_modules/.bin/tsx", import.meta.url)),
      args: ["--conditions=@pdr/source", fileURLToPath(new URL("../src/main.ts", import.meta.url))],
      env: { PATH: process.env["PATH"] ?? "", PDR_API_KEY: key, PDR_API_URL: server.api },
      stderr: "pipe"
    })
  )
  const { tools } = await client.listTools()
  console.log(`tools/list -> ${tools.map((t) => t.name).join(", ")}\n`)
  const show = async (name: string, args: Record<string, unknown>) => {
    const r = await client.callTool({ name, arguments: args })
    const text = (r.content as Array<{ text: string }>).map((c) => c.text).join("\n")
    console.log(`> ${name} ${JSON.stringify(args)}${r.isError ? "  [isError]" : ""}\n${text}\n`)
  }
  const request = {
    op: "places",
    subjects: ["ChIJN1t_tDeuEmsRUsoyG83frY4", "https://maps.example/?cid=12345678901234567890"]
  }
  await show("describe_op", { platform: "maps", op: "places" })
  await show("quote", { platform: "maps", request, maxCredits: 10 })
  await show("call", { platform: "maps", request, maxCredits: 8 })
  await show("call", { platform: "maps", request: { op: "places", subjects: ["ChIJabcdefghijkl"] }, maxCredits: 3 })
  await show("call", { platform: "maps", request: { op: "plaices", subjects: ["ChIJabcdefghijkl"] }, maxCredits: 3 })
  await show("history", { platform: "maps", request: { subjects: [request.subjects[0]], metric: "rating", days: 30 } })
  await show("balance", {})
  await client.close()
} finally {
  await server.close()
}
