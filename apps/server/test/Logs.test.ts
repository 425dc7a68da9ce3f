// Issue 25 on a real process: logs are JSON lines when not on a terminal (every line parses; a call's line has its
// request id, key id (never the key), route, status, duration and credits), and at shutdown /readyz turns 503 while
// the listener still accepts, for SHUTDOWN_DRAIN_MS, before it stops accepting.
import * as Testing from "@pdr/store-pg/Testing"
import { Effect, Exit, Scope } from "effect"
import { afterAll, assert, describe, it } from "vitest"
import { spawnServer } from "./processes.js"

const serverUp = await Testing.serverAvailable()

describe.skipIf(!serverUp)("logs and shutdown of a server process", () => {
  const cleanups: Array<() => Promise<unknown>> = []
  afterAll(async () => {
    for (const c of cleanups.reverse()) await c().catch(() => {})
  })

  it("JSON lines with the request's fields; /readyz 503 during the drain, then the listener closes", async () => {
    const scope = Effect.runSync(Scope.make())
    const target = await Effect.runPromise(Scope.extend(Testing.freshServerSchema(), scope))
    if (target._tag !== "Server") throw new Error("expected a server target")
    cleanups.push(() => Effect.runPromise(Scope.close(scope, Exit.void)))
    const server = await spawnServer({ DATABASE_URL: target.url, LOG_FORMAT: "json", SHUTDOWN_DRAIN_MS: "1500" })
    cleanups.push(async () => server.child.kill("SIGKILL"))
    const operator = async (path: string, body: unknown) =>
      (await fetch(`${server.admin}${path}`, {
        method: "POST",
        headers: { authorization: `Bearer ${server.token}`, "content-type": "application/json" },
        body: JSON.stringify(body)
      }).then((r) => r.json())) as any
    const account = await operator("/admin/accounts", { name: "logs", credits: 100 })
    const key = await operator(`/admin/accounts/${account.accountId}/keys`, { name: "logs" })
    const paid = await fetch(`${server.api}/api/v1/platforms/maps`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-api-key": key.key },
      body: JSON.stringify({ request: { op: "places", subjects: ["ChIJloggedSubject1"] } })
    })
    assert.strictEqual(paid.status, 200)
    const requestId = paid.headers.get("x-request-id")
    const charged = ((await paid.json()) as any).cost.creditsCharged
    const refused = await fetch(`${server.api}/api/v1/platforms/maps`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-api-key": "pdr_live_notakey" },
      body: "{}"
    })
    assert.strictEqual(refused.status, 401)
    assert.strictEqual((await fetch(`${server.api}/readyz`)).status, 200)

    server.child.kill("SIGTERM")
    await new Promise((r) => setTimeout(r, 300))
    // draining: still accepting, not ready
    const draining = await fetch(`${server.api}/readyz`)
    assert.strictEqual(draining.status, 503)
    assert.strictEqual(((await draining.json()) as any).reason, "shutting down")
    assert.strictEqual(await server.exited, 0, server.output())
    const closed = await fetch(`${server.api}/healthz`).then(
      () => false,
      () => true
    )
    assert.isTrue(closed)

    const lines = server
      .output()
      .split("\n")
      .filter((l) => l.length > 0)
    assert.isAbove(lines.length, 3)
    const records = lines.map((line) => {
      try {
        return JSON.parse(line) as Record<string, any>
      } catch {
        throw new Error(`not a JSON line: ${line}`)
      }
    })
    const call = records.find((r) => r["annotations"]?.requestId === requestId)
    assert.isDefined(call, server.output())
    assert.deepInclude(call!["annotations"], {
      keyId: key.keyId,
      method: "POST",
      route: "/api/v1/platforms/maps",
      status: 200,
      credits: charged
    })
    assert.isNumber(call!["annotations"].durationMs)
    const unauthorized = records.find((r) => r["annotations"]?.status === 401)
    assert.isDefined(unauthorized)
    assert.isUndefined(unauthorized!["annotations"].keyId)
    // the key and the token are never written
    assert.notInclude(server.output(), key.key)
    assert.notInclude(server.output(), server.token)
    assert.notInclude(server.output(), "pdr_live_notakey")
  }, 60_000)
})
