// Both typed clients (packages/client) against the real server over a real socket on PostgreSQL: a correct program,
// a 429 retried after Retry-After, and a paid call retried after a lost answer with the same Idempotency-Key (D16).
import { readFileSync } from "node:fs"
import { FetchHttpClient } from "@effect/platform"
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { createClient } from "@pdr/client"
import * as PdrClient from "@pdr/client/effect"
import { generate, target } from "@pdr/client/generate"
import { Catalogue, Examples } from "@pdr/domain"
import * as Testing from "@pdr/store-pg/Testing"
import { Effect } from "effect"
import { account, balance, type Running, start } from "./harness.js"

const serverUp = await Testing.serverAvailable()

/** A fetch that records what it sends and answers. */
const recording = (inner: typeof fetch = fetch) => {
  const sent: Array<{ url: string; headers: Headers; status: number | "lost"; at: number }> = []
  const wrapped: typeof fetch = async (input, init) => {
    const res = await inner(input, init)
    sent.push({ url: String(input), headers: new Headers(init?.headers), status: res.status, at: Date.now() })
    return res
  }
  return { sent, fetch: wrapped }
}

describe.skipIf(!serverUp)("Promise client (and the Effect client against the rate limit)", () => {
  let server: Running
  beforeAll(async () => {
    server = await start({ options: { rateLimit: { perSecond: 1, burst: 3 } } })
  }, 60_000)
  afterAll(() => server?.close())

  it("catalogue, balance, an estimate and a paid call, typed from the OpenAPI document", async () => {
    const a = await account(server, 100, "promise")
    const client = createClient({ baseUrl: server.api, apiKey: a.key })
    const catalogue = await client.catalogue()
    assert.isTrue(catalogue.ok)
    if (catalogue.ok) assert.isTrue(catalogue.value.platforms.some((p) => p.platform === "jobs_global"))
    const quote = await client.call("jobs_global", { op: "jobs", subjects: ["jobkey00000001"] }, { estimateOnly: true })
    assert.isTrue(quote.ok)
    if (!quote.ok) return
    assert.isAbove(quote.value.estimate?.credits ?? 0, 0)
    assert.strictEqual(quote.value.cost.creditsCharged, 0)
    const paid = await client.call("jobs_global", { op: "jobs", subjects: ["jobkey00000001"] })
    assert.isTrue(paid.ok)
    if (!paid.ok) return
    assert.strictEqual(paid.value.cost.creditsCharged, quote.value.estimate?.credits)
    assert.strictEqual(paid.requestId, paid.value.requestId)
    const left = await client.balance()
    assert.deepStrictEqual(left.ok && left.value.creditsRemaining, 100 - paid.value.cost.creditsCharged)
    const bad = await client.call("jobs_global", { op: "jobz" } as never)
    assert.isFalse(bad.ok)
    if (!bad.ok) assert.deepStrictEqual([bad.status, bad.error.code], [400, "unknown_op"])
  }, 60_000)

  it("D12: a 429 is retried after its Retry-After, and the call then succeeds", async () => {
    const a = await account(server, 100, "limited")
    const rec = recording()
    const client = createClient({ baseUrl: server.api, apiKey: a.key, fetch: rec.fetch })
    const first = await Promise.all([client.balance(), client.balance(), client.balance()])
    assert.deepStrictEqual(
      first.map((r) => r.ok),
      [true, true, true]
    )
    const limited = await client.balance()
    assert.isTrue(limited.ok)
    const statuses = rec.sent.slice(3).map((s) => s.status)
    assert.strictEqual(statuses[0], 429)
    assert.strictEqual(statuses.at(-1), 200)
    const waited = rec.sent.at(-1)!.at - rec.sent[3]!.at
    assert.isAtLeast(waited, 900, "the client waited the Retry-After second")
    const none = createClient({ baseUrl: server.api, apiKey: a.key, maxRetries: 0 })
    await Promise.all([none.balance(), none.balance(), none.balance()])
    const refused = await none.balance()
    assert.deepStrictEqual([refused.ok, refused.status], [false, 429])
    if (!refused.ok) assert.strictEqual(refused.error.code, "rate_limited")
  }, 60_000)

  it("D12: the Effect client retries a 429 after its Retry-After; without retries the 429 is caught by tag", async () => {
    const a = await account(server, 100, "effect 429")
    const program = Effect.gen(function* () {
      const client = yield* PdrClient.make({ baseUrl: server.api, apiKey: a.key })
      yield* Effect.all([client.account.balance(), client.account.balance(), client.account.balance()], {
        concurrency: 3
      })
      const started = Date.now()
      const retried = yield* client.account.balance()
      const waited = Date.now() - started
      const none = yield* PdrClient.make({ baseUrl: server.api, apiKey: a.key, maxRetries: 0 })
      yield* Effect.all([none.account.balance(), none.account.balance(), none.account.balance()], {
        concurrency: 3,
        mode: "either"
      })
      const refused = yield* none.account.balance().pipe(
        Effect.as("answered" as const),
        Effect.catchTag("RateLimited", (e) => Effect.succeed(e.error.code))
      )
      return { retried, waited, refused }
    })
    const r = await Effect.runPromise(program.pipe(Effect.provide(FetchHttpClient.layer)))
    assert.strictEqual(r.retried.creditsRemaining, 100)
    assert.isAtLeast(r.waited, 900, "the client waited the Retry-After second")
    assert.strictEqual(r.refused, "rate_limited")
  }, 60_000)

  it("D16: a paid call whose answer is lost is retried with the same Idempotency-Key and billed once", async () => {
    const a = await account(server, 100, "lost")
    const keys: Array<string | null> = []
    let lose = true
    const flaky: typeof fetch = async (input, init) => {
      keys.push(new Headers(init?.headers).get("idempotency-key"))
      const res = await fetch(input, init)
      if (lose && String(input).includes("/platforms/")) {
        lose = false
        await res.text()
        throw new TypeError("fetch failed: connection reset after the server answered")
      }
      return res
    }
    const client = createClient({ baseUrl: server.api, apiKey: a.key, fetch: flaky })
    const paid = await client.call("jobs_global", { op: "jobs", subjects: ["jobkey00000002"] })
    assert.isTrue(paid.ok)
    if (!paid.ok) return
    assert.strictEqual(keys.length, 2)
    assert.match(keys[0]!, /^[0-9a-f-]{36}$/)
    assert.strictEqual(keys[1], keys[0])
    assert.strictEqual(paid.headers.get("idempotent-replayed"), "true")
    assert.isAbove(paid.value.cost.creditsCharged, 0)
    assert.strictEqual(await balance(server, a.key), 100 - paid.value.cost.creditsCharged)
    const estimateKeys = keys.length
    await client.call("jobs_global", { op: "jobs", subjects: ["jobkey00000002"] }, { estimateOnly: true })
    assert.isNull(keys[estimateKeys], "a quote spends nothing and carries no key")
  }, 60_000)
})

