// Issue 22: `POST /api/v1/platforms/<platform>` is served beside the framework's router (OpsHttp.routeLayer) when its
// path is plain; any other spelling of the same route (a trailing or doubled slash, upper case, an escape, `;`) still
// goes through the router. The same request must get the same answer both ways: status, body (but for its ids) and
// headers (but for the values that change per request), for answers and for every kind of refusal.
import { request as httpRequest } from "node:http"
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { Duration } from "effect"
import * as Fallback from "../src/http/Fallback.js"
import { account, balance, post, type Running, request, start, startWithDatabase } from "./harness.js"

const stored = { request: { op: "places", subjects: ["ChIJbesiderouter0", "ChIJbesiderouter1"] } }

/** What must match between two answers to the same request: ids, dates of the request and rate-limit state aside. */
const shape = async (res: Response) => {
  const text = await res.text()
  let body: unknown = text
  try {
    body = JSON.parse(text)
  } catch {}
  const scrub = (u: unknown): unknown =>
    Array.isArray(u)
      ? u.map(scrub)
      : typeof u === "object" && u !== null
        ? Object.fromEntries(
            Object.entries(u).map(([k, v]) => [k, k === "requestId" || k === "callId" ? "<id>" : scrub(v)])
          )
        : u
  const varying = new Set(["x-request-id", "call-id", "date", "ratelimit", "content-length"])
  const headers = [...res.headers.entries()].map(([k, v]) => (varying.has(k) ? `${k}: <varies>` : `${k}: ${v}`)).sort()
  return { status: res.status, headers, body: scrub(body) }
}

const send = (
  server: Running,
  path: string,
  init: { method?: string; headers?: Record<string, string>; body?: string }
) =>
  fetch(`${server.api}${path}`, { method: init.method ?? "POST", headers: init.headers ?? {}, body: init.body ?? null })

