// Issue 21, durability: a server process killed with SIGKILL in the middle of a long call; another process on the same
// database takes the call over once its lease ran out and answers its GET: collected, billed exactly once, no credit
// left held. And the window between the settle and the call's record: a call whose charge and kept answer committed
// but whose record still says running is collected from the kept answer, never run or billed again.
import { afterAll, assert, describe, it } from "@effect/vitest"
import * as Testing from "@pdr/store-pg/Testing"
import * as Fixtures from "@pdr/upstream-http/testing"
import pg from "pg"
import { type ServerProcess, spawnServer } from "./processes.js"
import { adminCall, withSchema } from "./spawned.js"

const serverUp = await Testing.serverAvailable()

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

const collect = async (s: ServerProcess, key: string, id: string) => {
  for (let i = 0; i < 300; i++) {
    const r = await fetch(`${s.api}/api/v1/calls/${id}`, { headers: { "x-api-key": key } })
    if (r.status !== 202) return { status: r.status, text: await r.text() }
    await r.text()
    await sleep(100)
  }
  throw new Error("the call never finished")
}

describe.skipIf(!serverUp)("long calls survive a killed process", () => {
  const cleanups: Array<() => Promise<unknown>> = []
  afterAll(async () => {
    for (const c of cleanups.reverse()) await c().catch(() => {})
  })

  it("SIGKILL mid-call, another process: taken over (the dead attempt's hold released at once), collected, billed once", async () => {
    const schema = await withSchema()
    cleanups.push(schema.close)
    const db = new pg.Client({ connectionString: schema.url })
    await db.connect()
    cleanups.push(() => db.end())
    const env = {
      DATABASE_URL: schema.url,
      SYNTHETIC_LATENCY_MS: "2500",
      CALL_LEASE_MS: "3000",
      // a hold lives a minute here: the dead attempt's hold is released by the takeover, not by the expiry sweep
      HOLD_TTL_MS: "60000",
      HOLD_SWEEP_MS: "300"
    }
    const first = await spawnServer(env)
    cleanups.push(async () => first.child.kill("SIGKILL"))
    const account = await adminCall(first, "/admin/accounts", { name: "crash", credits: 1000 })
    const key = await adminCall(first, `/admin/accounts/${account.accountId}/keys`, { name: "crash" })
    const r = await fetch(`${first.api}/api/v1/platforms/maps`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-api-key": key.key, prefer: "respond-async" },
      body: JSON.stringify({ request: { op: "places", subjects: ["ChIJkill-1", "ChIJkill-2", "ChIJkill-3"] } })
    })
    assert.strictEqual(r.status, 202)
    const id = ((await r.json()) as any).callId as string
    await sleep(700) // the units are in flight, the hold placed
    const held = await db.query("SELECT count(*)::int AS n FROM holds WHERE status = 'held'")
    assert.strictEqual(held.rows[0].n, 1)
    first.child.kill("SIGKILL")
    await first.exited
    const second = await spawnServer(env)
    cleanups.push(async () => second.child.kill("SIGKILL"))
    const done = await collect(second, key.key, id)
    assert.strictEqual(done.status, 200, done.text)
    const body = JSON.parse(done.text)
    assert.strictEqual(body.callId, id)
    assert.strictEqual(body.cost.creditsCharged, 12)
    const row = await db.query("SELECT status, attempts FROM calls WHERE id = $1", [id])
    assert.deepStrictEqual(row.rows[0], { status: "done", attempts: 2 })
    // the dead attempt's hold was released when the call was taken over (issue 21), long before its TTL
    const released = await db.query("SELECT status, count(*)::int AS n FROM holds GROUP BY status ORDER BY status")
    assert.deepStrictEqual(released.rows, [
      { status: "captured", n: 1 },
      { status: "released", n: 1 }
    ])
    const money = await db.query(
      `SELECT a.balance::int, a.held::int,
              (SELECT coalesce(sum(-credits), 0)::int FROM ledger WHERE account_id = a.id AND kind = 'capture') AS captured,
              (SELECT count(*)::int FROM ledger WHERE account_id = a.id AND kind = 'capture') AS captures
       FROM accounts a WHERE a.id = $1`,
      [account.accountId]
    )
    assert.deepStrictEqual(money.rows[0], { balance: 988, held: 0, captured: 12, captures: 1 })
  }, 90_000)

  it("settled but recorded running (a process died between the two): the kept answer is collected, not billed again", async () => {
    const schema = await withSchema()
    cleanups.push(schema.close)
    const db = new pg.Client({ connectionString: schema.url })
    await db.connect()
    cleanups.push(() => db.end())
    const env = { DATABASE_URL: schema.url, SYNTHETIC_LATENCY_MS: "100", CALL_LEASE_MS: "1500" }
    const server = await spawnServer(env)
    cleanups.push(async () => server.child.kill("SIGKILL"))
    const account = await adminCall(server, "/admin/accounts", { name: "window", credits: 1000 })
    const key = await adminCall(server, `/admin/accounts/${account.accountId}/keys`, { name: "window" })
    const r = await fetch(`${server.api}/api/v1/platforms/maps`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-api-key": key.key, prefer: "wait=10" },
      body: JSON.stringify({ request: { op: "places", subjects: ["ChIJwindow-1", "ChIJwindow-2"] } })
    })
    assert.strictEqual(r.status, 200)
    const first = await r.text()
    const id = r.headers.get("call-id")!
    // the record and its job as a process that died after its settle and before its record's end would leave them
    await db.query(
      "UPDATE calls SET status = 'running', answer = NULL, http_status = NULL, owner = 'proc_dead' WHERE id = $1",
      [id]
    )
    await db.query(
      `UPDATE jobs SET state = 'running', worker = 'proc_dead', ended_at = NULL, lease_until = now() - interval '1 second'
       WHERE queue = 'calls' AND key = $1`,
      [id]
    )
    const again = await collect(server, key.key, id)
    assert.strictEqual(again.status, 200)
    assert.strictEqual(again.text, first)
    const money = await db.query(
      "SELECT balance::int, held::int, (SELECT count(*)::int FROM ledger WHERE account_id = $1 AND kind = 'capture') AS captures FROM accounts WHERE id = $1",
      [account.accountId]
    )
    assert.deepStrictEqual(money.rows[0], { balance: 992, held: 0, captures: 1 })
  }, 60_000)

  const longCall = async (server: ServerProcess, key: string, subjects: ReadonlyArray<string>) => {
    const r = await fetch(`${server.api}/api/v1/platforms/maps`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-api-key": key, prefer: "respond-async" },
      body: JSON.stringify({ request: { op: "places", subjects } })
    })
    const body = (await r.json()) as any
    assert.strictEqual(r.status, 202, JSON.stringify(body))
    return body.callId as string
  }

  const moneyOf = async (db: pg.Client, accountId: string) =>
    (
      await db.query(
        `SELECT a.balance::int, a.held::int,
                (SELECT count(*)::int FROM ledger WHERE account_id = a.id AND kind = 'capture') AS captures
         FROM accounts a WHERE a.id = $1`,
        [accountId]
      )
    ).rows[0]

  it("a process stalled past its lease (SIGSTOP) settles nothing once another took the call over: one charge", async () => {
    const schema = await withSchema()
    cleanups.push(schema.close)
    const db = new pg.Client({ connectionString: schema.url })
    await db.connect()
    cleanups.push(() => db.end())
    const env = {
      DATABASE_URL: schema.url,
      SYNTHETIC_LATENCY_MS: "2500",
      CALL_LEASE_MS: "2000",
      HOLD_TTL_MS: "60000"
    }
    const first = await spawnServer(env)
    cleanups.push(async () => first.child.kill("SIGKILL"))
    const second = await spawnServer(env)
    cleanups.push(async () => second.child.kill("SIGKILL"))
    const account = await adminCall(first, "/admin/accounts", { name: "stall", credits: 1000 })
    const key = await adminCall(first, `/admin/accounts/${account.accountId}/keys`, { name: "stall" })
    const id = await longCall(first, key.key, ["ChIJstall-1", "ChIJstall-2", "ChIJstall-3"])
    await sleep(700) // its units are in flight, its hold placed and recorded
    first.child.kill("SIGSTOP")
    const done = await collect(second, key.key, id)
    assert.strictEqual(done.status, 200, done.text)
    assert.strictEqual(JSON.parse(done.text).cost.creditsCharged, 12)
    // the stalled process wakes up, its units finish, and it tries to settle with the hold the takeover released
    first.child.kill("SIGCONT")
    await sleep(4000)
    assert.deepStrictEqual(await moneyOf(db, account.accountId), { balance: 988, held: 0, captures: 1 })
    const row = await db.query("SELECT status, attempts, answer FROM calls WHERE id = $1", [id])
    assert.strictEqual(row.rows[0].status, "done")
    assert.strictEqual(row.rows[0].attempts, 2)
    // the answer kept is the new owner's
    assert.strictEqual(JSON.parse(row.rows[0].answer).callId, id)
    const again = await collect(second, key.key, id)
    assert.strictEqual(again.text, done.text)
  }, 90_000)

  it("a process stopped cleanly (SIGTERM) gives its long call back: another takes it over at once, not after the lease", async () => {
    const schema = await withSchema()
    cleanups.push(schema.close)
    const db = new pg.Client({ connectionString: schema.url })
    await db.connect()
    cleanups.push(() => db.end())
    // a lease of a minute: only a job given back at the stop can be taken over within this test
    const env = { DATABASE_URL: schema.url, SYNTHETIC_LATENCY_MS: "2500", CALL_LEASE_MS: "60000", HOLD_TTL_MS: "60000" }
    const first = await spawnServer(env)
    cleanups.push(async () => first.child.kill("SIGKILL"))
    const second = await spawnServer(env)
    cleanups.push(async () => second.child.kill("SIGKILL"))
    const account = await adminCall(first, "/admin/accounts", { name: "term", credits: 1000 })
    const key = await adminCall(first, `/admin/accounts/${account.accountId}/keys`, { name: "term" })
    const id = await longCall(first, key.key, ["ChIJterm-1", "ChIJterm-2"])
    // the call is a job of the engine's `calls` queue, run by the process that took the request
    const job = await db.query("SELECT state, worker FROM jobs WHERE queue = 'calls' AND key = $1", [id])
    assert.strictEqual(job.rows[0].state, "running")
    const owner = await db.query("SELECT owner FROM calls WHERE id = $1", [id])
    assert.strictEqual(job.rows[0].worker, owner.rows[0].owner)
    await sleep(700)
    const started = Date.now()
    first.child.kill("SIGTERM")
    await first.exited
    const stopped = Date.now() - started
    const done = await collect(second, key.key, id)
    assert.strictEqual(done.status, 200, done.text)
    assert.strictEqual(JSON.parse(done.text).cost.creditsCharged, 8)
    // taken over within a second of the stop (the call then runs its 2.5 s units again), far under the minute's lease
    assert.isBelow(Date.now() - started - stopped, 10_000, `stopped in ${stopped} ms`)
    assert.deepStrictEqual(await moneyOf(db, account.accountId), { balance: 992, held: 0, captures: 1 })
    const endedJob = async () =>
      (await db.query("SELECT state, taken_over_from FROM jobs WHERE queue = 'calls' AND key = $1", [id])).rows[0]
    for (let i = 0; i < 50 && (await endedJob()).state !== "done"; i++) await sleep(100)
    assert.deepStrictEqual(await endedJob(), { state: "done", taken_over_from: owner.rows[0].owner })
  }, 90_000)

  it("a call whose processes keep dying is given up after its attempts: answered 500, nothing billed, nothing held", async () => {
    const schema = await withSchema()
    cleanups.push(schema.close)
    const db = new pg.Client({ connectionString: schema.url })
    await db.connect()
    cleanups.push(() => db.end())
    const env = { DATABASE_URL: schema.url, SYNTHETIC_LATENCY_MS: "2500", CALL_LEASE_MS: "1500", HOLD_TTL_MS: "60000" }
    const first = await spawnServer(env)
    cleanups.push(async () => first.child.kill("SIGKILL"))
    const account = await adminCall(first, "/admin/accounts", { name: "doomed", credits: 1000 })
    const key = await adminCall(first, `/admin/accounts/${account.accountId}/keys`, { name: "doomed" })
    const id = await longCall(first, key.key, ["ChIJdoomed-1"])
    await sleep(700)
    first.child.kill("SIGKILL")
    await first.exited
    // as if this were its fifth process to die under it
    await db.query("UPDATE jobs SET attempts = 5 WHERE queue = 'calls' AND key = $1", [id])
    const second = await spawnServer(env)
    cleanups.push(async () => second.child.kill("SIGKILL"))
    const done = await collect(second, key.key, id)
    assert.strictEqual(done.status, 500, done.text)
    const body = JSON.parse(done.text)
    assert.strictEqual(body.error.code, "internal")
    assert.match(body.error.message, /nothing was billed/)
    assert.deepStrictEqual(await moneyOf(db, account.accountId), { balance: 1000, held: 0, captures: 0 })
    // the job ends done (its end is written with the engine's next batch, a few milliseconds after the answer)
    const jobOf = async () =>
      (await db.query("SELECT state, attempts FROM jobs WHERE queue = 'calls' AND key = $1", [id])).rows[0]
    for (let i = 0; i < 50 && (await jobOf()).state !== "done"; i++) await sleep(100)
    assert.deepStrictEqual(await jobOf(), { state: "done", attempts: 6 })
  }, 90_000)

  it("a long call that outlasts HOLD_TTL_MS keeps its hold (renewed with its lease) and is billed", async () => {
    const schema = await withSchema()
    cleanups.push(schema.close)
    const db = new pg.Client({ connectionString: schema.url })
    await db.connect()
    cleanups.push(() => db.end())
    const server = await spawnServer({
      DATABASE_URL: schema.url,
      SYNTHETIC_LATENCY_MS: "4000",
      CALL_LEASE_MS: "1500",
      HOLD_TTL_MS: "1500",
      HOLD_SWEEP_MS: "200"
    })
    cleanups.push(async () => server.child.kill("SIGKILL"))
    const account = await adminCall(server, "/admin/accounts", { name: "outlast", credits: 1000 })
    const key = await adminCall(server, `/admin/accounts/${account.accountId}/keys`, { name: "outlast" })
    const id = await longCall(server, key.key, ["ChIJoutlast-1"])
    const done = await collect(server, key.key, id)
    assert.strictEqual(done.status, 200, done.text)
    assert.strictEqual(JSON.parse(done.text).cost.creditsCharged, 4)
    assert.deepStrictEqual(await moneyOf(db, account.accountId), { balance: 996, held: 0, captures: 1 })
  }, 60_000)

  it("a long call that outlasts HOLD_TTL_MS keeps its idempotency claim: the same key sent again runs nothing more, one charge", async () => {
    // the claim on a key is taken over as stale after HOLD_TTL_MS without news of its call (its process died); a long
    // call alive past that (a provider run takes minutes) renews it with its heartbeat, so a client that sends the same
    // key again (an agent retrying) is not let run the call a second time and be charged twice
    const schema = await withSchema()
    cleanups.push(schema.close)
    const db = new pg.Client({ connectionString: schema.url })
    await db.connect()
    cleanups.push(() => db.end())
    const server = await spawnServer({
      DATABASE_URL: schema.url,
      SYNTHETIC_LATENCY_MS: "4000",
      CALL_LEASE_MS: "1500",
      HOLD_TTL_MS: "1500",
      HOLD_SWEEP_MS: "200"
    })
    cleanups.push(async () => server.child.kill("SIGKILL"))
    const account = await adminCall(server, "/admin/accounts", { name: "again", credits: 1000 })
    const key = await adminCall(server, `/admin/accounts/${account.accountId}/keys`, { name: "again" })
    const send = () =>
      fetch(`${server.api}/api/v1/platforms/maps`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "x-api-key": key.key,
          prefer: "respond-async",
          "idempotency-key": "agent-retry-1"
        },
        body: JSON.stringify({ request: { op: "places", subjects: ["ChIJagain-1"] } })
      })
    const r1 = await send()
    const b1 = (await r1.json()) as any
    assert.strictEqual(r1.status, 202, JSON.stringify(b1))
    // past HOLD_TTL_MS, while the first call still waits on its upstream
    await sleep(2500)
    const r2 = await send()
    const t2 = await r2.text()
    const first = await collect(server, key.key, b1.callId)
    assert.strictEqual(first.status, 200, first.text)
    assert.strictEqual(JSON.parse(first.text).cost.creditsCharged, 4)
    // the second is refused as in flight (as a synchronous call with the key is), not run again (before: 202, then a
    // second run answered with 0 credits under another call id, its fetch shared with the first's)
    assert.strictEqual(r2.status, 409, t2)
    assert.strictEqual(JSON.parse(t2).error.code, "idempotency_in_flight")
    await sleep(500)
    assert.deepStrictEqual(await moneyOf(db, account.accountId), { balance: 996, held: 0, captures: 1 })
  }, 60_000)

  it("a provider run survives its process: the takeover polls the run it started, never starts another, one charge", async () => {
    const provider = await Fixtures.provider({ items: 3, runSeconds: 5 })
    cleanups.push(async () => provider.close())
    const schema = await withSchema()
    cleanups.push(schema.close)
    const db = new pg.Client({ connectionString: schema.url })
    await db.connect()
    cleanups.push(() => db.end())
    const env = {
      DATABASE_URL: schema.url,
      UPSTREAMS: "maps.places=provider",
      PROVIDER_URL: provider.url,
      PROVIDER_TOKEN: Fixtures.credentials.providerToken,
      PROVIDER_OPS: JSON.stringify(Fixtures.mapsPlacesJson),
      PROVIDER_WAIT_S: "1",
      CALL_LEASE_MS: "2000",
      HOLD_TTL_MS: "60000"
    }
    const first = await spawnServer(env)
    cleanups.push(async () => first.child.kill("SIGKILL"))
    const account = await adminCall(first, "/admin/accounts", { name: "run", credits: 1000 })
    const key = await adminCall(first, `/admin/accounts/${account.accountId}/keys`, { name: "run" })
    const id = await longCall(first, key.key, ["ChIJrunsurvives1"])
    // the run started and was recorded with the call
    for (let i = 0; i < 50 && provider.started.length === 0; i++) await sleep(100)
    assert.strictEqual(provider.started.length, 1)
    await sleep(500)
    const recorded = await db.query("SELECT runs FROM calls WHERE id = $1", [id])
    assert.match(String(recorded.rows[0].runs), /"run1"/)
    first.child.kill("SIGKILL")
    await first.exited
    const second = await spawnServer(env)
    cleanups.push(async () => second.child.kill("SIGKILL"))
    const done = await collect(second, key.key, id)
    assert.strictEqual(done.status, 200, done.text)
    const body = JSON.parse(done.text)
    assert.strictEqual(body.coverage[0].status, "fetched")
    assert.isAbove(body.cost.creditsCharged, 0)
    // one run, polled by both processes; nothing aborted; one charge
    assert.strictEqual(provider.started.length, 1)
    assert.deepStrictEqual(provider.aborted, [])
    const money = await moneyOf(db, account.accountId)
    assert.strictEqual(money.captures, 1)
    assert.strictEqual(money.held, 0)
  }, 90_000)

  it("a provider run longer than UPSTREAM_TIMEOUT_MS: cut in a synchronous call, delivered in a long call (its run budget)", async () => {
    const provider = await Fixtures.provider({ items: 3, runSeconds: 3 })
    cleanups.push(async () => provider.close())
    const schema = await withSchema()
    cleanups.push(schema.close)
    const server = await spawnServer({
      DATABASE_URL: schema.url,
      UPSTREAMS: "maps.places=provider",
      PROVIDER_URL: provider.url,
      PROVIDER_TOKEN: Fixtures.credentials.providerToken,
      PROVIDER_OPS: JSON.stringify(Fixtures.mapsPlacesJson),
      PROVIDER_WAIT_S: "1",
      UPSTREAM_TIMEOUT_MS: "1500",
      PROVIDER_RUN_TIMEOUT_S: "30"
    })
    cleanups.push(async () => server.child.kill("SIGKILL"))
    const account = await adminCall(server, "/admin/accounts", { name: "budget", credits: 1000 })
    const key = await adminCall(server, `/admin/accounts/${account.accountId}/keys`, { name: "budget" })
    const sync = await fetch(`${server.api}/api/v1/platforms/maps`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-api-key": key.key },
      body: JSON.stringify({ request: { op: "places", subjects: ["ChIJbudgetsync1"] } })
    })
    const cut = (await sync.json()) as any
    assert.strictEqual(sync.status, 502, JSON.stringify(cut))
    assert.match(JSON.stringify(cut.error.details.coverage), /upstream_timeout|timeout/)
    const id = await longCall(server, key.key, ["ChIJbudgetlong1"])
    const done = await collect(server, key.key, id)
    assert.strictEqual(done.status, 200, done.text)
    const body = JSON.parse(done.text)
    assert.strictEqual(body.coverage[0].status, "fetched")
    assert.isAbove(body.cost.creditsCharged, 0)
  }, 90_000)
})
