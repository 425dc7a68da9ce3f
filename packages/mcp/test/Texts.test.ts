// Issue 23 item 3: honest, useful texts. Every op's published example is a valid request (it quotes 200 as it is);
// describe_op states every constraint of the op's schema (enums of arrays, dates, bounds, cross-field rules) and the
// evidence rule for subjects; a history op is described as free and never fetching; the server's instructions say
// where subjects come from; an API that is down is named with its URL and what to check, and `balance` does not wait
// for (or fail with) the catalogue.
import { createServer } from "node:http"
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js"
import * as Testing from "@pdr/store-pg/Testing"
import { account, type Running, start } from "../../../apps/server/test/harness.js"
import { createClient } from "../src/Client.js"
import * as McpServer from "../src/McpServer.js"

const serverUp = await Testing.serverAvailable()

const textOf = (r: Awaited<ReturnType<Client["callTool"]>>) =>
  (r.content as Array<{ type: string; text: string }>).map((c) => c.text).join("\n")

/** An MCP client over an in-memory pair, the server calling the API at `apiUrl` with `key`. */
const connect = async (apiUrl: string, key: string) => {
  const api = createClient({ baseUrl: apiUrl, apiKey: key, maxRetries: 0 })
  const server = McpServer.make(api, McpServer.catalogueLoader(api, apiUrl), { apiUrl })
  const [a, b] = InMemoryTransport.createLinkedPair()
  await server.connect(b)
  const client = new Client({ name: "texts", version: "1.0.0" })
  await client.connect(a)
  const close = async () => {
    await client.close()
    await server.close()
  }
  return { client, close }
}

describe.skipIf(!serverUp)("MCP texts", () => {
  let server: Running
  let key: string
  beforeAll(async () => {
    server = await start()
    key = (await account(server, 1_000)).key
  }, 60_000)
  afterAll(async () => {
    await server?.close()
  })

  it("every published example is a valid request: it quotes 200 as it is", async () => {
    const catalogue = (await (await fetch(`${server.api}/api/v1/platforms`)).json()) as any
    let checked = 0
    for (const p of catalogue.platforms)
      for (const op of p.ops) {
        assert.isDefined(op.example, `${p.platform} ${op.op} has no example`)
        if (!op.available) continue
        const r = await fetch(`${server.api}/api/v1/platforms/${p.platform}`, {
          method: "POST",
          headers: { "x-api-key": key, "content-type": "application/json" },
          body: JSON.stringify({ request: op.example, estimateOnly: true })
        })
        assert.strictEqual(r.status, 200, `${p.platform} ${op.op}: ${await r.text()}`)
        checked++
      }
    assert.isAbove(checked, 60)
  }, 60_000)

  it("describe_op states every constraint, the evidence rule, and that history is free and never fetches", async () => {
    const { client, close } = await connect(server.api, key)
    try {
      const jobs = textOf(
        await client.callTool({ name: "describe_op", arguments: { platform: "jobs_in", op: "search" } })
      )
      // an enum of an array's items
      assert.match(jobs, /workplace \(array[^\n]*each item \(string\): one of onsite, remote, hybrid, temporary_wfh/)
      const reviews = textOf(
        await client.callTool({ name: "describe_op", arguments: { platform: "lodging_booking", op: "reviews" } })
      )
      // a date, and an enum of array items
      assert.match(reviews, /since \(date YYYY-MM-DD\)/)
      assert.match(reviews, /scoreBands \(array[^\n]*one of superb, good, average, poor/)
      assert.match(reviews, /limit \(integer\)[^\n]*1\.\.100/)
      assert.include(reviews, "must come from evidence")
      const posts = textOf(
        await client.callTool({ name: "describe_op", arguments: { platform: "social_network", op: "posts" } })
      )
      assert.include(posts, "Rule: `until` must not be before `since`")
      assert.include(posts, "Example (valid as it is")
      const history = textOf(
        await client.callTool({ name: "describe_op", arguments: { platform: "social_network", op: "history" } })
      )
      assert.include(history, "free and never fetches")
      assert.notInclude(history, "then call with maxCredits")
      assert.include(client.getInstructions() ?? "", "must come from evidence")
    } finally {
      await close()
    }
  })

  it("an API that is down is named with its URL and what to check; balance never waits for the catalogue", async () => {
    // nothing listens on this port
    const probe = createServer()
    await new Promise<void>((r) => probe.listen(0, "127.0.0.1", () => r()))
    const port = (probe.address() as { port: number }).port
    await new Promise<void>((r) => probe.close(() => r()))
    const down = `http://127.0.0.1:${port}`
    const gone = await connect(down, key)
    try {
      const b = await gone.client.callTool({ name: "balance", arguments: {} })
      assert.strictEqual(b.isError, true)
      assert.include(textOf(b), `the API at ${down} could not be reached`)
      assert.include(textOf(b), "PDR_API_URL")
      const d = await gone.client.callTool({ name: "describe_op", arguments: { platform: "maps", op: "places" } })
      assert.strictEqual(d.isError, true)
      assert.include(textOf(d), `the API at ${down} could not be reached`)
    } finally {
      await gone.close()
    }
    // an API whose catalogue fails while the account answers: balance still works
    const half = createServer((req, res) => {
      if (req.url === "/api/v1/balance") {
        res.writeHead(200, { "content-type": "application/json" })
        res.end(JSON.stringify({ creditsRemaining: 42, requestId: "req_x" }))
        return
      }
      res.writeHead(500, { "content-type": "application/json" })
      res.end(JSON.stringify({ error: { code: "internal", message: "boom", requestId: "req_y" } }))
    })
    await new Promise<void>((r) => half.listen(0, "127.0.0.1", () => r()))
    const url = `http://127.0.0.1:${(half.address() as { port: number }).port}`
    const partial = await connect(url, key)
    try {
      const b = await partial.client.callTool({ name: "balance", arguments: {} })
      assert.notStrictEqual(b.isError, true, textOf(b))
      assert.include(textOf(b), "42 credits left")
    } finally {
      await partial.close()
      half.close()
    }
  })
})
