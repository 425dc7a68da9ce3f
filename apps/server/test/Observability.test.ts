// Issue 25: probes, Prometheus metrics (parsed with parse-prometheus-text-format, a maintained parser of the text
// format whose output is prom2json's: [{ name, help, type, metrics: [{ labels, value | buckets, count, sum }] }]),
// bounded labels under a fuzz of subjects, traces received by a loopback OTLP/HTTP receiver, and a readiness that
// follows the database through a TCP proxy the test stops and starts again.
import { createServer, type IncomingMessage, type Server } from "node:http"
import { Telemetry } from "@pdr/core"
import * as Testing from "@pdr/store-pg/Testing"
import { Effect, Exit, Option, Scope } from "effect"
import parse from "parse-prometheus-text-format"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as H from "./harness.js"

const serverOk = await Testing.serverAvailable()

/** A plain GET (the harness's `request` checks answers against the API's document; the probes are not in it). */
const get = async (url: string) => {
  const r = await fetch(url)
  const text = await r.text()
  return { status: r.status, body: JSON.parse(text) }
}

const scrape = async (server: H.Running) => {
  const r = await fetch(`${server.admin}/metrics`, { headers: { authorization: `Bearer ${server.token}` } })
  expect(r.status).toBe(200)
  expect(r.headers.get("content-type")).toContain("text/plain")
  return parse(await r.text())
}

/** The value of one series (0 when absent); a histogram's count. */
const seriesValue = (families: ReturnType<typeof parse>, name: string, labels: Record<string, string> = {}): number => {
  const family = families.find((f) => f.name === name)
  const sample = family?.metrics.find((m) => Object.entries(labels).every(([k, v]) => m.labels?.[k] === v))
  if (sample === undefined) return 0
  return Number(sample.value ?? sample.count ?? 0)
}

