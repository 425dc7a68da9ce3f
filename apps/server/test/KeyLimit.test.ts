// Issue 24: a key's monthly credit limit is enforced at the hold over a real socket on PostgreSQL: 12 calls of one
// key at once, each quoted 4 credits, under a limit of 10: exactly 2 are served, the others get 402 key_credit_limit
// with their details, nothing else is billed; another key of the account is not limited by it.
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import * as Testing from "@pdr/store-pg/Testing"
import { account, admin, balance, post, startWithDatabase } from "./harness.js"

const serverUp = await Testing.serverAvailable()

describe.skipIf(!serverUp)("per-key monthly credit limit (issue 24)", () => {
  let env: Awaited<ReturnType<typeof startWithDatabase>>
  beforeAll(async () => {
    env = await startWithDatabase()
  }, 60_000)
  afterAll(() => env?.close())

  it("issue 24 invariant: concurrent calls of one key never pass its monthly limit together; the refused ones are 402 key_credit_limit and unbilled", async () => {
    const { server, db } = env
    const a = await account(server, 1000, "limited")
    const other = await admin(server, "POST", `/admin/accounts/${a.accountId}/keys`, { name: "unlimited" })
    await db.query("UPDATE api_keys SET monthly_credit_limit = 10 WHERE id = $1", [a.keyId])
    const before = await balance(server, a.key)
    const answers = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        post(
          server,
          "/api/v1/platforms/maps",
          { request: { op: "places", subjects: [`ChIJlimit${String(i).padStart(4, "0")}`] } },
          a.key
        )
      )
    )
    const served = answers.filter((r) => r.status === 200)
    const refused = answers.filter((r) => r.status === 402)
    assert.strictEqual(served.length + refused.length, 12)
    const price = served[0]!.body.cost.creditsCharged as number
    assert.strictEqual(price, 4)
    assert.strictEqual(served.length, 2)
    for (const r of refused) {
      assert.strictEqual(r.body.error.code, "key_credit_limit")
      assert.strictEqual(r.body.error.details.limit, 10)
      assert.strictEqual(r.body.error.details.required, 4)
      assert.isAtMost(r.body.error.details.spentThisMonth + 4, 14)
      assert.isAbove(r.body.error.details.spentThisMonth + 4, 10)
    }
    assert.strictEqual(await balance(server, a.key), before - 8)
    const held = await db.query("SELECT coalesce(sum(amount), 0)::int AS held FROM holds WHERE status = 'held'")
    assert.strictEqual(held.rows[0].held, 0)
    // the account's other key has no limit
    const free = await post(
      server,
      "/api/v1/platforms/maps",
      { request: { op: "places", subjects: ["ChIJlimitfree"] } },
      other.key
    )
    assert.strictEqual(free.status, 200)
  })
})