describe("op calls beside the router", () => {
  let server: Running
  let key: string
  beforeAll(async () => {
    server = await start({ options: { rateLimit: { perSecond: 1_000, burst: 1_000 } } })
    key = (await account(server, 1_000, "beside")).key
    // stored once (paid), then every call below is served from storage
    const first = await post(server, "/api/v1/platforms/maps", stored, key)
    assert.strictEqual(first.status, 200)
  }, 60_000)
  afterAll(() => server?.close())

  const json = (k: string | undefined, extra: Record<string, string> = {}) => ({
    "content-type": "application/json",
    ...(k === undefined ? {} : { "x-api-key": k }),
    ...extra
  })

  it("the plain path and the router's spellings of it answer alike: answers, refusals and their headers", async () => {
    const cases: ReadonlyArray<{
      readonly what: string
      readonly path: string
      readonly init: () => { method?: string; headers?: Record<string, string>; body?: string }
      readonly status: number
    }> = [
      {
        what: "stored answer",
        path: "maps",
        init: () => ({ headers: json(key), body: JSON.stringify(stored) }),
        status: 200
      },
      {
        what: "no key",
        path: "maps",
        init: () => ({ headers: json(undefined), body: JSON.stringify(stored) }),
        status: 401
      },
      { what: "bad key", path: "maps", init: () => ({ headers: json("pdr_nope"), body: "{}" }), status: 401 },
      { what: "not JSON", path: "maps", init: () => ({ headers: json(key), body: "{nope" }), status: 400 },
      {
        what: "form body",
        path: "maps",
        init: () => ({ headers: { "content-type": "text/plain", "x-api-key": key }, body: "x" }),
        status: 415
      },
      {
        what: "bad Cache-Control",
        path: "maps",
        init: () => ({ headers: json(key, { "cache-control": "max-age=x" }), body: JSON.stringify(stored) }),
        status: 400
      },
      {
        what: "bad Prefer",
        path: "maps",
        init: () => ({ headers: json(key, { prefer: "wait=x" }), body: JSON.stringify(stored) }),
        status: 400
      },
      {
        what: "unknown op",
        path: "maps",
        init: () => ({ headers: json(key), body: JSON.stringify({ request: { op: "teleport" } }) }),
        status: 400
      },
      {
        what: "bad fields",
        path: "maps",
        init: () => ({ headers: json(key), body: JSON.stringify({ request: { op: "search", query: "" } }) }),
        status: 400
      },
      {
        what: "unknown platform",
        path: "moon",
        init: () => ({ headers: json(key), body: JSON.stringify(stored) }),
        status: 404
      },
      {
        what: "unknown platform, no key",
        path: "moon",
        init: () => ({ headers: json(undefined), body: "{}" }),
        status: 401
      }
    ]
    for (const c of cases) {
      const plain = await shape(await send(server, `/api/v1/platforms/${c.path}`, c.init()))
      assert.strictEqual(plain.status, c.status, `${c.what}: ${JSON.stringify(plain.body)}`)
      // each spelling below is one the plain-path check does not take: it goes through the framework's router
      // (upper case only for a platform's own path: the router matches it in any case, and keeps an unknown one's)
      const spellings = [`${c.path}/`, `${c.path}?x=1`, `${c.path};x=1`, ...(c.path === "maps" ? ["MAPS", "Maps"] : [])]
      for (const spelling of spellings) {
        const routed = await shape(await send(server, `/api/v1/platforms/${spelling}`, c.init()))
        assert.deepStrictEqual(routed, plain, `${c.what} as ${spelling}`)
      }
      const doubled = await shape(await send(server, `/api/v1//platforms/${c.path}`, c.init()))
      assert.deepStrictEqual(doubled, plain, `${c.what} with a doubled slash`)
    }
  })

  it("a query string is no part of the route: the plain path with one is served as without it", async () => {
    const plain = await shape(
      await send(server, "/api/v1/platforms/maps", { headers: json(key), body: JSON.stringify(stored) })
    )
    const queried = await shape(
      await send(server, "/api/v1/platforms/maps?debug=1", { headers: json(key), body: JSON.stringify(stored) })
    )
    assert.deepStrictEqual(queried, plain)
  })

  it("another method on a platform's path is still no route (404 in the D5 shape), with or without a key", async () => {
    for (const method of ["GET", "PUT", "DELETE", "PATCH"]) {
      for (const k of [key, undefined]) {
        const r = await request(`${server.api}/api/v1/platforms/maps`, {
          method,
          headers: json(k),
          ...(method === "GET" ? {} : { body: JSON.stringify(stored) })
        })
        assert.deepStrictEqual([r.status, r.body.error.code], [404, "not_found"], `${method} ${k === undefined}`)
      }
    }
  })

  it("the answer of the plain path is the published one (the harness checks it against the document)", async () => {
    const r = await post(server, "/api/v1/platforms/maps", stored, key)
    assert.strictEqual(r.status, 200)
    assert.strictEqual(r.body.data.length, 2)
    assert.strictEqual(r.body.cost.creditsCharged, 0)
    assert.isNotNull(r.headers.get("ratelimit"))
    assert.match(r.headers.get("call-id") ?? "", /^call_[0-9a-f]+$/)
  })
})

/** A request over a socket of its own, with what fetch cannot send (chunked bodies, Expect), read to its end. */
const raw = (
  server: Running,
  path: string,
  init: {
    readonly method?: string
    readonly headers?: Record<string, string>
    /** Sent as chunks (no Content-Length) unless a content-length header is given. */
    readonly chunks?: ReadonlyArray<string>
    readonly expectContinue?: boolean
  }
) =>
  new Promise<{ status: number; headers: Record<string, string>; body: string; continued: boolean }>(
    (resolve, reject) => {
      const url = new URL(`${server.api}${path}`)
      let continued = false
      const req = httpRequest({
        host: url.hostname,
        port: url.port,
        path: url.pathname + url.search,
        method: init.method ?? "POST",
        agent: false,
        headers: { ...(init.headers ?? {}), ...(init.expectContinue === true ? { expect: "100-continue" } : {}) }
      })
      const send = () => {
        for (const c of init.chunks ?? []) req.write(c)
        req.end()
      }
      req.on("continue", () => {
        continued = true
        send()
      })
      req.on("response", (res) => {
        const parts: Array<Buffer> = []
        res.on("data", (d: Buffer) => parts.push(d))
        res.on("end", () =>
          resolve({
            status: res.statusCode!,
            headers: res.headers as Record<string, string>,
            body: Buffer.concat(parts).toString("utf8"),
            continued
          })
        )
        res.on("error", reject)
      })
      req.on("error", reject)
      if (init.expectContinue !== true) send()
    }
  )

