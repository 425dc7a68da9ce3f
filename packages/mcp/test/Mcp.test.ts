// The MCP server driven by the SDK's own Client over both transports (stdio: the `pnpm mcp` process spawned; Streamable
// HTTP: `/mcp` on the public server), against the real server on PostgreSQL: a small fixed tool set, describe, a
// free quote, a call billed its quote within its cap (D18) and refused above it, tool errors the model can act on,
// free history. Balances are read from the API itself, never from the tool being tested.
import { fileURLToPath } from "node:url"
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { Catalogue, Examples } from "@pdr/domain"
import * as Testing from "@pdr/store-pg/Testing"
import { account, balance, type Running, start } from "../../../apps/server/test/harness.js"
import * as Tools from "../src/Tools.js"

const serverUp = await Testing.serverAvailable()

const tsx = fileURLToPath(new URL("../node_modules/.bin/tsx", import.meta.url))
const main = fileURLToPath(new URL("../src/main.ts", import.meta.url))

// a paid per-subject op of a platform that also keeps history
const op = Examples.paidOps.find(
  (o) =>
    o.price._tag === "PerSubject" &&
    o.units === "subjects" &&
    o.freshSeconds !== null &&
    Catalogue.historyOp(o.platform) !== undefined
)!
const base = Examples.minimal(op)
const requestWith = (...subjects: Array<string>) => ({ ...base, subjects })

interface Transport {
  readonly name: string
  readonly connect: (server: Running, key: string) => Promise<Client>
}

const transports: ReadonlyArray<Transport> = [
  {
    name: "stdio",
    connect: async (server, key) => {
      const client = new Client({ name: "pdr-test", version: "1.0.0" })
      await client.connect(
        new StdioClientTransport({
          command: tsx,
          args: ["--conditions=@pdr/source", main],
          env: { PATH: process.env["PATH"] ?? "", PDR_API_KEY: key, PDR_API_URL: server.api },
          stderr: "pipe"
        })
      )
      return client
    }
  },
  {
    name: "Streamable HTTP",
    connect: async (server, key) => {
      const client = new Client({ name: "pdr-test", version: "1.0.0" })
      await client.connect(
        new StreamableHTTPClientTransport(new URL(`${server.api}/mcp`), {
          requestInit: { headers: { authorization: `Bearer ${key}` } }
        })
      )
      return client
    }
  }
]

const textOf = (r: Awaited<ReturnType<Client["callTool"]>>) =>
  (r.content as Array<{ type: string; text: string }>).map((c) => c.text).join("\n")