describe.skipIf(!serverOk)("probes and metrics", () => {
  let server: H.Running
  let close: () => Promise<void>
  beforeAll(async () => {
    const started = await H.startWithDatabase()
    server = started.server
    close = started.close
  })
  afterAll(async () => close?.())

  it("/healthz and /readyz answer without a key; /readyz says what it checked", async () => {
    const health = await get(`${server.api}/healthz`)
    expect(health.status).toBe(200)
    expect(health.body).toEqual({ status: "ok" })
    const ready = await get(`${server.api}/readyz`)
    expect(ready.status).toBe(200)
    expect(ready.body).toEqual({ status: "ready", checks: { database: "ok", migrations: "ok", upstream: "ok" } })
  })

  it("/metrics is behind the operator token, not an API key", async () => {
    const { key } = await H.account(server, 10)
    expect((await fetch(`${server.admin}/metrics`)).status).toBe(401)
    expect((await fetch(`${server.admin}/metrics`, { headers: { authorization: `Bearer ${key}` } })).status).toBe(401)
    expect((await fetch(`${server.admin}/metrics`, { headers: { authorization: "Bearer nope" } })).status).toBe(401)
    expect(
      (await fetch(`${server.api}/metrics`, { headers: { authorization: `Bearer ${server.token}` } })).status
    ).toBe(404)
  })

  it("a paid call moves the counters it should, and a repeat moves the stored units and not the credits", async () => {
    const { key } = await H.account(server, 1_000)
    const before = await scrape(server)
    const call = { request: { op: "places", subjects: ["ChIJmetricsPaid1"] } }
    const paid = await H.post(server, "/api/v1/platforms/maps", call, key)
    expect(paid.status).toBe(200)
    const charged = paid.body.cost.creditsCharged as number
    expect(charged).toBeGreaterThan(0)
    const after = await scrape(server)
    const op = { platform: "maps", op: "places" }
    const delta = (name: string, labels: Record<string, string> = {}) =>
      seriesValue(after, name, labels) - seriesValue(before, name, labels)
    expect(delta("pdr_paid_calls_total", op)).toBe(1)
    expect(delta("pdr_credits_charged_total", op)).toBe(charged)
    expect(delta("pdr_units_total", { ...op, coverage: "fetched" })).toBe(1)
    expect(delta("pdr_upstream_units_total", { adapter: "synthetic", outcome: "ok" })).toBe(1)
    const route = { route: "/api/v1/platforms/maps", method: "POST", status: "200" }
    expect(delta("pdr_http_requests_total", route)).toBe(1)
    // the parser reads a histogram whose _count comes before its buckets (as OpenTelemetry's serializer writes it)
    // without its labels: its count is read from the text
    const count = (text: string) =>
      Number(
        /pdr_http_request_duration_seconds_count\{route="\/api\/v1\/platforms\/maps",method="POST",status="200"\} (\d+)/.exec(
          text
        )?.[1] ?? 0
      )
    const text = await (
      await fetch(`${server.admin}/metrics`, { headers: { authorization: `Bearer ${server.token}` } })
    ).text()
    expect(count(text)).toBe(seriesValue(after, "pdr_http_requests_total", route))
    // the hold was captured: none in flight
    expect(seriesValue(after, "pdr_holds_active")).toBe(0)

    const repeat = await H.post(server, "/api/v1/platforms/maps", call, key)
    expect(repeat.body.cost.creditsCharged).toBe(0)
    const quote = await H.post(server, "/api/v1/platforms/maps", { ...call, estimateOnly: true }, key)
    expect(quote.status).toBe(200)
    const idem = { "idempotency-key": `idem-${Date.now()}` }
    const other = { request: { op: "places", subjects: ["ChIJmetricsPaid2"] } }
    await H.post(server, "/api/v1/platforms/maps", other, key, idem)
    await H.post(server, "/api/v1/platforms/maps", other, key, idem)
    await H.post(server, "/api/v1/platforms/maps", call, "pdr_live_wrong")
    const last = await scrape(server)
    const since = (name: string, labels: Record<string, string> = {}) =>
      seriesValue(last, name, labels) - seriesValue(after, name, labels)
    expect(since("pdr_paid_calls_total", op)).toBe(1)
    expect(since("pdr_units_total", { ...op, coverage: "stored" })).toBe(1)
    expect(since("pdr_quotes_total", op)).toBe(1)
    expect(since("pdr_idempotent_replays_total")).toBe(1)
    expect(since("pdr_auth_failures_total")).toBe(1)
    expect(since("pdr_http_requests_total", { ...route, status: "401" })).toBe(1)
  })

  it("no label carries a key, an email, a subject or an account id, whatever the callers send (bounded labels)", async () => {
    const { key, keyId, accountId } = await H.account(server, 100_000)
    const secrets: Array<string> = [key, keyId, accountId]
    const random = () => Math.random().toString(36).slice(2, 10)
    for (let i = 0; i < 40; i++) {
      const subject = `ChIJfuzz${random()}`
      const email = `fuzz.${random()}@example.com`
      secrets.push(subject, email)
      const platform = i % 5 === 0 ? `nope${random()}` : "maps"
      const bodies = [
        { request: { op: "places", subjects: [subject] } },
        { request: { op: `op${random()}`, subjects: [subject] } },
        { request: { op: "places", subjects: [email] } },
        { request: { op: "contacts", subjects: [email] } }
      ]
      for (const body of bodies) await H.post(server, `/api/v1/platforms/${platform}`, body, key)
      const wrongKey = `pdr_live_${random()}${random()}`
      secrets.push(wrongKey)
      await H.post(server, "/api/v1/platforms/maps", bodies[0], wrongKey)
      await fetch(`${server.api}/${random()}/${subject}`)
    }
    const families = await scrape(server)
    const allowed = new Set([
      "route",
      "method",
      "status",
      "platform",
      "op",
      "coverage",
      "error",
      "adapter",
      "host",
      "outcome",
      "reason",
      "le"
    ])
    let series = 0
    for (const family of families) {
      for (const sample of family.metrics) {
        series++
        for (const [name, value] of Object.entries(sample.labels ?? {})) {
          expect(allowed.has(name), `label ${name} of ${family.name}`).toBe(true)
          for (const secret of secrets) expect(value.includes(secret), `${family.name}{${name}="${value}"}`).toBe(false)
          expect(value).not.toMatch(/@|ChIJ|pdr_live|acct_|key_/)
        }
      }
    }
    // 200 distinct subjects, 40 unknown platforms and ops, 40 unknown paths: the series stay few
    expect(series).toBeLessThan(400)
    const ops = new Set(families.find((f) => f.name === "pdr_units_total")?.metrics.map((m) => m.labels?.["op"]))
    expect([...ops].every((o) => o === "unknown" || /^[a-z_]+$/.test(o ?? ""))).toBe(true)
  })
})