/** `shape` of a raw answer. */
const rawShape = (r: { status: number; headers: Record<string, string>; body: string }) =>
  shape(new Response(r.status === 204 || r.status === 304 ? null : r.body, { status: r.status, headers: r.headers }))

describe("op calls answered from node's request event (issue 22)", () => {
  let server: Running
  let key: string
  beforeAll(async () => {
    server = await start({ options: { rateLimit: { perSecond: 1_000, burst: 1_000 } } })
    key = (await account(server, 1_000, "fast")).key
    assert.strictEqual((await post(server, "/api/v1/platforms/maps", stored, key)).status, 200)
  }, 60_000)
  afterAll(() => server?.close())

  const headers = (extra: Record<string, string> = {}) => ({
    "content-type": "application/json",
    "x-api-key": key,
    ...extra
  })

  it("the plain path is answered before the platform's handler, every other spelling by the router", async () => {
    const before = Fallback.answeredHere.count
    const r = await post(server, "/api/v1/platforms/maps", stored, key)
    assert.strictEqual(r.status, 200)
    assert.strictEqual(Fallback.answeredHere.count, before + 1)
    for (const spelling of ["maps/", "MAPS", "maps;x=1"]) {
      const r = await send(server, `/api/v1/platforms/${spelling}`, {
        headers: headers(),
        body: JSON.stringify(stored)
      })
      assert.strictEqual(r.status, 200, spelling)
      assert.strictEqual(Fallback.answeredHere.count, before + 1, spelling)
    }
    // another method on the plain path is the router's (404)
    const head = await fetch(`${server.api}/api/v1/platforms/maps`, { method: "HEAD", headers: headers() })
    assert.strictEqual(head.status, 404)
    assert.strictEqual(Fallback.answeredHere.count, before + 1)
  })

  it("chunked bodies, declared and chunked oversize bodies and Expect: 100-continue answer alike both ways", async () => {
    const body = JSON.stringify(stored)
    const big = "x".repeat(70_000)
    const huge = "y".repeat(64 * 1024)
    const cases: ReadonlyArray<{
      readonly what: string
      readonly init: Parameters<typeof raw>[2]
      readonly status: number
      readonly close?: boolean
    }> = [
      {
        what: "chunked stored call",
        init: { headers: headers(), chunks: [body.slice(0, 10), body.slice(10)] },
        status: 200
      },
      { what: "chunked empty body", init: { headers: headers(), chunks: [] }, status: 400 },
      { what: "chunked, not JSON", init: { headers: headers(), chunks: ["{no", "pe"] }, status: 400 },
      { what: "chunked over 64 KiB", init: { headers: headers(), chunks: [big] }, status: 413 },
      {
        what: "chunked over the drain cap",
        init: { headers: headers(), chunks: Array.from({ length: 20 }, () => huge) },
        status: 413,
        close: true
      },
      {
        what: "declared over 64 KiB",
        init: { headers: headers({ "content-length": String(big.length) }), chunks: [big] },
        status: 413
      },
      {
        what: "content coding",
        init: {
          headers: headers({ "content-encoding": "gzip", "content-length": String(body.length) }),
          chunks: [body]
        },
        status: 415
      },
      {
        what: "100-continue, small body",
        init: { headers: headers({ "content-length": String(body.length) }), chunks: [body], expectContinue: true },
        status: 200
      },
      {
        what: "100-continue, declared over 64 KiB (413 before any upload)",
        init: { headers: headers({ "content-length": String(big.length) }), chunks: [big], expectContinue: true },
        status: 413,
        close: true
      }
    ]
    for (const c of cases) {
      const before = Fallback.answeredHere.count
      const plainRaw = await raw(server, "/api/v1/platforms/maps", c.init)
      const plain = await rawShape(plainRaw)
      assert.strictEqual(plain.status, c.status, `${c.what}: ${JSON.stringify(plain.body)}`)
      if (c.close === true) assert.strictEqual(plainRaw.headers["connection"], "close", c.what)
      // refused before any body was asked for: no 100 Continue
      if (c.what.startsWith("100-continue")) assert.strictEqual(plainRaw.continued, c.status === 200, c.what)
      // the 413 of an Expect is node's checkContinue's, before any handler
      const here = c.what === "100-continue, declared over 64 KiB (413 before any upload)" ? 0 : 1
      assert.strictEqual(Fallback.answeredHere.count, before + here, c.what)
      const routed = await rawShape(await raw(server, "/api/v1/platforms/maps/", c.init))
      assert.deepStrictEqual(routed, plain, c.what)
    }
  })

  it("a client that disconnects interrupts its call alike both ways; the server answers the next call", async () => {
    const slow = await start({
      knobs: { latency: Duration.millis(1_500) },
      options: { rateLimit: { perSecond: 1_000, burst: 1_000 } }
    })
    try {
      const k = await account(slow, 1_000, "abort")
      const abortOne = async (path: string, subject: string) => {
        const controller = new AbortController()
        const sent = fetch(`${slow.api}${path}`, {
          method: "POST",
          headers: { "content-type": "application/json", "x-api-key": k.key },
          body: JSON.stringify({ request: { op: "places", subjects: [subject] } }),
          signal: controller.signal
        }).catch((e: unknown) => e)
        await new Promise((r) => setTimeout(r, 300))
        controller.abort()
        assert.instanceOf(await sent, Error)
        // the fetch it started goes on (shared fetches) or not: wait past its latency either way
        await new Promise((r) => setTimeout(r, 2_500))
        return await balance(slow, k.key)
      }
      const before = Fallback.answeredHere.count
      const b0 = await balance(slow, k.key)
      const b1 = await abortOne("/api/v1/platforms/maps", "ChIJabortedFast1")
      assert.strictEqual(Fallback.answeredHere.count, before + 1)
      const b2 = await abortOne("/api/v1/platforms/maps/", "ChIJabortedRouted1")
      assert.strictEqual(Fallback.answeredHere.count, before + 1)
      // what an aborted call costs is the same both ways (as platform-node interrupts it: nothing)
      // interrupted both ways: nothing billed, though the same kind of call run to its end is (below)
      assert.deepStrictEqual([b1, b2], [b0, b0])
      const after = await post(
        slow,
        "/api/v1/platforms/maps",
        { request: { op: "places", subjects: ["ChIJnotAborted1"] } },
        k.key
      )
      assert.strictEqual(after.status, 200)
      assert.isAbove(after.body.cost.creditsCharged, 0)
      assert.strictEqual(await balance(slow, k.key), b0 - after.body.cost.creditsCharged)
    } finally {
      await slow.close()
    }
  }, 60_000)
})