describe.skipIf(!serverUp)("MCP server over the public API", () => {
  let server: Running
  const clients: Array<Client> = []
  beforeAll(async () => {
    server = await start()
  }, 60_000)
  afterAll(async () => {
    for (const c of clients) await c.close().catch(() => {})
    await server?.close()
  })

  it("Streamable HTTP is stateless: GET (no server stream) is 405, a bare POST answers with no session", async () => {
    const get = await fetch(`${server.api}/mcp`, { headers: { accept: "text/event-stream" } })
    assert.strictEqual(get.status, 405)
    assert.strictEqual(get.headers.get("allow"), "POST")
    const post = await fetch(`${server.api}/mcp`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 7, method: "tools/list" })
    })
    assert.strictEqual(post.status, 200)
    assert.isNull(post.headers.get("mcp-session-id"))
    const body = (await post.json()) as { id: number; result: { tools: Array<unknown> } }
    assert.strictEqual(body.id, 7)
    assert.strictEqual(body.result.tools.length, 8)
  })

  it("Streamable HTTP without an Authorization header: the catalogue tools work, the account tools say unauthorized", async () => {
    const anonymous = new Client({ name: "pdr-test", version: "1.0.0" })
    await anonymous.connect(new StreamableHTTPClientTransport(new URL(`${server.api}/mcp`)))
    clients.push(anonymous)
    const listed = await anonymous.callTool({ name: "list_platforms", arguments: { platform: op.platform } })
    assert.notStrictEqual(listed.isError, true, textOf(listed))
    assert.include(textOf(listed), op.name)
    const r = await anonymous.callTool({ name: "balance", arguments: {} })
    assert.strictEqual(r.isError, true)
    assert.include(textOf(r), "unauthorized")
    assert.include(textOf(r), "Authorization: Bearer")
  })

  transports.forEach((transport, t) => {
    describe(transport.name, () => {
      let client: Client
      let key: string
      // distinct subjects per transport, so each one's first call is a fetch
      const s = (i: number) => Examples.subject(op, 10 * (t + 1) + i)
      beforeAll(async () => {
        key = (await account(server, 1000, `mcp-${t}`)).key
        client = await transport.connect(server, key)
        clients.push(client)
      }, 60_000)

      it("lists a small fixed set of tools, with output schemas and annotations saying which spend", async () => {
        const { tools } = await client.listTools()
        assert.isAtMost(tools.length, 8)
        assert.deepStrictEqual(tools.map((x) => x.name).sort(), [
          "balance",
          "call",
          "collect_call",
          "describe_op",
          "history",
          "list_platforms",
          "quote",
          "read_rows"
        ])
        for (const tool of tools) assert.isDefined(tool.outputSchema, tool.name)
        const byName = new Map(tools.map((x) => [x.name, x]))
        assert.strictEqual(byName.get("call")?.annotations?.readOnlyHint, false)
        assert.strictEqual(byName.get("call")?.annotations?.destructiveHint, false)
        assert.deepStrictEqual(byName.get("call")?.inputSchema.required, ["platform", "request", "maxCredits"])
        for (const name of [
          "list_platforms",
          "describe_op",
          "quote",
          "history",
          "balance",
          "collect_call",
          "read_rows"
        ])
          assert.strictEqual(byName.get(name)?.annotations?.readOnlyHint, true, name)
        const platforms = (byName.get("quote")!.inputSchema.properties!["platform"] as { enum: Array<string> }).enum
        assert.deepStrictEqual(
          platforms,
          Catalogue.platforms.map((p) => p.id)
        )
      })

      it("describes an op from its request schema, with an example", async () => {
        const r = await client.callTool({ name: "describe_op", arguments: { platform: op.platform, op: op.name } })
        assert.notStrictEqual(r.isError, true, textOf(r))
        const out = r.structuredContent as any
        assert.strictEqual(out.op, op.name)
        const subjects = out.fields.find((f: any) => f.name === "subjects")
        assert.strictEqual(subjects.required, true)
        assert.strictEqual(subjects.maxItems, Examples.maxSubjects(op))
        assert.strictEqual(out.example.request.op, op.name)
        assert.include(textOf(r), "subjects")
        assert.include(textOf(r), `${op.price._tag === "PerSubject" ? op.price.credits : ""} credits`)
      })

      it("a quote spends nothing and names the price per subject", async () => {
        const before = await balance(server, key)
        const r = await client.callTool({
          name: "quote",
          arguments: { platform: op.platform, request: requestWith(s(0), s(1)), maxCredits: 1 }
        })
        assert.notStrictEqual(r.isError, true, textOf(r))
        const out = r.structuredContent as any
        assert.isAbove(out.quote, 1)
        assert.strictEqual(out.fitsMaxCredits, false)
        assert.strictEqual(out.coverage.length, 2)
        assert.include(textOf(r), `Quote: ${out.quote} credits`)
        assert.include(textOf(r), "Charged 0 credits")
        assert.include(textOf(r), "would be fetched now")
        assert.strictEqual(await balance(server, key), before)
      })

      it("a replayed idempotencyKey is labelled a replay, charged 0 now", async () => {
        const request = requestWith(s(77))
        const quoted = await client.callTool({ name: "quote", arguments: { platform: op.platform, request } })
        const quote = (quoted.structuredContent as any).quote as number
        const idempotencyKey = `replay-${transport.name.replace(/\W/g, "")}-${Date.now()}`
        const first = await client.callTool({
          name: "call",
          arguments: { platform: op.platform, request, maxCredits: quote, idempotencyKey }
        })
        assert.notStrictEqual(first.isError, true, textOf(first))
        const before = await balance(server, key)
        const again = await client.callTool({
          name: "call",
          arguments: { platform: op.platform, request, maxCredits: quote, idempotencyKey }
        })
        assert.notStrictEqual(again.isError, true, textOf(again))
        assert.include(textOf(again), "Replayed the earlier answer of this idempotencyKey: charged 0 credits now")
        assert.strictEqual((again.structuredContent as any).creditsCharged, 0)
        assert.strictEqual((again.structuredContent as any).replayed, true)
        assert.strictEqual(await balance(server, key), before)
      })

      it("a call within its cap bills the quote; its text names the charge, what is left, and each subject", async () => {
        const request = requestWith(s(0), s(1))
        const quoted = await client.callTool({ name: "quote", arguments: { platform: op.platform, request } })
        const quote = (quoted.structuredContent as any).quote as number
        const before = await balance(server, key)
        const r = await client.callTool({
          name: "call",
          arguments: { platform: op.platform, request, maxCredits: quote }
        })
        assert.notStrictEqual(r.isError, true, textOf(r))
        const after = await balance(server, key)
        assert.strictEqual(after, before - quote)
        const out = r.structuredContent as any
        assert.strictEqual(out.creditsCharged, quote)
        assert.strictEqual(out.creditsRemaining, after)
        assert.include(textOf(r), `Charged ${quote} credits (cap ${quote}); ${after} credits left.`)
        // subjects are named as the API normalized them
        for (const c of out.coverage) assert.include(textOf(r), `- ${c.subject}: fetched now, measured ${c.measuredAt}`)
        assert.isAbove(out.rows.length, 0)
        // the same call again is served from storage, free
        const again = await client.callTool({
          name: "call",
          arguments: { platform: op.platform, request, maxCredits: 0 }
        })
        assert.notStrictEqual(again.isError, true, textOf(again))
        assert.include(textOf(again), `Charged 0 credits (cap 0); ${after} credits left.`)
        for (const c of out.coverage)
          assert.include(textOf(again), `- ${c.subject}: served from storage, measured ${c.measuredAt}`)
        assert.strictEqual(await balance(server, key), after)
      })

      it("a call above its cap is refused and bills nothing; a call without a cap is refused", async () => {
        const request = requestWith(s(2), s(3))
        const before = await balance(server, key)
        const r = await client.callTool({ name: "call", arguments: { platform: op.platform, request, maxCredits: 1 } })
        assert.strictEqual(r.isError, true)
        assert.include(textOf(r), "quote_above_max_credits")
        assert.include(textOf(r), "Nothing was charged")
        assert.match(textOf(r), /Call again with maxCredits >= \d+/)
        const uncapped = await client.callTool({ name: "call", arguments: { platform: op.platform, request } })
        assert.strictEqual(uncapped.isError, true)
        assert.include(textOf(uncapped), "`maxCredits` is required")
        assert.strictEqual(await balance(server, key), before)
      })

      it("a bad field, an unknown op and an unknown platform are tool errors naming the field and the valid values", async () => {
        const before = await balance(server, key)
        const bad = await client.callTool({
          name: "quote",
          arguments: { platform: op.platform, request: { ...base, subjects: [] } }
        })
        assert.strictEqual(bad.isError, true)
        assert.include(textOf(bad), "field `request.subjects`")
        const badCap = await client.callTool({
          name: "call",
          arguments: { platform: op.platform, request: requestWith(s(5)), maxCredits: -1 }
        })
        assert.strictEqual(badCap.isError, true)
        assert.include(textOf(badCap), "field `maxCredits`")
        const unknown = await client.callTool({
          name: "call",
          arguments: { platform: op.platform, request: { op: "nope" }, maxCredits: 5 }
        })
        assert.strictEqual(unknown.isError, true)
        assert.include(textOf(unknown), "unknown_op")
        for (const name of Catalogue.findPlatform(op.platform)!.ops.map((o) => o.name))
          assert.include(textOf(unknown), name)
        const platform = await client.callTool({
          name: "describe_op",
          arguments: { platform: "nowhere", op: op.name }
        })
        assert.strictEqual(platform.isError, true)
        assert.include(textOf(platform), op.platform)
        const badOp = await client.callTool({ name: "describe_op", arguments: { platform: op.platform, op: "nope" } })
        assert.strictEqual(badOp.isError, true)
        assert.include(
          textOf(badOp),
          `valid values: ${Catalogue.findPlatform(op.platform)!
            .ops.map((o) => o.name)
            .join(", ")}`
        )
        assert.strictEqual(await balance(server, key), before)
      })

      it("history is free and says per subject what is stored", async () => {
        const before = await balance(server, key)
        const r = await client.callTool({
          name: "history",
          arguments: { platform: op.platform, request: { ...base, op: undefined, subjects: [s(0), s(9)] } }
        })
        assert.notStrictEqual(r.isError, true, textOf(r))
        const out = r.structuredContent as any
        assert.strictEqual(out.creditsCharged, 0)
        assert.strictEqual(out.coverage.length, 2)
        assert.include(textOf(r), `Charged 0 credits; ${before} credits left.`)
        assert.strictEqual(out.coverage[1].reason, "not_found")
        assert.include(textOf(r), `- ${out.coverage[1].subject}: omitted (not_found)`)
        assert.strictEqual(await balance(server, key), before)
      })

      it("a large answer is cut under the row budget, saying how many rows were left out and how to get them", async () => {
        // maps search at its largest limit answers about 50 KB of rows
        const search = Catalogue.findPlatform("maps")!.ops.find((o) => o.name === "search")!
        const request = { ...Examples.minimal(search), limit: Examples.rowsBounds(search)[1] }
        const quoted = await client.callTool({ name: "quote", arguments: { platform: "maps", request } })
        assert.notStrictEqual(quoted.isError, true, textOf(quoted))
        const quote = (quoted.structuredContent as any).quote as number
        const before = await balance(server, key)
        const r = await client.callTool({ name: "call", arguments: { platform: "maps", request, maxCredits: quote } })
        assert.notStrictEqual(r.isError, true, textOf(r))
        const out = r.structuredContent as any
        // the synthetic upstream may deliver a shorter list than asked (and say so in coverage): billed for what came
        if (out.coverage[0].rows === request.limit) assert.strictEqual(out.creditsCharged, quote)
        else assert.isBelow(out.creditsCharged, quote)
        assert.strictEqual(await balance(server, key), before - out.creditsCharged)
        assert.strictEqual(out.rowsTotal, out.coverage[0].rows)
        assert.isAbove(out.rowsOmitted, 0)
        assert.strictEqual(out.rows.length + out.rowsOmitted, out.rowsTotal)
        assert.isAtMost(Buffer.byteLength(JSON.stringify(out.rows)), Tools.rowBudgetBytes)
        assert.include(textOf(r), `${out.rows.length} of ${out.rowsTotal} shown; ${out.rowsOmitted} row(s) left out`)
        // issue 23: every paid row is reachable, free: read_rows from the offset the cut answer names, page by page
        assert.include(textOf(r), `read_rows {"callId":"${out.callId}","offset":${out.rows.length}}`)
        assert.strictEqual(out.nextOffset, out.rows.length)
        const rows: Array<unknown> = [...out.rows]
        let offset: number | undefined = out.nextOffset
        let pages = 0
        while (offset !== undefined) {
          const page = await client.callTool({ name: "read_rows", arguments: { callId: out.callId, offset } })
          assert.notStrictEqual(page.isError, true, textOf(page))
          const p = page.structuredContent as any
          assert.strictEqual(p.offset, offset)
          assert.isAtMost(Buffer.byteLength(JSON.stringify(p.rows)), Tools.rowBudgetBytes)
          rows.push(...p.rows)
          offset = p.nextOffset
          pages++
        }
        assert.isAbove(pages, 0)
        assert.strictEqual(rows.length, out.rowsTotal)
        // the same rows as the API's own answer of that call, in order, and nothing billed again
        const collected = (await (
          await fetch(`${server.api}/api/v1/calls/${out.callId}`, { headers: { "x-api-key": key } })
        ).json()) as any
        assert.deepStrictEqual(rows, collected.data)
        assert.strictEqual(await balance(server, key), before - out.creditsCharged)
        // the columns asked for only; a column the rows do not have is a tool error naming the valid ones
        const narrow = await client.callTool({
          name: "read_rows",
          arguments: { callId: out.callId, offset: 0, limit: 3, fields: ["name"] }
        })
        assert.notStrictEqual(narrow.isError, true, textOf(narrow))
        assert.deepStrictEqual(
          (narrow.structuredContent as any).rows,
          collected.data.slice(0, 3).map((row: any) => ({ name: row.name }))
        )
        const wrong = await client.callTool({
          name: "read_rows",
          arguments: { callId: out.callId, fields: ["name", "nosuchcolumn"] }
        })
        assert.strictEqual(wrong.isError, true)
        assert.include(textOf(wrong), "nosuchcolumn")
        assert.include(textOf(wrong), "Valid columns: ")
        assert.include(textOf(wrong), "name")
        // an unknown call id answers the API's one 404 (the same for another account's or an expired call)
        const unknown = await client.callTool({ name: "read_rows", arguments: { callId: "call_00000000000000000000" } })
        assert.strictEqual(unknown.isError, true)
        assert.include(textOf(unknown), "404")
        assert.strictEqual(await balance(server, key), before - out.creditsCharged)
      })

      it("a bad key is a tool error (stdio) or a 401 naming how to sign in (HTTP), and the server keeps serving", async () => {
        if (transport.name !== "stdio") {
          // over HTTP a refused key is answered before any tool runs: 401 with RFC 9728's WWW-Authenticate
          const r = await fetch(`${server.api}/mcp`, {
            method: "POST",
            headers: {
              authorization: "Bearer key_live_00000000000000000000000000000000",
              "content-type": "application/json",
              accept: "application/json, text/event-stream"
            },
            body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" })
          })
          assert.strictEqual(r.status, 401)
          const challenge = r.headers.get("www-authenticate") ?? ""
          assert.match(
            challenge,
            /^Bearer realm="pdr", resource_metadata="http:\/\/[^"]+\/\.well-known\/oauth-protected-resource\/mcp"$/
          )
          const meta = (await (await fetch(/resource_metadata="([^"]+)"/.exec(challenge)![1]!)).json()) as any
          assert.strictEqual(meta.resource, `${server.api}/mcp`)
          assert.deepStrictEqual(meta.bearer_methods_supported, ["header"])
          const ok = await client.callTool({ name: "balance", arguments: {} })
          assert.notStrictEqual(ok.isError, true, textOf(ok))
          return
        }
        const stranger = await transport.connect(server, "key_live_00000000000000000000000000000000")
        clients.push(stranger)
        const r = await stranger.callTool({ name: "balance", arguments: {} })
        assert.strictEqual(r.isError, true)
        assert.include(textOf(r), "unauthorized")
        const call = await stranger.callTool({
          name: "call",
          arguments: { platform: op.platform, request: requestWith(s(4)), maxCredits: 100 }
        })
        assert.strictEqual(call.isError, true)
        assert.include(textOf(call), "unauthorized")
        const ok = await client.callTool({ name: "balance", arguments: {} })
        assert.notStrictEqual(ok.isError, true, textOf(ok))
        assert.strictEqual((ok.structuredContent as any).creditsRemaining, await balance(server, key))
      })
    })
  })
})