describe.skipIf(!serverOk)("readiness follows the database", () => {
  it("/readyz is 503 while the database is unreachable and 200 after it returns; /healthz stays 200", async () => {
    const scope = Effect.runSync(Scope.make())
    const target = await Effect.runPromise(Scope.extend(Testing.freshServerSchema(2), scope))
    if (target._tag !== "Server") throw new Error("expected a server target")
    const url = new URL(target.url)
    const tcp = Testing.tcpProxy({ host: url.hostname, port: Number(url.port || 5432) })
    url.port = String(await tcp.up())
    const server = await H.start({ target: Effect.succeed({ ...target, url: url.toString() }) })
    try {
      expect((await get(`${server.api}/readyz`)).status).toBe(200)
      await tcp.down()
      await new Promise((r) => setTimeout(r, 600))
      const t0 = Date.now()
      const down = await get(`${server.api}/readyz`)
      expect(down.status).toBe(503)
      expect(down.body.status).toBe("not_ready")
      // what the database does (the probe's statement waits for a connection while it refuses them: a restart)
      expect(down.body.reason).toMatch(/^the database refuses connections \(.*ECONNREFUSED.*\) since \d+ s$/)
      // cheap for a probe: the check is bounded by its own timeout
      expect(Date.now() - t0).toBeLessThan(2_500)
      expect((await get(`${server.api}/healthz`)).status).toBe(200)
      await tcp.up()
      let status = 0
      for (let i = 0; i < 40 && status !== 200; i++) {
        await new Promise((r) => setTimeout(r, 250))
        status = (await get(`${server.api}/readyz`)).status
      }
      expect(status).toBe(200)
    } finally {
      await server.close()
      await tcp.down()
      await Effect.runPromise(Scope.close(scope, Exit.void))
    }
  }, 30_000)

  it("/readyz is 503 within its timeout while the database does not answer, and 200 once it answers again", async () => {
    const scope = Effect.runSync(Scope.make())
    const target = await Effect.runPromise(Scope.extend(Testing.freshServerSchema(4), scope))
    if (target._tag !== "Server") throw new Error("expected a server target")
    const url = new URL(target.url)
    const tcp = Testing.tcpProxy({ host: url.hostname, port: Number(url.port || 5432) })
    url.port = String(await tcp.up())
    const server = await H.start({ target: Effect.succeed({ ...target, url: url.toString() }) })
    try {
      expect((await get(`${server.api}/readyz`)).status).toBe(200)
      tcp.freeze()
      await new Promise((r) => setTimeout(r, 600))
      // the probe's statement is not interrupted (no statement is): it is left to finish, the probe answers in time
      const t0 = Date.now()
      const down = await get(`${server.api}/readyz`)
      expect(down.status).toBe(503)
      expect(down.body.reason).toMatch(/no answer/)
      expect(Date.now() - t0).toBeLessThan(2_500)
      expect((await get(`${server.api}/healthz`)).status).toBe(200)
      tcp.thaw()
      let status = 0
      for (let i = 0; i < 40 && status !== 200; i++) {
        await new Promise((r) => setTimeout(r, 250))
        status = (await get(`${server.api}/readyz`)).status
      }
      expect(status).toBe(200)
    } finally {
      tcp.thaw()
      await server.close()
      await tcp.down()
      await Effect.runPromise(Scope.close(scope, Exit.void))
    }
  }, 30_000)
})

