// Issue 23 item 2: `/mcp` calls the API over loopback, so before this every `/mcp` caller shared loopback's bucket of
// failed authentications (D12): eleven bad keys from anyone delayed everyone. Now each loopback request carries its
// caller's address, vouched for by the server's per-process secret: eleven bad-key calls from one address block that
// address only (401s, then a 429 naming its wait), a good key from another address answers at once, a rate-limited
// tool says how long to wait, and a client that forges the forwarded-address header is limited by its own socket.
import { request as httpRequest } from "node:http"
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import * as Testing from "@pdr/store-pg/Testing"
import { account, type Running, start } from "../../../apps/server/test/harness.js"

const serverUp = await Testing.serverAvailable()

/** One POST from a chosen local address (the loopback network is 127.0.0.0/8: each address is another caller). */
const post = (
  url: string,
  from: string,
  body: unknown,
  headers: Record<string, string>
): Promise<{ status: number; body: any; headers: Record<string, unknown> }> =>
  new Promise((resolve, reject) => {
    const u = new URL(url)
    const req = httpRequest(
      {
        host: u.hostname,
        port: u.port,
        path: u.pathname,
        method: "POST",
        localAddress: from,
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers }
      },
      (res) => {
        let text = ""
        res.on("data", (d) => (text += d))
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text), headers: res.headers }))
      }
    )
    req.on("error", reject)
    req.end(JSON.stringify(body))
  })

const balanceTool = (server: Running, from: string, key: string) =>
  post(
    `${server.api}/mcp`,
    from,
    { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "balance", arguments: {} } },
    { authorization: `Bearer ${key}` }
  ).then((r) => ({
    isError: r.body.result?.isError === true,
    text: (r.body.result?.content ?? []).map((c: { text: string }) => c.text).join("\n") as string
  }))

describe.skipIf(!serverUp)("/mcp limits each caller by its own address", () => {
  let server: Running
  beforeAll(async () => {
    // D12's default for failed authentications: a burst of 10, then one per 10 s
    server = await start({ options: { authFailureLimit: { perSecond: 0.1, burst: 10 } } })
  }, 60_000)
  afterAll(async () => {
    await server?.close()
  })

  it("eleven bad keys from one address block that address only; a good key from another answers at once", async () => {
    const bad = "key_live_00000000000000000000000000000000"
    const statuses: Array<number> = []
    let retryAfter: unknown
    for (let i = 0; i < 11; i++) {
      const r = await post(
        `${server.api}/mcp`,
        "127.0.0.2",
        { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "balance", arguments: {} } },
        { authorization: `Bearer ${bad}` }
      )
      statuses.push(r.status)
      retryAfter = r.headers["retry-after"]
    }
    assert.deepStrictEqual(statuses, [...Array(10).fill(401), 429])
    // the wait is named
    assert.isAbove(Number(retryAfter), 0)
    const { key } = await account(server, 100)
    const t0 = performance.now()
    const good = await balanceTool(server, "127.0.0.3", key)
    assert.isFalse(good.isError, good.text)
    // at once: not after the other address's 10 s wait (a loaded CI took 3 s for the call itself)
    assert.isBelow(performance.now() - t0, 6_000)
    // the blocked address stays blocked, even with a good key, until its wait is over
    const blocked = await post(
      `${server.api}/mcp`,
      "127.0.0.2",
      { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "balance", arguments: {} } },
      { authorization: `Bearer ${key}` }
    )
    assert.strictEqual(blocked.status, 429)
  }, 60_000)

  it("a rate-limited tool result says how long to wait (the API's own per-key limit, reached through /mcp)", async () => {
    const limited = await start({ options: { rateLimit: { perSecond: 0.2, burst: 1 } } })
    try {
      const { key } = await account(limited, 100)
      const first = await balanceTool(limited, "127.0.0.5", key)
      assert.isFalse(first.isError, first.text)
      const second = await balanceTool(limited, "127.0.0.5", key)
      assert.isTrue(second.isError)
      assert.include(second.text, "rate_limited")
      assert.match(second.text, /Wait \d+ second\(s\) before calling again/)
    } finally {
      await limited.close()
    }
  }, 60_000)

  it("a forged forwarded address is not believed: the API limits the socket's own address", async () => {
    const bad = "key_live_11111111111111111111111111111111"
    const statuses: Array<number> = []
    for (let i = 0; i < 11; i++) {
      const r = await post(
        `${server.api}/api/v1/platforms/maps`,
        "127.0.0.4",
        { request: { op: "places", subjects: ["ChIJforged"] }, estimateOnly: true },
        {
          "x-api-key": bad,
          // a different address each time: if it were believed, no address would ever reach the limit
          "x-pdr-forwarded-for": `10.0.0.${i}`,
          "x-pdr-forwarded-secret": "0".repeat(64)
        }
      )
      statuses.push(r.status)
    }
    assert.strictEqual(statuses[0], 401)
    assert.strictEqual(statuses[10], 429)
  }, 60_000)
})

describe.skipIf(!serverUp)("/mcp origins and sign-in discovery", () => {
  let server: Running
  beforeAll(async () => {
    server = await start({ options: { mcpAllowedOrigins: ["https://agent.example.com"] } })
  }, 60_000)
  afterAll(async () => {
    await server?.close()
  })

  const list = (origin: string | undefined) =>
    fetch(`${server.api}/mcp`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        ...(origin === undefined ? {} : { origin })
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" })
    })

  it("MCP's DNS-rebinding rule: a present, unknown Origin is 403; loopback, listed and absent origins pass", async () => {
    const evil = await list("http://rebind.attacker.example:8080")
    assert.strictEqual(evil.status, 403)
    assert.strictEqual(((await evil.json()) as any).id, null)
    for (const ok of [undefined, "http://localhost:3000", "http://127.0.0.1:9999", "https://agent.example.com"])
      assert.strictEqual((await list(ok)).status, 200, String(ok))
    // a listed origin is matched whole: another port or scheme is another origin
    assert.strictEqual((await list("http://agent.example.com")).status, 403)
  })

  it("the API's 401 names its protected-resource metadata (RFC 9728), which is served without a key", async () => {
    const r = await fetch(`${server.api}/api/v1/balance`, { headers: { "x-api-key": "key_live_nope" } })
    assert.strictEqual(r.status, 401)
    const challenge = r.headers.get("www-authenticate") ?? ""
    assert.match(challenge, /^Bearer realm="pdr", resource_metadata="[^"]+\/\.well-known\/oauth-protected-resource"$/)
    const meta = (await (await fetch(/resource_metadata="([^"]+)"/.exec(challenge)![1]!)).json()) as any
    assert.strictEqual(meta.resource, server.api)
    assert.include(meta.pdr_how_to_get_a_key, "/dashboard")
  })
})
