// D12, D16, D8 over a real socket on the real Postgres server: body limit, media types, rate limits with draft-10
// headers, the failed-authentication limiter, idempotency, and overspend races.
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import * as Testing from "@pdr/store-pg/Testing"
import { account, admin, balance, post, type Running, request, start } from "./harness.js"

const serverUp = await Testing.serverAvailable()

const parseItem = (header: string | null) => {
  assert.isString(header)
  const [name, ...params] = header!.split(";")
  return {
    name: JSON.parse(name!),
    ...Object.fromEntries(params.map((p) => p.split("=")).map(([k, v]) => [k, Number(v)]))
  }
}

describe.skipIf(!serverUp)("limits", () => {
  let server: Running
  beforeAll(async () => {
    server = await start({
      options: { rateLimit: { perSecond: 1, burst: 5 }, authFailureLimit: { perSecond: 0.01, burst: 3 } }
    })
  }, 60_000)
  afterAll(() => server?.close())

  it("D12: a body of 64 KiB + 1 byte is refused with 413 before it is parsed, with or without Content-Length", async () => {
    const a = await account(server, 100, "body")
    const pad = (n: number) => {
      const base = JSON.stringify({ request: { op: "places", subjects: ["ChIJbodylimit01"] } })
      return `${base.slice(0, -1) + " ".repeat(n - base.length)}}`
    }
    const big = await request(`${server.api}/api/v1/platforms/maps`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-api-key": a.key },
      body: pad(64 * 1024 + 1)
    })
    assert.deepStrictEqual([big.status, big.body.error.code], [413, "payload_too_large"])
    const stream = new ReadableStream({
      start(c) {
        c.enqueue(new TextEncoder().encode(pad(64 * 1024 + 1)))
        c.close()
      }
    })
    const chunked = await request(`${server.api}/api/v1/platforms/maps`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-api-key": a.key },
      body: stream,
      duplex: "half"
    } as RequestInit)
    assert.deepStrictEqual([chunked.status, chunked.body.error.code], [413, "payload_too_large"])
    // a chunked body within the limit is read once (by the limit check) and answered
    const small = new ReadableStream({
      start(c) {
        c.enqueue(new TextEncoder().encode(pad(200)))
        c.close()
      }
    })
    const chunkedOk = await request(`${server.api}/api/v1/platforms/maps`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-api-key": a.key },
      body: small,
      duplex: "half"
    } as RequestInit)
    assert.strictEqual(chunkedOk.status, 200, chunkedOk.text)
    const exact = await request(`${server.api}/api/v1/platforms/maps`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-api-key": a.key },
      body: pad(64 * 1024)
    })
    assert.strictEqual(exact.status, 200, exact.text)
    const gzip = await request(`${server.api}/api/v1/platforms/maps`, {
      method: "POST",
      headers: { "content-type": "application/json", "content-encoding": "gzip", "x-api-key": a.key },
      body: "x"
    })
    assert.deepStrictEqual([gzip.status, gzip.body.error.code], [415, "unsupported_media_type"])
    assert.strictEqual(await balance(server, a.key), 96)
  })

  it("D12: a burst past the key's rate limit gets 429 with parseable RateLimit-Policy, RateLimit and Retry-After", async () => {
    const a = await account(server, 100, "burst")
    const seen: Array<number> = []
    let limited: Awaited<ReturnType<typeof request>> | undefined
    for (let i = 0; i < 8 && !limited; i++) {
      const r = await request(`${server.api}/api/v1/balance`, { headers: { "x-api-key": a.key } })
      if (r.status === 429) limited = r
      else {
        assert.strictEqual(r.status, 200)
        assert.deepStrictEqual(parseItem(r.headers.get("ratelimit-policy")), { name: "default", q: 5, w: 5 })
        seen.push((parseItem(r.headers.get("ratelimit")) as any).r)
      }
    }
    assert.isDefined(limited, "the burst was limited")
    assert.deepStrictEqual(seen.slice(0, 4), [4, 3, 2, 1])
    assert.strictEqual(limited!.body.error.code, "rate_limited")
    const state = parseItem(limited!.headers.get("ratelimit")) as any
    assert.strictEqual(state.r, 0)
    assert.isAtLeast(Number(limited!.headers.get("retry-after")), 1)
  })

  it("D12: the failed-authentication limiter trips before the general one, per address", async () => {
    const statuses: Array<number> = []
    for (let i = 0; i < 5; i++) {
      statuses.push(
        (await request(`${server.api}/api/v1/balance`, { headers: { "x-api-key": `key_live_${"Z".repeat(32)}` } }))
          .status
      )
    }
    assert.deepStrictEqual(statuses, [401, 401, 401, 429, 429])
    const blocked = await request(`${server.api}/api/v1/balance`, {
      headers: { "x-api-key": `key_live_${"Y".repeat(32)}` }
    })
    assert.strictEqual(blocked.status, 429)
    assert.deepStrictEqual(parseItem(blocked.headers.get("ratelimit-policy")), { name: "auth", q: 3, w: 300 })
  })
})

