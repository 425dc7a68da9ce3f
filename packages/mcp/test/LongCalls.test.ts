// Issue 21 over MCP with the SDK's own client (stdio), against the real server on PostgreSQL: a long call answers 202
// to the tool, which follows it and sends progress notifications; a cancelled tool call cancels the API call (only
// delivered units billed); collect_call gets an earlier answer by id, free.
import { fileURLToPath } from "node:url"
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import { Upstream } from "@pdr/domain"
import * as Testing from "@pdr/store-pg/Testing"
import { SyntheticUpstream } from "@pdr/upstream-synthetic"
import { Duration, Effect, Layer } from "effect"
import { account, balance, type Running, start } from "../../../apps/server/test/harness.js"

const serverUp = await Testing.serverAvailable()
const tsx = fileURLToPath(new URL("../node_modules/.bin/tsx", import.meta.url))
const main = fileURLToPath(new URL("../src/main.ts", import.meta.url))

/** The synthetic upstream, 600 ms a unit; a subject containing "slow" answers after 20 s. */
const upstream = Layer.effect(
  Upstream.Upstream,
  Effect.map(SyntheticUpstream.make({ ...SyntheticUpstream.defaults, latency: Duration.millis(600) }), (a) =>
    Upstream.single({
      ...a,
      fetch: (unit) =>
        unit.subject?.includes("slow") === true
          ? Effect.zipRight(Effect.sleep("20 seconds"), a.fetch(unit))
          : a.fetch(unit)
    })
  )
)

const textOf = (r: Awaited<ReturnType<Client["callTool"]>>) =>
  (r.content as Array<{ type: string; text: string }>).map((c) => c.text).join("\n")

describe.skipIf(!serverUp)("MCP long calls", () => {
  let server: Running
  let client: Client
  let key: string
  beforeAll(async () => {
    server = await start({ options: { upstream } })
    key = (await account(server, 1000, "mcp-long")).key
    client = new Client({ name: "pdr-test", version: "1.0.0" })
    await client.connect(
      new StdioClientTransport({
        command: tsx,
        args: ["--conditions=@pdr/source", main],
        env: { PATH: process.env["PATH"] ?? "", PDR_API_KEY: key, PDR_API_URL: server.api, PDR_MCP_CALL_WAIT_S: "0" },
        stderr: "pipe"
      })
    )
  }, 120_000)
  afterAll(async () => {
    await client?.close().catch(() => {})
    await server?.close()
  })

  it("a long call sends progress while it runs, bills once, and its id collects it again for free", async () => {
    const progress: Array<{ progress: number; total?: number | undefined; message?: string | undefined }> = []
    const r = await client.callTool(
      {
        name: "call",
        arguments: {
          platform: "maps",
          request: { op: "places", subjects: ["ChIJmcplong-1", "ChIJmcplong-2"] },
          maxCredits: 8
        }
      },
      undefined,
      { onprogress: (p) => progress.push(p), timeout: 60_000 }
    )
    assert.isNotTrue(r.isError, textOf(r))
    assert.include(textOf(r), "Charged 8 credits")
    assert.isAtLeast(progress.length, 1)
    assert.strictEqual(progress[0]!.total, 2)
    assert.match(progress[0]!.message!, /^call call_[0-9a-f]{20}: \d of 2 units done \(quote 8 credits\)$/)
    assert.strictEqual(await balance(server, key), 992)
    const id = /call (call_[0-9a-f]{20})/.exec(progress[0]!.message!)![1]!
    const collected = await client.callTool({ name: "collect_call", arguments: { callId: id } })
    assert.isNotTrue(collected.isError, textOf(collected))
    assert.include(textOf(collected), `Collected call ${id}`)
    assert.include(textOf(collected), "Charged 8 credits")
    assert.strictEqual(await balance(server, key), 992)
  }, 60_000)

  it("a cancelled tool call cancels the API call: only the delivered units are billed", async () => {
    const before = await balance(server, key)
    const abort = new AbortController()
    const pending = client.callTool(
      {
        name: "call",
        arguments: {
          platform: "maps",
          request: { op: "places", subjects: ["ChIJmcpcancel-1", "ChIJmcpcancel-slow-2"] },
          maxCredits: 8
        }
      },
      undefined,
      { signal: abort.signal, timeout: 60_000 }
    )
    setTimeout(() => abort.abort("the user changed their mind"), 2000)
    await pending.catch(() => undefined)
    // the API call ends cancelled: one unit delivered (4 credits), the slow one never billed
    let spent = 0
    for (let i = 0; i < 100; i++) {
      await new Promise((r) => setTimeout(r, 200))
      const list = await fetch(`${server.api}/api/v1/calls?limit=1`, { headers: { "x-api-key": key } })
      const last = ((await list.json()) as any).calls[0]
      if (last.status !== "running") {
        assert.strictEqual(last.status, "cancelled")
        spent = before - (await balance(server, key))
        break
      }
    }
    assert.strictEqual(spent, 4)
  }, 60_000)
})
