// Issue 23 item 2: `/mcp` calls the API over loopback, so before this every `/mcp` caller shared loopback's bucket of
// failed authentications (D12): eleven bad keys from anyone delayed everyone. Now each loopback request carries its
// caller's address, vouched for by the server's per-process secret: eleven bad-key calls from one address block that
// address only (its tool result says how long to wait), a good key from another address answers at once, and a
// client that forges the forwarded-address header itself is still limited by its own socket's address.
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
    const texts: Array<string> = []
    for (let i = 0; i < 11; i++) texts.push((await balanceTool(server, "127.0.0.2", bad)).text)
    assert.include(texts[0], "unauthorized")
    assert.include(texts[10], "rate_limited")
    // the wait the API named is in the tool's text
    assert.match(texts[10]!, /Wait \d+ second\(s\) before calling again/)
    const { key } = await account(server, 100)
    const t0 = performance.now()
    const good = await balanceTool(server, "127.0.0.3", key)
    assert.isFalse(good.isError, good.text)
    assert.isBelow(performance.now() - t0, 2_000)
    // the blocked address stays blocked, even with a good key, until its wait is over
    const blocked = await balanceTool(server, "127.0.0.2", key)
    assert.include(blocked.text, "rate_limited")
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
