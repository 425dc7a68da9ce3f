// Issue 22: `POST /api/v1/platforms/<platform>` is served beside the framework's router (OpsHttp.routeLayer) when its
// path is plain; any other spelling of the same route (a trailing or doubled slash, upper case, an escape, `;`) still
// goes through the router. The same request must get the same answer both ways: status, body (but for its ids) and
// headers (but for the values that change per request), for answers and for every kind of refusal.
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { account, post, type Running, request, start } from "./harness.js"

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
