// Issue 14, hostile clients over a real socket on the real PostgreSQL store:
// - D8: a settle the store refuses after the hold releases the hold before the answer arrives, and says nothing was
//   billed (a trigger of the test schema refuses the write; no mock);
// - slow and lying clients: idle connections, headers or a body sent a byte a second, and idle keep-alives are cut
//   after the configured timeouts while normal calls keep answering;
// - D12: a chunked body over the limit gets a readable 413 (then a close, not a reset) while the client is still
//   sending; `Expect: 100-continue` over the limit gets an immediate 413 instead of `100 Continue`.
import { connect, type Socket } from "node:net"
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import * as Testing from "@pdr/store-pg/Testing"
import pg from "pg"
import { account, post, type Running, request, startWithDatabase } from "./harness.js"

const serverUp = await Testing.serverAvailable()

const timeouts = { headersMs: 600, requestMs: 1500, keepAliveMs: 500 }

/** A raw connection: what it received, when it closed, and whether it was reset. */
const raw = (url: string) => {
  const { hostname, port } = new URL(url)
  const socket: Socket = connect(Number(port), hostname)
  const state = { data: "", closedAt: 0, error: undefined as string | undefined, openedAt: Date.now() }
  socket.on("data", (d) => {
    state.data += d.toString("latin1")
  })
  socket.on("error", (e: NodeJS.ErrnoException) => {
    state.error = e.code ?? e.message
  })
  const closed = new Promise<void>((resolve) =>
    socket.once("close", () => {
      state.closedAt = Date.now()
      resolve()
    })
  )
  const opened = new Promise<void>((resolve) => socket.once("connect", () => resolve()))
  return { socket, state, closed, opened }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

describe.skipIf(!serverUp)("hostile clients (issue 14)", () => {
  let server: Running
  let db: pg.Client
  let close: () => Promise<void> = async () => {}
  beforeAll(async () => {
    const started = await startWithDatabase({ options: { timeouts } })
    server = started.server
    db = started.db
    close = started.close
  }, 60_000)
  afterAll(() => close())

  it("D8: the store refusing the settle after the hold: the hold is released before the answer, nothing billed", async () => {
    const a = await account(server, 100, "refused-settle")
    await db.query(`CREATE FUNCTION refuse_write() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN RAISE EXCEPTION 'the test store refuses this write'; END $$;
      CREATE TRIGGER refuse_write BEFORE INSERT ON measurements FOR EACH ROW
        WHEN (NEW.entity LIKE '%refused%') EXECUTE FUNCTION refuse_write();`)
    const state = async () => {
      const acct = await db.query("SELECT balance::int, held::int FROM accounts WHERE id = $1", [a.accountId])
      const holds = await db.query("SELECT status, count(*)::int AS n FROM holds WHERE account_id = $1 GROUP BY 1", [
        a.accountId
      ])
      const captures = await db.query(
        "SELECT count(*)::int AS n FROM ledger WHERE account_id = $1 AND kind = 'capture'",
        [a.accountId]
      )
      return {
        ...acct.rows[0],
        holds: Object.fromEntries(holds.rows.map((r) => [r.status, r.n])),
        captures: captures.rows[0].n
      }
    }
    for (const [i, headers] of [{}, { "idempotency-key": "refused-once" }].entries()) {
      const r = await post(
        server,
        "/api/v1/platforms/maps",
        { request: { op: "places", subjects: [`ChIJrefused${i}aaaa`] } },
        a.key,
        headers
      )
      assert.strictEqual(r.status, 500, r.text)
      assert.match(r.body.error.message, /not billed/)
      // read as soon as the answer arrived: the sweep (every 15 s, 5-minute holds) has not run
      assert.deepStrictEqual(await state(), {
        balance: 100,
        held: 0,
        holds: { released: i + 1 },
        captures: 0
      })
    }
    // the idempotency key of the failed call is free again: once the store accepts, the retry runs and bills once
    await db.query("DROP TRIGGER refuse_write ON measurements")
    const retry = await post(
      server,
      "/api/v1/platforms/maps",
      { request: { op: "places", subjects: ["ChIJrefused1aaaa"] } },
      a.key,
      { "idempotency-key": "refused-once" }
    )
    assert.strictEqual(retry.status, 200, retry.text)
    assert.deepStrictEqual(await state(), {
      balance: 100 - retry.body.cost.creditsCharged,
      held: 0,
      holds: { released: 2, captured: 1 },
      captures: 1
    })
  })

  it("slow clients: idle, a byte a second (headers or body) and idle keep-alives are cut; other calls answer", async () => {
    const a = await account(server, 100, "slow")
    const idle = raw(server.api)
    const headersDrip = raw(server.api)
    const bodyDrip = raw(server.api)
    const keepAlive = raw(server.api)
    await Promise.all([idle.opened, headersDrip.opened, bodyDrip.opened, keepAlive.opened])
    const request_ = "POST /api/v1/platforms/maps HTTP/1.1\r\nhost: x\r\n"
    const body = JSON.stringify({ request: { op: "places", subjects: ["ChIJslowclient01"] } })
    bodyDrip.socket.write(
      `${request_}x-api-key: ${a.key}\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\n\r\n`
    )
    keepAlive.socket.write(`GET /api/v1/balance HTTP/1.1\r\nhost: x\r\nx-api-key: ${a.key}\r\n\r\n`)
    let sent = 0
    const drip = setInterval(() => {
      if (!headersDrip.state.closedAt) headersDrip.socket.write(request_[sent % request_.length]!)
      if (!bodyDrip.state.closedAt) bodyDrip.socket.write(body[sent % body.length]!)
      sent++
    }, 1000)
    // normal calls keep answering meanwhile
    const answered: Array<number> = []
    for (let i = 0; i < 8; i++) {
      answered.push((await request(`${server.api}/api/v1/balance`, { headers: { "x-api-key": a.key } })).status)
      await sleep(250)
    }
    await Promise.race([Promise.all([idle.closed, headersDrip.closed, bodyDrip.closed, keepAlive.closed]), sleep(8000)])
    clearInterval(drip)
    assert.deepStrictEqual(answered, Array(8).fill(200))
    const after = (c: ReturnType<typeof raw>) => (c.state.closedAt ? c.state.closedAt - c.state.openedAt : Infinity)
    // each cut after its timeout (plus node's check interval), long before node's defaults (60 s, 300 s, 5 s)
    assert.isAtMost(after(idle), timeouts.headersMs + 1500, "an idle connection is cut after the headers timeout")
    assert.isAtLeast(after(idle), timeouts.headersMs - 50)
    assert.isAtMost(after(headersDrip), timeouts.headersMs + 1500, "headers a byte a second are cut")
    assert.isAtMost(after(bodyDrip), timeouts.requestMs + 1500, "a body a byte a second is cut")
    assert.isAtLeast(after(bodyDrip), timeouts.requestMs - 50)
    assert.match(keepAlive.state.data, /^HTTP\/1\.1 200/)
    assert.isAtMost(after(keepAlive), timeouts.keepAliveMs + 1500, "an idle keep-alive is closed")
    assert.notInclude(bodyDrip.state.data, "HTTP/1.1 200", "the dripped call was never served")
    for (const c of [idle, headersDrip, bodyDrip, keepAlive]) c.socket.destroy()
  }, 30_000)

  it("D12: a chunked body over the limit, still being sent, gets a readable 413 and a close, not a reset", async () => {
    const a = await account(server, 100, "chunked")
    const c = raw(server.api)
    await c.opened
    c.socket.write(
      `POST /api/v1/platforms/maps HTTP/1.1\r\nhost: x\r\nx-api-key: ${a.key}\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n\r\n`
    )
    const chunk = `${(64 * 1024).toString(16)}\r\n${"[".repeat(64 * 1024)}\r\n`
    // 2 MiB in 64 KiB chunks, a chunk every 10 ms, whatever the server says meanwhile
    for (let i = 0; i < 32 && !c.state.closedAt && !c.state.error; i++) {
      c.socket.write(chunk)
      await sleep(10)
    }
    if (!c.state.closedAt && !c.state.error) c.socket.end("0\r\n\r\n")
    await Promise.race([c.closed, sleep(5000)])
    assert.isUndefined(c.state.error, `no reset: ${c.state.error}`)
    assert.match(c.state.data, /^HTTP\/1\.1 413 /)
    assert.match(c.state.data, /connection: close/i)
    const json = JSON.parse(c.state.data.slice(c.state.data.indexOf("\r\n\r\n") + 4))
    assert.strictEqual(json.error.code, "payload_too_large")
    assert.isAbove(c.state.closedAt, 0, "the server closed the connection")
  })

  it("D12: Expect: 100-continue over the limit gets an immediate 413; within it, 100 Continue and the answer", async () => {
    const a = await account(server, 100, "continue")
    const big = raw(server.api)
    await big.opened
    big.socket.write(
      `POST /api/v1/platforms/maps HTTP/1.1\r\nhost: x\r\nx-api-key: ${a.key}\r\ncontent-type: application/json\r\nexpect: 100-continue\r\ncontent-length: 70000\r\n\r\n`
    )
    await Promise.race([big.closed, sleep(3000)])
    assert.match(big.state.data, /^HTTP\/1\.1 413 /, big.state.data)
    assert.notInclude(big.state.data, "100 Continue")
    assert.strictEqual(
      JSON.parse(big.state.data.slice(big.state.data.indexOf("\r\n\r\n") + 4)).error.code,
      "payload_too_large"
    )
    const small = raw(server.api)
    await small.opened
    const body = JSON.stringify({ request: { op: "places", subjects: ["ChIJcontinue0001"] } })
    small.socket.write(
      `POST /api/v1/platforms/maps HTTP/1.1\r\nhost: x\r\nx-api-key: ${a.key}\r\ncontent-type: application/json\r\nexpect: 100-continue\r\ncontent-length: ${body.length}\r\nconnection: close\r\n\r\n`
    )
    for (let i = 0; i < 50 && !small.state.data.includes("100 Continue"); i++) await sleep(20)
    assert.match(small.state.data, /^HTTP\/1\.1 100 Continue/)
    small.socket.write(body)
    await Promise.race([small.closed, sleep(5000)])
    assert.match(small.state.data, /HTTP\/1\.1 200 /)
  })
})
