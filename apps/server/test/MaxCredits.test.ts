// D18 spend cap over a real socket on the real PostgreSQL server: a call exactly at its quote passes and bills the
// quote, one credit below is refused with 402 quote_above_max_credits before anything is held, fetched or billed
// (read in the database), estimateOnly says fitsMaxCredits, and a malformed cap is a 400 naming `maxCredits`.
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { Examples } from "@pdr/domain"
import * as Testing from "@pdr/store-pg/Testing"
import { Effect, Exit, Scope } from "effect"
import pg from "pg"
import { account, balance, request as get, post, type Running, start } from "./harness.js"

const serverUp = await Testing.serverAvailable()

// a paid op whose quote is above one credit, so "one below the quote" is still a valid cap
const op = Examples.paidOps.find(
  (o) => o.price._tag === "PerSubject" && o.price.credits >= 1 && o.units === "subjects"
)!
const path = `/api/v1/platforms/${op.platform}`
const request = { ...Examples.minimal(op), subjects: [Examples.subject(op, 0), Examples.subject(op, 1)] }

describe.skipIf(!serverUp)("D18 maxCredits on the API", () => {
  let server: Running
  let db: pg.Client
  let scope: Scope.CloseableScope
  let key: string
  let accountId: string

  beforeAll(async () => {
    scope = Effect.runSync(Scope.make())
    const target = await Effect.runPromise(Scope.extend(Testing.freshServerSchema(), scope))
    if (target._tag !== "Server") throw new Error("expected a server target")
    server = await start({ target: Effect.succeed(target) })
    db = new pg.Client({ connectionString: target.url })
    await db.connect()
    const created = await account(server, 1000, "cap")
    key = created.key
    accountId = created.accountId
  }, 60_000)
  afterAll(async () => {
    await db?.end()
    await server?.close()
    await Effect.runPromise(Scope.close(scope, Exit.void))
  })

  const state = async () => {
    const holds = await db.query("SELECT count(*)::int AS n FROM holds WHERE account_id = $1", [accountId])
    const moves = await db.query("SELECT count(*)::int AS n FROM ledger WHERE account_id = $1 AND kind <> 'grant'", [
      accountId
    ])
    const stored = await db.query("SELECT count(*)::int AS n FROM measurements WHERE platform = $1 AND op = $2", [
      op.platform,
      op.name
    ])
    return { holds: holds.rows[0].n, moves: moves.rows[0].n, stored: stored.rows[0].n }
  }

  it("estimateOnly says whether the quote fits the cap, and only when a cap is given", async () => {
    const plain = await post(server, path, { request, estimateOnly: true }, key)
    assert.strictEqual(plain.status, 200, plain.text)
    const quote = plain.body.estimate.credits as number
    assert.isAbove(quote, 1)
    assert.isFalse("fitsMaxCredits" in plain.body.estimate)
    const at = await post(server, path, { request, estimateOnly: true, maxCredits: quote }, key)
    assert.deepStrictEqual(at.body.estimate, { credits: quote, fitsMaxCredits: true })
    const below = await post(server, path, { request, estimateOnly: true, maxCredits: quote - 1 }, key)
    assert.strictEqual(below.status, 200, below.text)
    assert.deepStrictEqual(below.body.estimate, { credits: quote, fitsMaxCredits: false })
    assert.strictEqual(below.body.cost.creditsCharged, 0)
    assert.deepStrictEqual(await state(), { holds: 0, moves: 0, stored: 0 })
  })

  it("one credit below the quote is refused with 402 before anything is held, fetched or billed", async () => {
    const quote = (await post(server, path, { request, estimateOnly: true }, key)).body.estimate.credits as number
    const before = await balance(server, key)
    const refused = await post(server, path, { request, maxCredits: quote - 1 }, key)
    assert.strictEqual(refused.status, 402, refused.text)
    assert.strictEqual(refused.body.error.code, "quote_above_max_credits")
    assert.deepStrictEqual(refused.body.error.details, { required: quote, maxCredits: quote - 1 })
    assert.include(refused.body.error.message, `${quote} credits`)
    assert.include(refused.body.error.message, `maxCredits of ${quote - 1}`)
    assert.strictEqual(await balance(server, key), before)
    assert.deepStrictEqual(await state(), { holds: 0, moves: 0, stored: 0 })
    const zero = await post(server, path, { request, maxCredits: 0 }, key)
    assert.strictEqual(zero.status, 402, zero.text)
    assert.deepStrictEqual(await state(), { holds: 0, moves: 0, stored: 0 })
  })

  it("exactly at the quote passes and bills the quote", async () => {
    const quote = (await post(server, path, { request, estimateOnly: true }, key)).body.estimate.credits as number
    const before = await balance(server, key)
    const paid = await post(server, path, { request, maxCredits: quote }, key)
    assert.strictEqual(paid.status, 200, paid.text)
    assert.strictEqual(paid.body.cost.creditsCharged, quote)
    assert.strictEqual(paid.body.cost.creditsRemaining, before - quote)
    assert.strictEqual(await balance(server, key), before - quote)
    const after = await state()
    assert.strictEqual(after.moves, 1)
    assert.strictEqual(after.stored, 2)
    // now stored: the same call quotes 0, which fits even a cap of 0
    const free = await post(server, path, { request, maxCredits: 0 }, key)
    assert.strictEqual(free.status, 200, free.text)
    assert.strictEqual(free.body.cost.creditsCharged, 0)
  })

  it("the OpenAPI document publishes the cap in the envelope and fitsMaxCredits in the estimate", async () => {
    const doc = (await get(`${server.api}/openapi.json`)).body
    const text = JSON.stringify(doc)
    // one path per platform, its body one envelope per op: every envelope takes the cap
    const envelopes = Object.entries(doc.paths as Record<string, any>)
      .filter(([p]) => /^\/api\/v1\/platforms\/[^/{]+$/.test(p))
      .flatMap(([, item]) => item.post.requestBody.content["application/json"].schema.oneOf as Array<any>)
    assert.isAtLeast(envelopes.length, 70)
    for (const envelope of envelopes)
      assert.deepInclude(envelope.properties.maxCredits, { type: "integer", minimum: 0 })
    assert.include(text, "fitsMaxCredits")
    assert.include(text, "quote_above_max_credits")
  })

  it("a malformed cap is a 400 naming maxCredits, nothing billed", async () => {
    for (const bad of [-1, 1.5, "10", null, true, 2 ** 60]) {
      const r = await post(server, path, { request, maxCredits: bad }, key)
      assert.strictEqual(r.status, 400, `${JSON.stringify(bad)}: ${r.text}`)
      assert.strictEqual(r.body.error.code, "invalid_request")
      assert.isTrue(
        r.body.error.details.some((d: { path: string }) => d.path === "maxCredits"),
        r.text
      )
    }
  })
})