describe.skipIf(!serverUp)("Effect client and the served document", () => {
  let server: Running
  beforeAll(async () => {
    server = await start()
  }, 60_000)
  afterAll(() => server?.close())

  it("the Promise client's committed types are those of the document the server serves", async () => {
    const served = (await (await fetch(`${server.api}/openapi.json`)).json()) as object
    assert.strictEqual(await generate(served), readFileSync(target, "utf8"))
  }, 30_000)

  it("a program on the derived clients: operator setup, catalogue, quote, call, balance, 402 caught", async () => {
    const program = Effect.gen(function* () {
      const admin = yield* PdrClient.makeAdmin({ baseUrl: server.admin, token: server.token })
      const account = yield* admin.accounts.create({ payload: { name: "effect", credits: 3 } })
      const key = yield* admin.keys.create({ path: { accountId: account.accountId }, payload: { name: "effect key" } })
      const client = yield* PdrClient.make({ baseUrl: server.api, apiKey: key.key })
      const catalogue = yield* client.catalogue.platforms()
      const jobs = catalogue.platforms.find((p) => p.platform === "jobs_global")
      const request = { op: "jobs", subjects: ["jobkey00000003"] } as const
      // the derived endpoint of the platform, and the typed call over it (with an Idempotency-Key)
      const quote = PdrClient.answered(
        yield* client.platforms.jobs_global({ payload: { request, estimateOnly: true }, headers: {} })
      )
      const paid = yield* PdrClient.call(client, "jobs_global", request)
      const [replayedAnswer, replayedResponse] = yield* client.platforms.jobs_global({
        payload: { request: { op: "jobs", subjects: ["jobkey00000003"] } },
        headers: { "idempotency-key": "effect-replay" },
        withResponse: true
      })
      const replayed = [PdrClient.answered(replayedAnswer), replayedResponse] as const
      const balance = yield* client.account.balance()
      const tooDear = yield* PdrClient.call(client, "jobs_global", {
        op: "jobs",
        subjects: ["jobkey00000004", "jobkey00000005", "jobkey00000006"]
      }).pipe(
        Effect.map(() => "charged" as const),
        Effect.catchTag("InsufficientCredits", (e) => Effect.succeed(e.error))
      )
      const shown = yield* admin.accounts.show({ path: { accountId: account.accountId } })
      return { jobs, quote, paid, replayed, balance, tooDear, shown }
    })
    const r = await Effect.runPromise(program.pipe(Effect.provide(FetchHttpClient.layer)))
    assert.isDefined(r.jobs)
    assert.strictEqual(r.quote.cost.creditsCharged, 0)
    assert.strictEqual(r.paid.cost.creditsCharged, r.quote.estimate?.credits)
    assert.strictEqual(r.paid.data[0]?.subject, "jobkey00000003")
    assert.strictEqual(r.paid.data[0]?.jobKey, "jobkey00000003")
    // stored and fresh: served free, with the same typed row
    assert.strictEqual(r.replayed[0].cost.creditsCharged, 0)
    assert.strictEqual(r.replayed[1].headers["x-request-id"], r.replayed[0].requestId)
    assert.strictEqual(r.balance.creditsRemaining, 3 - r.paid.cost.creditsCharged)
    assert.notStrictEqual(r.tooDear, "charged")
    if (r.tooDear !== "charged") assert.strictEqual(r.tooDear.code, "insufficient_credits")
    assert.strictEqual(r.shown.balance, r.balance.creditsRemaining)
    assert.deepStrictEqual(
      r.shown.ledger.map((e) => e.kind),
      ["capture", "grant"]
    )
  }, 60_000)

  it("the Effect client decodes a real answer of every available op with the contract's row Schemas", async () => {
    const a = await account(server, 1_000_000, "every op")
    const program = Effect.gen(function* () {
      const client = yield* PdrClient.make({ baseUrl: server.api, apiKey: a.key })
      const rows: Array<string> = []
      for (const p of Catalogue.platforms) {
        for (const o of p.ops.filter((o) => o.available)) {
          const request = Examples.minimal(o, "synthetic/app-charts")
          // twice: fetched and billed, then served from the store (or, for history, the points just measured)
          for (const _ of [1, 2]) {
            const answer = yield* PdrClient.call(client, p.id as "maps", request as never)
            rows.push(`${p.id} ${o.name} ${answer.data.length}`)
          }
        }
      }
      return rows
    })
    const rows = await Effect.runPromise(program.pipe(Effect.provide(FetchHttpClient.layer)))
    const available = Catalogue.platforms.flatMap((p) => p.ops.filter((o) => o.available))
    assert.strictEqual(rows.length, 2 * available.length)
    assert.isTrue(
      rows.some((r) => r.startsWith("contacts reveal") && !r.endsWith(" 0")),
      "contacts rows decoded"
    )
    assert.isTrue(
      rows.some((r) => r.startsWith("explore run") && !r.endsWith(" 0")),
      "explore rows decoded"
    )
    assert.isTrue(
      rows.some((r) => r.startsWith("maps history") && !r.endsWith(" 0")),
      "history rows decoded"
    )
  }, 120_000)
})
