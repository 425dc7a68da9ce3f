// Over a real socket, on the real Postgres server and on the embedded default: the public catalogue (D13), the D5
// error bodies, key authentication (D6), balance (D7) and the operator API.
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import * as Testing from "@pdr/store-pg/Testing"
import { Effect } from "effect"
import { account, admin, balance, conforms, post, type Running, request, start } from "./harness.js"

const targets = await Testing.targets()

for (const t of targets) {
  describe.skipIf(!t.enabled)(`HTTP API on ${t.name}`, () => {
    let server: Running
    beforeAll(async () => {
      server = await start({ target: t.name === "embedded" ? Effect.succeed(Testing.embedded) : t.target })
    }, 60_000)
    afterAll(() => server?.close())

    it("D13: GET /api/v1/platforms answers 200 without a key, with 16 platforms and 70 ops", async () => {
      const r = await request(`${server.api}/api/v1/platforms`)
      assert.strictEqual(r.status, 200)
      assert.strictEqual(r.body.platforms.length, 16)
      assert.strictEqual(r.body.platforms.flatMap((p: any) => p.ops).length, 70)
      assert.strictEqual(r.body.contextVersion, 1)
      assert.strictEqual(typeof r.body.engineVersion, "string")
      const places = r.body.platforms.find((p: any) => p.platform === "maps").ops.find((o: any) => o.op === "places")
      assert.deepStrictEqual(places.price, { rule: "per_subject", startingPrice: 4, rows: null })
      assert.strictEqual(places.freshnessSeconds, 3 * 86400)
      assert.strictEqual(places.requestSchema.properties.subjects.maxItems, 10)
      assert.isString(r.headers.get("x-request-id"))
    })

    it("D13: /openapi.json is an OpenAPI 3.1 document whose references all resolve; /docs serves the docs", async () => {
      const r = await request(`${server.api}/openapi.json`)
      assert.strictEqual(r.status, 200)
      assert.match(r.body.openapi, /^3\.1\.\d+$/)
      assert.isString(r.body.info.title)
      assert.containsAllKeys(r.body.paths, ["/api/v1/platforms", "/api/v1/platforms/maps", "/api/v1/balance"])
      assert.strictEqual(r.body.info.version, (await request(`${server.api}/api/v1/platforms`)).body.engineVersion)
      const refs = [...r.text.matchAll(/"\$ref":"#\/([^"]+)"/g)].map((m) => m[1]!)
      for (const ref of refs) {
        const target = ref
          .split("/")
          .reduce((node: any, part) => node?.[part.replace(/~1/g, "/").replace(/~0/g, "~")], r.body)
        assert.isDefined(target, `dangling $ref #/${ref}`)
      }
      // a path item's operations are its HTTP methods; `parameters` (shared by them) and `summary` are not
      const methods = new Set(["get", "put", "post", "delete", "options", "head", "patch", "trace"])
      for (const [path, item] of Object.entries<any>(r.body.paths)) {
        const ops = Object.entries<any>(item).filter(([key]) => methods.has(key))
        assert.isAbove(ops.length, 0, `${path} has an operation`)
        for (const [method, op] of ops) assert.isObject(op.responses, `${method} ${path} has responses`)
      }
      const docs = await request(`${server.api}/docs`)
      assert.strictEqual(docs.status, 200)
      assert.match(docs.headers.get("content-type") ?? "", /text\/html/)
    })

    it("D5: an unknown route or method gets the JSON error body, never HTML or an empty body", async () => {
      for (const [method, path] of [
        ["GET", "/nope"],
        ["DELETE", "/api/v1/platforms"],
        ["GET", "/api/v2/platforms"]
      ] as const) {
        const r = await request(`${server.api}${path}`, { method })
        assert.strictEqual(r.status, 404)
        assert.strictEqual(r.body.error.code, "not_found")
        assert.strictEqual(r.body.error.requestId, r.headers.get("x-request-id"))
      }
    })

    it("D6: missing, malformed, unknown, revoked, expired and conflicting keys get byte-identical 401s but for the request id", async () => {
      const live = await account(server, 10, "matrix")
      const revoked = await admin(server, "POST", `/admin/accounts/${live.accountId}/keys`, { name: "revoked" })
      await admin(server, "POST", `/admin/keys/${revoked.keyId}/revoke`)
      const soon = new Date(Date.now() + 2_000).toISOString()
      const expiring = await admin(server, "POST", `/admin/accounts/${live.accountId}/keys`, {
        name: "expiring",
        expires: soon
      })
      server.offset.ms += 5_000
      const cases: Array<Record<string, string>> = [
        {},
        { "x-api-key": "not-a-key" },
        { "x-api-key": `key_live_${"A".repeat(32)}` },
        { "x-api-key": revoked.key },
        { "x-api-key": expiring.key },
        { "x-api-key": live.key, authorization: `Bearer ${revoked.key}` },
        { authorization: `Basic ${live.key}` },
        { authorization: `Bearer${live.key}` },
        { "x-api-key": "" }
      ]
      const seen = new Set<string>()
      const headerSets = new Set<string>()
      for (const headers of cases) {
        const r = await request(`${server.api}/api/v1/balance`, { headers })
        assert.strictEqual(r.status, 401, JSON.stringify(headers))
        assert.strictEqual(r.body.error.code, "unauthorized")
        seen.add(r.text.replace(r.body.error.requestId, "<id>"))
        const hs = [...r.headers.entries()].filter(([k]) => !["date", "x-request-id"].includes(k))
        headerSets.add(JSON.stringify(hs))
        const p = await post(
          server,
          "/api/v1/platforms/maps",
          { request: { op: "places", subjects: ["ChIJabcdefghijk"] } },
          "",
          headers
        )
        assert.strictEqual(p.status, 401)
      }
      assert.strictEqual(seen.size, 1, [...seen].join("\n"))
      assert.strictEqual(headerSets.size, 1, [...headerSets].join("\n"))
      assert.strictEqual(await balance(server, live.key), 10)
      server.offset.ms -= 5_000
    })

    it("D7: GET /api/v1/balance with either header; revocation refuses the very next call", async () => {
      const a = await account(server, 42, "balance")
      const viaHeader = await request(`${server.api}/api/v1/balance`, { headers: { "x-api-key": a.key } })
      const viaBearer = await request(`${server.api}/api/v1/balance`, { headers: { authorization: `Bearer ${a.key}` } })
      for (const r of [viaHeader, viaBearer]) {
        assert.strictEqual(r.status, 200)
        assert.deepStrictEqual(Object.keys(r.body).sort(), ["contextVersion", "creditsRemaining", "engineVersion"])
        assert.strictEqual(r.body.creditsRemaining, 42)
      }
      await admin(server, "POST", `/admin/keys/${a.keyId}/revoke`)
      const after = await request(`${server.api}/api/v1/balance`, { headers: { "x-api-key": a.key } })
      assert.strictEqual(after.status, 401)
    })

    it("operator API: refuses a missing or wrong token and API keys; creates, lists, grants, revokes", async () => {
      const a = await account(server, 5, "operator")
      for (const headers of [
        {},
        { authorization: "Bearer wrong" },
        { authorization: `Bearer ${a.key}` },
        { "x-api-key": a.key }
      ]) {
        const r = await request(`${server.admin}/admin/accounts`, { headers })
        assert.strictEqual(r.status, 401)
        assert.strictEqual(r.body.error.code, "unauthorized")
      }
      const viaPublic = await request(`${server.api}/admin/accounts`, { headers: { "x-api-key": a.key } })
      assert.strictEqual(viaPublic.status, 404)
      const granted = await admin(server, "POST", `/admin/accounts/${a.accountId}/credits`, {
        credits: 20,
        reason: "top-up"
      })
      assert.strictEqual(granted.balance, 25)
      const shown = await admin(server, "GET", `/admin/accounts/${a.accountId}`)
      assert.deepStrictEqual(
        shown.ledger.map((e: any) => [e.kind, e.credits, e.reason]),
        [
          ["grant", 20, "top-up"],
          ["grant", 5, "initial grant"]
        ]
      )
      const keys = await admin(server, "GET", `/admin/accounts/${a.accountId}/keys`)
      assert.strictEqual(keys.keys.length, 1)
      assert.strictEqual(keys.keys[0].prefix, a.key.slice(0, 13))
      assert.notInclude(JSON.stringify(keys), a.key)
      const bad = await request(`${server.admin}/admin/accounts/${a.accountId}/credits`, {
        method: "POST",
        headers: { authorization: `Bearer ${server.token}` },
        body: JSON.stringify({ credits: -3, reason: "x" })
      })
      assert.strictEqual(bad.status, 400)
      assert.strictEqual(bad.body.error.details[0].path, "credits")
    })

    it("D5: invalid JSON, a non-JSON body, an unknown op and an unknown platform are told apart, and nothing is billed", async () => {
      const a = await account(server, 100, "errors")
      const badJson = await request(`${server.api}/api/v1/platforms/maps`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-api-key": a.key },
        body: "{nope"
      })
      assert.deepStrictEqual([badJson.status, badJson.body.error.code], [400, "invalid_request"])
      const form = await request(`${server.api}/api/v1/platforms/maps`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded", "x-api-key": a.key },
        body: "request=1"
      })
      assert.deepStrictEqual([form.status, form.body.error.code], [415, "unsupported_media_type"])
      const op = await post(server, "/api/v1/platforms/maps", { request: { op: "teleport" } }, a.key)
      assert.deepStrictEqual([op.status, op.body.error.code], [400, "unknown_op"])
      const platform = await post(server, "/api/v1/platforms/moon", { request: { op: "x" } }, a.key)
      assert.deepStrictEqual([platform.status, platform.body.error.code], [404, "unknown_platform"])
      assert.include(platform.body.error.message, "maps", "the message lists the served platforms")
      const fields = await post(
        server,
        "/api/v1/platforms/maps",
        { request: { op: "search", query: "", limit: 101, minRating: "5" } },
        a.key
      )
      assert.strictEqual(fields.status, 400)
      assert.sameMembers(
        fields.body.error.details.map((d: any) => d.path),
        ["request.query", "request.location", "request.minRating", "request.limit"]
      )
      const unavailable = await post(server, "/api/v1/platforms/explore", { request: { op: "sources" } }, a.key)
      assert.deepStrictEqual([unavailable.status, unavailable.body.error.code], [503, "op_unavailable"])
      assert.strictEqual(await balance(server, a.key), 100)
    })

    it("the harness refuses answers that break the published contract (status, body, header)", async () => {
      const a = await account(server, 100, "contract")
      const good = await post(
        server,
        "/api/v1/platforms/maps",
        { request: { op: "places", subjects: ["ChIJcontract-01"] } },
        a.key
      )
      const url = `${server.api}/api/v1/platforms/maps`
      const row = { ...good.body.data[0] }
      delete row.rating
      const broken = [
        { ...good, body: { ...good.body, data: [row] } },
        { ...good, body: { ...good.body, coverage: [{ ...good.body.coverage[0], status: "done" }] } },
        { ...good, status: 404 },
        { ...good, headers: new Headers({ "content-type": "application/json" }) }
      ]
      for (const reply of broken) {
        const refused = await conforms(url, "POST", reply).then(
          () => false,
          () => true
        )
        assert.isTrue(refused)
      }
      await conforms(url, "POST", good)
    })

    it("D19: the catalogue lists the explore sources served now with their price; an unknown one is told the names", async () => {
      const catalogue = await request(`${server.api}/api/v1/platforms`)
      const run = catalogue.body.platforms
        .find((p: any) => p.platform === "explore")
        .ops.find((o: any) => o.op === "run")
      assert.deepStrictEqual(
        run.sources.find((s: any) => s.name === "synthetic/podcast-episodes"),
        { name: "synthetic/podcast-episodes", price: { credits: 2, rows: 10 } }
      )
      const a = await account(server, 100, "explore")
      const listed = await post(
        server,
        "/api/v1/platforms/explore",
        { request: { op: "run", source: run.sources[0].name, limit: 10 } },
        a.key
      )
      assert.strictEqual(listed.status, 200)
      const unknown = await post(server, "/api/v1/platforms/explore", { request: { op: "run", source: "nope" } }, a.key)
      assert.deepStrictEqual([unknown.status, unknown.body.error.code], [400, "invalid_request"])
      assert.strictEqual(unknown.body.error.details[0].path, "request.source")
      for (const s of run.sources) assert.include(unknown.body.error.details[0].message, s.name)
    })
  })
}