describe.skipIf(!serverUp)("idempotency and overspend races", () => {
  let server: Running
  beforeAll(async () => {
    server = await start({ knobs: { latency: "50 millis" as never } })
  }, 60_000)
  afterAll(() => server?.close())

  const paid = (i: number | string) => ({
    request: {
      op: "jobs",
      subjects: [
        `jobkey${String(i)
          .replace(/[^A-Za-z0-9]/g, "x")
          .padStart(8, "0")}`
      ]
    }
  })

  it("D16: the same key 5 times -> one charge, identical bodies, replays marked; another body -> 422", async () => {
    const a = await account(server, 50, "idem")
    const replies = []
    for (let i = 0; i < 5; i++)
      replies.push(
        await post(server, "/api/v1/platforms/jobs_global", paid("idem-1"), a.key, { "idempotency-key": "order-42" })
      )
    assert.deepStrictEqual(
      replies.map((r) => r.status),
      [200, 200, 200, 200, 200]
    )
    assert.strictEqual(new Set(replies.map((r) => r.text)).size, 1, "identical bodies")
    const original = replies[0]!.body.requestId
    assert.match(original, /^req_/)
    assert.deepStrictEqual(
      replies.map((r) => r.headers.get("x-request-id")),
      replies.map(() => original),
      "D16/D17: a replay carries the original answer's request id in the header as in the body"
    )
    assert.deepStrictEqual(
      replies.map((r) => r.headers.get("idempotent-replayed")),
      [null, "true", "true", "true", "true"]
    )
    assert.strictEqual(await balance(server, a.key), 49)
    const other = await post(server, "/api/v1/platforms/jobs_global", paid("idem-2"), a.key, {
      "idempotency-key": "order-42"
    })
    assert.deepStrictEqual([other.status, other.body.error.code], [422, "idempotency_mismatch"])
    const bad = await post(server, "/api/v1/platforms/jobs_global", paid("idem-3"), a.key, {
      "idempotency-key": "x".repeat(256)
    })
    assert.deepStrictEqual([bad.status, bad.body.error.details[0].path], [400, "Idempotency-Key"])
    const b = await account(server, 50, "idem-other-account")
    const scoped = await post(server, "/api/v1/platforms/jobs_global", paid("idem-2"), b.key, {
      "idempotency-key": "order-42"
    })
    assert.strictEqual(scoped.status, 200, "keys are scoped to the account")
    assert.strictEqual(await balance(server, a.key), 49)
  })

  it("D16: 10 concurrent sends of one key -> exactly one charge; the others wait (409) or replay", async () => {
    const a = await account(server, 50, "idem-concurrent")
    const replies = await Promise.all(
      Array.from({ length: 10 }, () =>
        post(server, "/api/v1/platforms/jobs_global", paid("idem-c"), a.key, { "idempotency-key": "same" })
      )
    )
    for (const r of replies) assert.include([200, 409], r.status, r.text)
    assert.isAtLeast(replies.filter((r) => r.status === 200).length, 1)
    for (const r of replies.filter((r) => r.status === 409))
      assert.strictEqual(r.body.error.code, "idempotency_in_flight")
    assert.strictEqual(await balance(server, a.key), 49)
  })

  const audit = async (accountId: string, keyId: string, charged: number) => {
    const shown = await admin(server, "GET", `/admin/accounts/${accountId}`)
    const keys = await admin(server, "GET", `/admin/accounts/${accountId}/keys`)
    const key = keys.keys.find((k: any) => k.keyId === keyId)
    assert.strictEqual(shown.held, 0, "no credits held after the run")
    assert.strictEqual(key.creditsSpent, charged, "the key's credits spent == what its answers charged")
    return shown.balance as number
  }

  it("D10: concurrent identical reveals by one org charge each part once; the others get it free", async () => {
    const a = await account(server, 10_000, "reveal-race")
    const request = { request: { op: "reveal", subjects: ["race-person-1", "race-person-2"] } }
    const replies = await Promise.all(
      Array.from({ length: 6 }, () => post(server, "/api/v1/platforms/contacts", request, a.key))
    )
    for (const r of replies) assert.strictEqual(r.status, 200, r.text)
    const total = replies.reduce((n, r) => n + r.body.cost.creditsCharged, 0)
    const after = await post(server, "/api/v1/platforms/contacts", request, a.key)
    const owned = after.body.data.flatMap((row: any) => ["email", "phone"].filter((p) => row[p].status === "owned"))
    const price = (part: string) => (part === "email" ? 18 : 87)
    const expected = after.body.data.reduce(
      (n: number, row: any) =>
        n + ["email", "phone"].filter((p) => row[p].status === "owned").reduce((m, p) => m + price(p), 0),
      0
    )
    assert.isAbove(owned.length, 0)
    assert.strictEqual(total, expected, "each part bought once")
    assert.strictEqual(after.body.cost.creditsCharged, 0)
    assert.strictEqual(await balance(server, a.key), 10_000 - total)
    await audit(a.accountId, a.keyId, total)
  })

  it("D8: balance 1 and 1,000 concurrent paid calls costing 1 -> exactly one succeeds, 999 get 402, final balance 0", async () => {
    const a = await account(server, 1, "race-1000")
    const replies = await Promise.all(
      Array.from({ length: 1000 }, (_, i) => post(server, "/api/v1/platforms/jobs_global", paid(`r1-${i}`), a.key))
    )
    const statuses = replies.map((r) => r.status)
    assert.strictEqual(statuses.filter((s) => s === 200).length, 1)
    assert.strictEqual(statuses.filter((s) => s === 402).length, 999)
    const charged = replies.filter((r) => r.status === 200).reduce((n, r) => n + r.body.cost.creditsCharged, 0)
    assert.strictEqual(await audit(a.accountId, a.keyId, charged), 0)
  }, 60_000)

  it("D8: balance 100, 200 paid calls at concurrency 50 -> exactly 100 succeed", async () => {
    const a = await account(server, 100, "race-200")
    const replies: Array<Awaited<ReturnType<typeof post>>> = []
    let next = 0
    await Promise.all(
      Array.from({ length: 50 }, async () => {
        while (next < 200) {
          const i = next++
          replies.push(await post(server, "/api/v1/platforms/jobs_global", paid(`r2-${i}`), a.key))
        }
      })
    )
    assert.strictEqual(replies.filter((r) => r.status === 200).length, 100)
    assert.strictEqual(replies.filter((r) => r.status === 402).length, 100)
    const charged = replies.filter((r) => r.status === 200).reduce((n, r) => n + r.body.cost.creditsCharged, 0)
    assert.strictEqual(charged, 100)
    assert.strictEqual(await audit(a.accountId, a.keyId, charged), 0)
  }, 60_000)
})
