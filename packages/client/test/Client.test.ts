// The Promise client's retry rules against a local server on loopback: Retry-After and RateLimit honoured and
// capped, retries bounded by maxRetries, one Idempotency-Key per paid call whatever the retries.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import { FetchHttpClient } from "@effect/platform"
import { afterEach, assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as PdrClient from "../src/effect.js"
import { createClient, retryAfterMs } from "../src/index.js"

const servers: Array<ReturnType<typeof createServer>> = []
afterEach(() => {
  for (const s of servers.splice(0)) s.close()
})

/** A loopback server answering with `answer`; resolves to its base URL and the requests it saw. */
const serve = async (answer: (req: IncomingMessage, res: ServerResponse, n: number) => void) => {
  const seen: Array<{ headers: IncomingMessage["headers"]; at: number; body: string }> = []
  const server = createServer((req, res) => {
    const request = { headers: req.headers, at: Date.now(), body: "" }
    seen.push(request)
    req.on("data", (chunk) => {
      request.body += chunk
    })
    req.on("end", () => answer(req, res, seen.length))
  })
  servers.push(server)
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  return { baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen }
}

const json = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
  res.writeHead(status, { "content-type": "application/json", "x-request-id": "req_test", ...headers })
  res.end(JSON.stringify(body))
}

const limited = { error: { code: "rate_limited", message: "slow down", requestId: "req_test" } }

describe("retryAfterMs", () => {
  it("reads Retry-After as seconds or a date, else the RateLimit t parameter", () => {
    assert.strictEqual(retryAfterMs(new Headers({ "retry-after": "2" })), 2000)
    assert.strictEqual(retryAfterMs(new Headers({ "retry-after": new Date(10_000).toUTCString() }), 4000), 6000)
    assert.strictEqual(retryAfterMs(new Headers({ ratelimit: '"default";r=0;t=3' })), 3000)
    assert.strictEqual(retryAfterMs(new Headers({})), undefined)
  })
})

describe("Promise client retries", () => {
  it("a 429 is retried after Retry-After with the same Idempotency-Key; the answer is the retry's", async () => {
    const { baseUrl, seen } = await serve((_req, res, n) =>
      n === 1 ? json(res, 429, limited, { "retry-after": "1" }) : json(res, 200, { data: [], requestId: "req_ok" })
    )
    const client = createClient({ baseUrl, apiKey: "key_live_x" })
    const r = await client.call("maps", { op: "places", subjects: ["x"] })
    assert.isTrue(r.ok)
    assert.strictEqual(seen.length, 2)
    assert.isAtLeast(seen[1]!.at - seen[0]!.at, 950)
    assert.match(String(seen[0]!.headers["idempotency-key"]), /^[0-9a-f-]{36}$/)
    assert.strictEqual(seen[1]!.headers["idempotency-key"], seen[0]!.headers["idempotency-key"])
    assert.strictEqual(seen[0]!.headers["x-api-key"], "key_live_x")
  })

  it("gives up after maxRetries and answers the last 429; an estimate carries no key; maxCredits is sent", async () => {
    const { baseUrl, seen } = await serve((_req, res) => json(res, 429, limited, { "retry-after": "0" }))
    const client = createClient({ baseUrl, apiKey: "k", maxRetries: 2 })
    const r = await client.call("maps", { op: "places", subjects: ["x"] }, { estimateOnly: true, maxCredits: 5 })
    assert.deepStrictEqual([r.ok, r.status, r.requestId], [false, 429, "req_test"])
    if (!r.ok) assert.strictEqual(r.error.code, "rate_limited")
    assert.strictEqual(seen.length, 3)
    assert.isUndefined(seen[0]!.headers["idempotency-key"])
    assert.deepStrictEqual(JSON.parse(seen[0]!.body), {
      request: { op: "places", subjects: ["x"] },
      estimateOnly: true,
      maxCredits: 5
    })
  })

  it("a connection refused is retried, then thrown", async () => {
    let calls = 0
    const refusing: typeof fetch = async () => {
      calls++
      throw new TypeError("fetch failed")
    }
    const client = createClient({ baseUrl: "http://127.0.0.1:1", apiKey: "k", fetch: refusing, maxRetries: 1 })
    let thrown: unknown
    await client.balance().catch((e) => {
      thrown = e
    })
    assert.instanceOf(thrown, TypeError)
    assert.strictEqual(calls, 2)
  })

  it("the Effect client: an unknown op forced past the types fails as UnknownOp naming the valid ops, nothing sent", async () => {
    const { baseUrl: url, seen } = await serve((_req, res) => res.writeHead(500).end())
    const outcome = await Effect.runPromise(
      Effect.gen(function* () {
        const client = yield* PdrClient.make({ baseUrl: url, apiKey: "key_live_x", maxRetries: 0 })
        return yield* Effect.flip(PdrClient.call(client, "maps", { op: "nosuch", subjects: ["x"] } as never))
      }).pipe(Effect.provide(FetchHttpClient.layer))
    )
    assert.strictEqual(outcome._tag, "UnknownOp")
    const e = outcome as PdrClient.UnknownOp
    assert.strictEqual(e.error.code, "unknown_op")
    assert.strictEqual(e.error.details?.[0]?.path, "request.op")
    assert.include(e.error.details?.[0]?.message ?? "", "places")
    assert.strictEqual(seen.length, 0)
  })
})