/** A loopback OTLP/HTTP receiver (JSON): every span it was sent, with its trace id and attributes. */
const receiver = async () => {
  const spans: Array<{ name: string; traceId: string; attributes: Record<string, unknown> }> = []
  const bodies: Array<string> = []
  const server: Server = createServer((req: IncomingMessage, res) => {
    let body = ""
    req.on("data", (d) => (body += d))
    req.on("end", () => {
      bodies.push(body)
      try {
        const parsed = JSON.parse(body)
        for (const rs of parsed.resourceSpans ?? [])
          for (const ss of rs.scopeSpans ?? [])
            for (const s of ss.spans ?? [])
              spans.push({
                name: s.name,
                traceId: s.traceId,
                attributes: Object.fromEntries(
                  (s.attributes ?? []).map((a: any) => [a.key, Object.values(a.value ?? {})[0]])
                )
              })
      } catch {}
      res.writeHead(200, { "content-type": "application/json" })
      res.end("{}")
    })
  })
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()))
  const port = (server.address() as { port: number }).port
  return { url: `http://127.0.0.1:${port}/v1/traces`, spans, bodies, close: () => new Promise((r) => server.close(r)) }
}

const tracing = (url: string): Telemetry.Settings => ({
  ...Telemetry.testing,
  tracesUrl: Option.some(url),
  exportTimeoutMs: 500
})

describe.skipIf(!serverOk)("traces", () => {
  it("a loopback OTLP receiver gets one trace per call with its spans and nothing secret", async () => {
    const otlp = await receiver()
    const { server, close } = await H.startWithDatabase({ options: { telemetry: tracing(otlp.url) } })
    try {
      const { key, keyId, accountId } = await H.account(server, 1_000)
      const subject = "ChIJtracedSubject1"
      const paid = await H.post(
        server,
        "/api/v1/platforms/maps",
        { request: { op: "places", subjects: [subject] } },
        key
      )
      expect(paid.status).toBe(200)
      const requestId = paid.headers.get("x-request-id")
      let root: (typeof otlp.spans)[number] | undefined
      for (let i = 0; i < 40 && root === undefined; i++) {
        await new Promise((r) => setTimeout(r, 200))
        root = otlp.spans.find((s) => s.attributes["pdr.request_id"] === requestId)
      }
      expect(root?.name).toBe("POST /api/v1/platforms/maps")
      await new Promise((r) => setTimeout(r, 1_500))
      const trace = otlp.spans.filter((s) => s.traceId === root!.traceId)
      const names = new Set(trace.map((s) => s.name))
      for (const name of [
        "Keys.authenticate",
        "Calls.call",
        "Calls.plan",
        "Ledger.placeHold",
        "Upstream.fetch",
        "Ledger.settle",
        "OpsHttp.answer"
      ])
        expect(names.has(name), `${name} in ${[...names].join(", ")}`).toBe(true)
      const fetchSpan = trace.find((s) => s.name === "Upstream.fetch")!
      expect(fetchSpan.attributes["upstream.adapter"]).toBe("synthetic")
      expect(fetchSpan.attributes["pdr.op"]).toBe("places")
      expect(root!.attributes["http.response.status_code"]).toBeDefined()
      const everything = otlp.bodies.join("\n")
      for (const secret of [key, keyId, accountId, subject, server.token]) expect(everything).not.toContain(secret)
    } finally {
      await close()
      await otlp.close()
    }
  }, 30_000)

  it("an OTLP endpoint that is down neither slows nor fails a call; its spans are dropped and counted", async () => {
    const gone = await receiver()
    await gone.close()
    const { server, close } = await H.startWithDatabase({ options: { telemetry: tracing(gone.url) } })
    try {
      const { key } = await H.account(server, 10_000)
      const before = seriesValue(await scrape(server), "pdr_trace_spans_dropped_total")
      const t0 = Date.now()
      for (let i = 0; i < 20; i++) {
        const r = await H.post(
          server,
          "/api/v1/platforms/maps",
          { request: { op: "places", subjects: [`ChIJdownSubject${i}x`] } },
          key
        )
        expect(r.status).toBe(200)
      }
      // 20 paid calls on loopback: well under the export timeout each, so none waited on the endpoint
      expect(Date.now() - t0).toBeLessThan(20 * 500)
      let dropped = 0
      for (let i = 0; i < 30 && dropped === 0; i++) {
        await new Promise((r) => setTimeout(r, 200))
        dropped = seriesValue(await scrape(server), "pdr_trace_spans_dropped_total") - before
      }
      expect(dropped).toBeGreaterThan(0)
    } finally {
      await close()
    }
  }, 30_000)
})
