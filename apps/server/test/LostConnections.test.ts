// Issue 22 (group commit and coalesced reads), D24: a database connection cut under a statement that several calls
// share fails none of them. A spawned server on real PostgreSQL; the test holds a lock (or a trigger) that keeps the
// server's shared statements running, terminates their backends (pg_terminate_backend: what a failover, an operator or
// an idle-session killer does), then lets the statements through. Every call answers 200, each capture is the call's
// and has its data, nothing stays held. Before, each cut statement failed every call it carried with 500 `internal`:
// the key reads and token takes of a turn (pdr_admit), a lone hold, a lone settle cut by the server (57P01).
import { afterAll, assert, describe, it } from "@effect/vitest"
import * as Testing from "@pdr/store-pg/Testing"
import pg from "pg"
import { spawnServer } from "./processes.js"
import { adminCall, withSchema } from "./spawned.js"

const serverUp = await Testing.serverAvailable()

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

describe.skipIf(!serverUp)("a connection cut under a shared statement", () => {
  const cleanups: Array<() => Promise<unknown>> = []
  afterAll(async () => {
    for (const c of cleanups.reverse()) await c().catch(() => {})
  })
  /** A client of the test's own, ended after the tests. */
  const client = async (url: string) => {
    const c = new pg.Client({ connectionString: url })
    await c.connect()
    cleanups.push(() => c.end())
    return c
  }
  /** The server's backends running a statement `like` this and waiting (on a lock, or in pg_sleep), once any are. */
  const waitingBackends = async (db: pg.Client, like: string, output: () => string) => {
    const deadline = Date.now() + 15_000
    for (;;) {
      const { rows } = await db.query(
        `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()
           AND state = 'active' AND query LIKE $1 AND wait_event_type IN ('Lock', 'Timeout')`,
        [like]
      )
      if (rows.length > 0) return rows.map((r) => Number(r.pid))
      if (Date.now() > deadline) throw new Error(`no statement like ${like} waited: ${output().slice(-2000)}`)
      await sleep(20)
    }
  }
  /** Their connections cut by the server (pg_terminate_backend: what a failover, an operator or a killer does). */
  const terminateAll = async (db: pg.Client, pids: ReadonlyArray<number>) => {
    for (const pid of pids) await db.query("SELECT pg_terminate_backend($1)", [pid])
  }

  it("the server's statements cut while they wait: every call answers 200, billed exactly once", async () => {
    const schema = await withSchema()
    cleanups.push(schema.close)
    const server = await spawnServer({
      DATABASE_URL: schema.url,
      SYNTHETIC_LATENCY_MS: "0",
      RATE_LIMIT_RPS: "1000",
      RATE_LIMIT_BURST: "1000"
    })
    cleanups.push(async () => server.child.kill("SIGKILL"))
    const account = await adminCall(server, "/admin/accounts", { name: "cut", credits: 10_000 })
    const key = await adminCall(server, `/admin/accounts/${account.accountId}/keys`, { name: "cut" })
    const call = (subjects: ReadonlyArray<string>, idempotencyKey?: string) =>
      fetch(`${server.api}/api/v1/platforms/maps`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "x-api-key": key.key,
          ...(idempotencyKey === undefined ? {} : { "idempotency-key": idempotencyKey })
        },
        body: JSON.stringify({ request: { op: "places", subjects } })
      }).then(async (r) => ({ status: r.status, body: (await r.json()) as any }))
    const stored = Array.from({ length: 10 }, (_, i) => `ChIJcut-stored-${i}`)
    assert.strictEqual((await call(stored)).status, 200)

    const db = await client(schema.url)
    const locker = await client(schema.url)
    const waiting = (like: string) => waitingBackends(db, like, server.output)
    const terminate = (pids: ReadonlyArray<number>) => terminateAll(db, pids)
    const ledger = async () =>
      (
        await db.query(
          `SELECT (SELECT count(*)::int FROM ledger WHERE account_id = $1 AND kind = 'capture') AS captures,
                  (SELECT coalesce(-sum(credits), 0)::int FROM ledger WHERE account_id = $1 AND kind = 'capture') AS spent,
                  (SELECT balance::int FROM accounts WHERE id = $1) AS balance,
                  (SELECT held::int FROM accounts WHERE id = $1) AS held`,
          [account.accountId]
        )
      ).rows[0] as { captures: number; spent: number; balance: number; held: number }
    type Answer = { readonly status: number; readonly body: any }
    /** Every answer a 200; the ledger since `before`: one capture per paid call, what the answers say was charged. */
    const billedOnce = async (answers: ReadonlyArray<Answer>, before: Awaited<ReturnType<typeof ledger>>) => {
      assert.deepStrictEqual(
        answers.map((a) => a.status),
        answers.map(() => 200),
        JSON.stringify(answers.find((a) => a.status !== 200)?.body)
      )
      const after = await ledger()
      const charged = answers.reduce((n, a) => n + a.body.cost.creditsCharged, 0)
      const paid = answers.filter((a) => a.body.cost.creditsCharged > 0).length
      assert.strictEqual(after.captures - before.captures, paid, "one capture per paid call")
      assert.strictEqual(after.spent - before.spent, charged, "captured what the answers say")
      assert.strictEqual(after.balance, before.balance - charged)
      return { after, charged }
    }

    // 1. reads: the key read and token take of every call of a turn share one statement (pdr_admit), held here by the
    //    key's token bucket row
    await locker.query("BEGIN")
    await locker.query("SELECT * FROM rate_buckets FOR UPDATE")
    const reads = Array.from({ length: 16 }, () => call(stored))
    await terminate(await waiting("%pdr_admit%"))
    await sleep(100)
    await locker.query("COMMIT")
    const readAnswers = await Promise.all(reads)
    await billedOnce(readAnswers, await ledger())
    for (const a of readAnswers) assert.strictEqual(a.body.cost.creditsCharged, 0)

    // 2. holds: every paid call's hold (lone or group-committed) waits on the account's row; their backends are cut
    const before = await ledger()
    await locker.query("BEGIN")
    await locker.query("SELECT * FROM accounts WHERE id = $1 FOR UPDATE", [account.accountId])
    const paid = Array.from({ length: 12 }, (_, i) =>
      call([`ChIJcut-hold-${i}`], i % 2 === 0 ? `cut-hold-${i}` : undefined)
    )
    await terminate(await waiting("%pdr_place_hold%"))
    await sleep(100)
    await locker.query("COMMIT")
    const paidAnswers = await Promise.all(paid)
    const { after: afterHolds, charged } = await billedOnce(paidAnswers, before)
    assert.strictEqual(paidAnswers.filter((a) => a.body.cost.creditsCharged > 0).length, 12)
    assert.isAbove(charged, 0)

    // 3. settles: each capture's insert sleeps (a test trigger) and the settling backends are cut while it does: the
    //    server ends their sessions (57P01), the settles are rolled back and made again
    await db.query(`CREATE FUNCTION cut_probe() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN IF EXISTS (SELECT 1 FROM pg_class WHERE relname = 'cut_probe_on') THEN PERFORM pg_sleep(1); END IF;
      RETURN NEW; END $$;
      CREATE TABLE cut_probe_on ();
      CREATE TRIGGER cut_probe BEFORE INSERT ON ledger FOR EACH ROW WHEN (NEW.kind = 'capture')
        EXECUTE FUNCTION cut_probe();`)
    const settling = Array.from({ length: 12 }, (_, i) =>
      call([`ChIJcut-settle-${i}`], i % 2 === 0 ? `cut-settle-${i}` : undefined)
    )
    await terminate(await waiting("%pdr_settle%"))
    await db.query("DROP TABLE cut_probe_on")
    const settleAnswers = await Promise.all(settling)
    const { after: end } = await billedOnce(settleAnswers, afterHolds)
    assert.strictEqual(settleAnswers.filter((a) => a.body.cost.creditsCharged > 0).length, 12)
    assert.strictEqual(end.held, 0, "nothing held")
    const orphans = await db.query(
      "SELECT h.id FROM holds h WHERE h.status = 'captured' AND NOT EXISTS (SELECT 1 FROM measurements m WHERE m.hold_id = h.id)"
    )
    assert.strictEqual(orphans.rows.length, 0, "every capture has its stored measurement")
    // the idempotent ones replay their kept answer, billing nothing more
    const replay = await call([`ChIJcut-settle-0`], "cut-settle-0")
    assert.strictEqual(replay.status, 200)
    assert.deepStrictEqual(replay.body.data, settleAnswers[0]!.body.data)
    assert.strictEqual((await ledger()).spent, end.spent)
  }, 90_000)

  it("a long call's start, a collect and its end cut while they wait: 202, then the call's own answer, billed once", async () => {
    const schema = await withSchema()
    cleanups.push(schema.close)
    const server = await spawnServer({ DATABASE_URL: schema.url, SYNTHETIC_LATENCY_MS: "0" })
    cleanups.push(async () => server.child.kill("SIGKILL"))
    const account = await adminCall(server, "/admin/accounts", { name: "cut-long", credits: 1_000 })
    const key = await adminCall(server, `/admin/accounts/${account.accountId}/keys`, { name: "cut-long" })
    const db = await client(schema.url)
    const locker = await client(schema.url)
    const cutWhenWaiting = async (like: string) => {
      const pids = await waitingBackends(db, like, server.output)
      await terminateAll(db, pids)
      return pids.length
    }
    const captures = async () =>
      (
        await db.query("SELECT count(*)::int AS n FROM ledger WHERE account_id = $1 AND kind = 'capture'", [
          account.accountId
        ])
      ).rows[0].n as number
    const collect = (id: string) =>
      fetch(`${server.api}/api/v1/calls/${id}`, { headers: { "x-api-key": key.key } }).then(async (r) => ({
        status: r.status,
        body: (await r.json()) as any
      }))

    // 1. the start: the job's insert waits on the jobs table, its backend is cut; the start is made again
    await locker.query("BEGIN")
    await locker.query("LOCK TABLE jobs IN ACCESS EXCLUSIVE MODE")
    const started = fetch(`${server.api}/api/v1/platforms/maps`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-api-key": key.key, prefer: "respond-async, wait=0" },
      body: JSON.stringify({ request: { op: "places", subjects: ["ChIJcut-long-1"] } })
    })
    assert.isAtLeast(await cutWhenWaiting("%INSERT INTO jobs%"), 1)
    await sleep(100)
    await locker.query("COMMIT")
    const start = await started
    const startText = await start.text()
    assert.strictEqual(start.status, 202, startText)
    const id = start.headers.get("call-id")!
    let done = await collect(id)
    for (let i = 0; i < 100 && done.status === 202; i++) {
      await sleep(50)
      done = await collect(id)
    }
    assert.strictEqual(done.status, 200, JSON.stringify(done.body))
    assert.isAbove(done.body.cost.creditsCharged, 0)
    assert.strictEqual(await captures(), 1, "billed once")

    // 2. a collect whose read waits on the calls table and is cut: read again, the call's own answer (before: 500
    //    "internal error; the call was not billed" for this call, which was billed)
    await locker.query("BEGIN")
    await locker.query("LOCK TABLE calls IN ACCESS EXCLUSIVE MODE")
    const collecting = collect(id)
    assert.isAtLeast(await cutWhenWaiting("%FROM calls WHERE id%"), 1)
    await sleep(100)
    await locker.query("COMMIT")
    const again = await collecting
    assert.strictEqual(again.status, 200, JSON.stringify(again.body))
    assert.deepStrictEqual(again.body.data, done.body.data)
    assert.strictEqual(await captures(), 1, "still billed once")

    // 3. a long call's end (its finish) cut while it is written (a test trigger sleeps in it): written again by the
    //    same attempt, which ends the call; before, the attempt died on the cut ("a long call failed on a defect",
    //    logged as an error) and the job ran a second attempt after the engine's backoff, which replayed the answer
    await db.query(`CREATE FUNCTION cut_finish() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN IF EXISTS (SELECT 1 FROM pg_class WHERE relname = 'cut_finish_on') THEN PERFORM pg_sleep(1); END IF;
      RETURN NEW; END $$;
      CREATE TABLE cut_finish_on ();
      CREATE TRIGGER cut_finish BEFORE UPDATE ON calls FOR EACH ROW WHEN (NEW.status <> 'running')
        EXECUTE FUNCTION cut_finish();`)
    const second = await fetch(`${server.api}/api/v1/platforms/maps`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-api-key": key.key, prefer: "respond-async, wait=0" },
      body: JSON.stringify({ request: { op: "places", subjects: ["ChIJcut-long-2"] } })
    })
    assert.strictEqual(second.status, 202, await second.text())
    const secondId = second.headers.get("call-id")!
    assert.isAtLeast(await cutWhenWaiting("%UPDATE calls SET status%"), 1)
    await db.query("DROP TABLE cut_finish_on")
    let ended = await collect(secondId)
    for (let i = 0; i < 100 && ended.status === 202; i++) {
      await sleep(50)
      ended = await collect(secondId)
    }
    assert.strictEqual(ended.status, 200, JSON.stringify(ended.body))
    assert.strictEqual(await captures(), 2, "each call billed once")
    const job = await db.query("SELECT attempts, state FROM jobs WHERE key = $1", [secondId])
    assert.deepStrictEqual(job.rows[0], { attempts: 1, state: "done" }, "one attempt ended the call")
    assert.notInclude(server.output(), "a long call failed on a defect")
  }, 90_000)

  it("connections to a server that took no writes (a failover): replaced, every call after it answers 200, billed once", async () => {
    // the server connects as a role of its own; the role's sessions made read-only, the server's connections cut,
    // and new ones opened by operator reads (no write): they refuse writes, as connections to the old primary after a
    // failover; then the role's new sessions take writes again (the new primary) while the pool still holds those
    const schema = await withSchema()
    const name = new URL(schema.url).searchParams.get("options")!.replace("-c search_path=", "")
    const role = `pdr_ro_${name.slice(2)}`
    const db = await client(schema.url)
    await db.query(`CREATE ROLE ${role} LOGIN; GRANT ALL ON SCHEMA ${name} TO ${role}`)
    cleanups.push(async () => {
      await schema.close()
      await db.query(`DROP OWNED BY ${role}; DROP ROLE ${role}`)
    })
    const url = new URL(schema.url)
    url.username = role
    const server = await spawnServer({
      DATABASE_URL: url.toString(),
      DATABASE_POOL: "4",
      SYNTHETIC_LATENCY_MS: "0",
      RATE_LIMIT_RPS: "1000",
      RATE_LIMIT_BURST: "1000"
    })
    cleanups.push(async () => server.child.kill("SIGKILL"))
    const account = await adminCall(server, "/admin/accounts", { name: "failover", credits: 10_000 })
    const key = await adminCall(server, `/admin/accounts/${account.accountId}/keys`, { name: "failover" })
    const call = (subjects: ReadonlyArray<string>) =>
      fetch(`${server.api}/api/v1/platforms/maps`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-api-key": key.key },
        body: JSON.stringify({ request: { op: "places", subjects } })
      }).then(async (r) => ({ status: r.status, body: (await r.json()) as any }))
    const first = await call(["ChIJro-stored-0"])
    assert.strictEqual(first.status, 200)

    await db.query(`ALTER ROLE ${role} SET default_transaction_read_only = on`)
    await db.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = '${role}'`)
    await sleep(200)
    const read = () =>
      fetch(`${server.admin}/admin/accounts/${account.accountId}`, {
        headers: { authorization: `Bearer ${server.token}` }
      }).then((r) => r.status)
    // the pool's four connections made again, read-only (some reads may meet a connection the cut broke: read again)
    for (let round = 0; round < 3; round++) await Promise.all(Array.from({ length: 8 }, read))
    const { rows: readOnly } = await db.query(
      `SELECT count(*)::int AS n FROM pg_stat_activity WHERE usename = '${role}'`
    )
    assert.isAtLeast(readOnly[0].n, 2, "the pool holds connections made while the role was read-only")
    await db.query(`ALTER ROLE ${role} RESET default_transaction_read_only`)

    const answers = await Promise.all([
      ...Array.from({ length: 12 }, (_, i) => call([`ChIJro-paid-${i}`])),
      ...Array.from({ length: 12 }, () => call(["ChIJro-stored-0"]))
    ])
    assert.deepStrictEqual(
      answers.filter((a) => a.status !== 200).map((a) => a.body),
      [],
      "every call after the failover answers 200"
    )
    const charged = answers.reduce((n, a) => n + a.body.cost.creditsCharged, 0)
    const { rows } = await db.query(
      `SELECT (SELECT count(*)::int FROM ledger WHERE account_id = $1 AND kind = 'capture') AS captures,
              (SELECT coalesce(-sum(credits), 0)::int FROM ledger WHERE account_id = $1 AND kind = 'capture') AS spent,
              (SELECT held::int FROM accounts WHERE id = $1) AS held`,
      [account.accountId]
    )
    assert.strictEqual(rows[0].captures, 13, "the first call and each paid one captured once")
    assert.strictEqual(rows[0].spent, first.body.cost.creditsCharged + charged, "what the answers say was charged")
    assert.strictEqual(rows[0].held, 0, "nothing left held")
  }, 90_000)

  it("a database that takes no writes for a while: the store's free answers and history served, paid calls refused and not billed", async () => {
    // D128: the key read without a write and rate-limited in the process while the database refuses writes
    const schema = await withSchema()
    const name = new URL(schema.url).searchParams.get("options")!.replace("-c search_path=", "")
    const role = `pdr_rw_${name.slice(2)}`
    const db = await client(schema.url)
    await db.query(`CREATE ROLE ${role} LOGIN; GRANT ALL ON SCHEMA ${name} TO ${role}`)
    cleanups.push(async () => {
      await schema.close()
      await db.query(`DROP OWNED BY ${role}; DROP ROLE ${role}`)
    })
    const url = new URL(schema.url)
    url.username = role
    const server = await spawnServer({ DATABASE_URL: url.toString(), DATABASE_POOL: "4", SYNTHETIC_LATENCY_MS: "0" })
    cleanups.push(async () => server.child.kill("SIGKILL"))
    const account = await adminCall(server, "/admin/accounts", { name: "ro", credits: 1_000 })
    const key = await adminCall(server, `/admin/accounts/${account.accountId}/keys`, { name: "ro" })
    const call = (request: unknown) =>
      fetch(`${server.api}/api/v1/platforms/maps`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-api-key": key.key },
        body: JSON.stringify({ request })
      }).then(async (r) => ({ status: r.status, body: (await r.json()) as any }))
    const stored = { op: "places", subjects: ["ChIJro-free-0", "ChIJro-free-1"] }
    const first = await call(stored)
    assert.strictEqual(first.status, 200)
    const balance = async () =>
      (await db.query("SELECT balance::int AS b FROM accounts WHERE id = $1", [account.accountId])).rows[0].b as number
    const before = await balance()

    await db.query(`ALTER ROLE ${role} SET default_transaction_read_only = on`)
    await db.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = '${role}'`)
    await sleep(200)
    const free = await Promise.all(Array.from({ length: 6 }, () => call(stored)))
    assert.deepStrictEqual(
      free.map((a) => a.status),
      free.map(() => 200),
      JSON.stringify(free.find((a) => a.status !== 200)?.body)
    )
    assert.deepStrictEqual(free[0]!.body.data, first.body.data)
    assert.strictEqual(free[0]!.body.cost.creditsCharged, 0)
    const history = await call({ op: "history", subjects: ["ChIJro-free-0"], metric: "rating", days: 7 })
    assert.strictEqual(history.status, 200, JSON.stringify(history.body))
    const paid = await call({ op: "places", subjects: ["ChIJro-paid-0"] })
    assert.strictEqual(paid.status, 500, JSON.stringify(paid.body))
    assert.match(paid.body.error.message, /not billed/)
    assert.strictEqual(await balance(), before, "nothing billed while it took no writes")
    assert.include(server.output(), "the database takes no writes (read-only)")

    // writes again: the paid call is answered and billed once
    await db.query(`ALTER ROLE ${role} RESET default_transaction_read_only`)
    const again = await call({ op: "places", subjects: ["ChIJro-paid-0"] })
    assert.strictEqual(again.status, 200, JSON.stringify(again.body))
    assert.strictEqual(await balance(), before - again.body.cost.creditsCharged)
  }, 90_000)
})