describe("a defect on the op path (issue 22)", () => {
  it("is answered 500 internal in the D5 shape both ways, and not billed", async () => {
    const { server, db, close } = await startWithDatabase({
      options: { rateLimit: { perSecond: 1_000, burst: 1_000 } }
    })
    try {
      const k = await account(server, 1_000, "defect")
      assert.strictEqual((await post(server, "/api/v1/platforms/maps", stored, k.key)).status, 200)
      const before = await balance(server, k.key)
      // the stored rows' table gone from under the server: its read dies (a defect, not an answer of the domain)
      await db.query("ALTER TABLE measurements RENAME TO measurements_gone")
      const init = {
        headers: { "content-type": "application/json", "x-api-key": k.key },
        body: JSON.stringify({ request: { op: "places", subjects: ["ChIJdefect1"] } })
      }
      const counted = Fallback.answeredHere.count
      const plain = await shape(await send(server, "/api/v1/platforms/maps", init))
      assert.strictEqual(Fallback.answeredHere.count, counted + 1)
      const routed = await shape(await send(server, "/api/v1/platforms/maps/", init))
      await db.query("ALTER TABLE measurements_gone RENAME TO measurements")
      assert.strictEqual(plain.status, 500, JSON.stringify(plain.body))
      assert.strictEqual((plain.body as any).error.code, "internal")
      assert.match((plain.body as any).error.message, /not billed/)
      assert.deepStrictEqual(routed, plain)
      assert.strictEqual(await balance(server, k.key), before)
    } finally {
      await close()
    }
  }, 60_000)
})
