// Issue 21 over a real socket, on the real PostgreSQL server and the embedded default: call ids on every answer,
// `Prefer` -> 202 then collect (billed once, the same answer as a synchronous call), cancel mid-call (only delivered
// units billed), another account's id -> the same 404 as an unknown one, `forceFresh` and `maxAgeSeconds` (and their
// Cache-Control spellings), bad input named. Upstream: the synthetic adapter, with subjects containing "slow" held
// until the test lets them go (a real adapter's slow unit), so a cancel lands between delivered and pending units.
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { Upstream } from "@pdr/domain"
import * as Testing from "@pdr/store-pg/Testing"
import { SyntheticUpstream } from "@pdr/upstream-synthetic"
import { Duration, Effect, Layer } from "effect"
import * as CallRunner from "../src/http/CallRunner.js"
import { account, balance, request as get, post, type Running, start, startWithDatabase } from "./harness.js"

const targets = await Testing.targets()

/** The synthetic upstream with a latency, where a subject containing "slow" answers only after 20 s. */
const upstream = (latencyMs: number) =>
  Layer.effect(
    Upstream.Upstream,
    Effect.map(SyntheticUpstream.make({ ...SyntheticUpstream.defaults, latency: Duration.millis(latencyMs) }), (a) =>
      Upstream.single({
        ...a,
        fetch: (unit) =>
          unit.subject?.includes("slow") === true
            ? Effect.zipRight(Effect.sleep("20 seconds"), a.fetch(unit))
            : a.fetch(unit)
      })
    )
  )

const places = (subjects: ReadonlyArray<string>) => ({ request: { op: "places", subjects } })

/** Every answer a 200, and its call collected by its id as exactly the text that was answered. */
const collectedAsAnswered = async (
  server: Running,
  key: string,
  answers: ReadonlyArray<{ readonly status: number; readonly text: string; readonly headers: Headers }>
) => {
  for (const r of answers) {
    assert.strictEqual(r.status, 200)
    const again = await get(`${server.api}/api/v1/calls/${r.headers.get("call-id")}`, { headers: { "x-api-key": key } })
    assert.strictEqual(again.status, 200)
    assert.strictEqual(again.text, r.text)
  }
}
const maps = "/api/v1/platforms/maps"
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** Collects a call until it is done (200 or an error status), following Retry-After (capped for the test). */
const collect = async (server: Running, key: string, id: string) => {
  for (let i = 0; i < 200; i++) {
    const r = await get(`${server.api}/api/v1/calls/${id}`, { headers: { "x-api-key": key } })
    if (r.status !== 202) return r
    assert.strictEqual(r.headers.get("location"), `/api/v1/calls/${id}`)
    await sleep(Math.min(200, Number(r.headers.get("retry-after")) * 1000))
  }
  throw new Error("the call never finished")
}

for (const t of targets) {
  describe.skipIf(!t.enabled)(`long calls and freshness control (${t.name})`, () => {
    let server: Running
    beforeAll(async () => {
      server = await start({ target: t.target, options: { upstream: upstream(400) } })
    }, 120_000)
    afterAll(async () => {
      await server?.close()
    })

    it("every answer has a call id; a synchronous call is collected again, identical", async () => {
      const a = await account(server, 1000, "sync")
      const r = await post(server, maps, places(["ChIJsync-1"]), a.key)
      assert.strictEqual(r.status, 200)
      const id = r.headers.get("call-id")!
      assert.match(id, /^call_[0-9a-f]{20}$/)
      assert.strictEqual(r.body.callId, id)
      await sleep(600) // the record is written with the next batch (250 ms)
      const again = await get(`${server.api}/api/v1/calls/${id}`, { headers: { "x-api-key": a.key } })
      assert.strictEqual(again.status, 200)
      assert.strictEqual(again.text, r.text)
      // an error answer is kept with its status
      const bad = await post(server, maps, places([]), a.key)
      assert.strictEqual(bad.status, 400)
      await sleep(600)
      const badAgain = await get(`${server.api}/api/v1/calls/${bad.headers.get("call-id")}`, {
        headers: { "x-api-key": a.key }
      })
      assert.strictEqual(badAgain.status, 400)
      assert.deepStrictEqual(badAgain.body, bad.body)
    })

    it("Prefer: respond-async -> 202 with quote and progress, then collected, billed once like a synchronous call", async () => {
      const a = await account(server, 1000, "async")
      const subjects = ["ChIJasync-1", "ChIJasync-2", "ChIJasync-3"]
      const r = await post(server, maps, places(subjects), a.key, { prefer: "respond-async" })
      assert.strictEqual(r.status, 202)
      const id = r.body.callId as string
      assert.strictEqual(r.headers.get("location"), `/api/v1/calls/${id}`)
      assert.strictEqual(r.headers.get("call-id"), id)
      assert.isTrue(Number(r.headers.get("retry-after")) >= 1)
      assert.strictEqual(r.body.quote, 12)
      assert.deepStrictEqual(r.body.progress, { unitsDone: 0, unitsTotal: 3 })
      const done = await collect(server, a.key, id)
      assert.strictEqual(done.status, 200)
      assert.strictEqual(done.body.callId, id)
      assert.strictEqual(done.body.cost.creditsCharged, 12)
      assert.deepStrictEqual(
        done.body.coverage.map((c: any) => c.status),
        ["fetched", "fetched", "fetched"]
      )
      assert.strictEqual(await balance(server, a.key), 988)
      // collecting again is free and the same text
      const again = await get(`${server.api}/api/v1/calls/${id}`, { headers: { "x-api-key": a.key } })
      assert.strictEqual(again.text, done.text)
      assert.strictEqual(await balance(server, a.key), 988)
      // the same call made synchronously by another account: the same answer but for its ids
      const b = await account(server, 1000, "async-twin")
      const sync = await post(server, maps, { ...places(subjects), forceFresh: true }, b.key)
      const strip = (body: any) => ({
        ...body,
        requestId: undefined,
        callId: undefined,
        cost: { creditsCharged: body.cost.creditsCharged },
        data: body.data.map((d: any) => ({ ...d, measuredAt: undefined })),
        coverage: body.coverage.map((c: any) => ({ ...c, measuredAt: undefined }))
      })
      assert.deepStrictEqual(strip(sync.body), strip(done.body))
    })

    it("Prefer: wait=N answers 200 when done within N seconds, 202 otherwise; wait out of range is a 400", async () => {
      const a = await account(server, 1000, "wait")
      const quick = await post(server, maps, places(["ChIJwait-1"]), a.key, { prefer: "wait=5" })
      assert.strictEqual(quick.status, 200)
      assert.strictEqual(quick.body.cost.creditsCharged, 4)
      const slow = await post(server, maps, places(["ChIJwait-2"]), a.key, { prefer: "wait=0" })
      assert.strictEqual(slow.status, 202)
      assert.strictEqual((await collect(server, a.key, slow.body.callId)).body.cost.creditsCharged, 4)
      for (const prefer of ["wait=601", "wait=-1", "wait=abc", "respond-async, wait=1.5"]) {
        const bad = await post(server, maps, places(["ChIJwait-3"]), a.key, { prefer })
        assert.strictEqual(bad.status, 400, prefer)
        assert.strictEqual(bad.body.error.details[0].path, "Prefer")
      }
      assert.strictEqual(await balance(server, a.key), 992)
    })

    it("cancel mid-call: delivered units settled and billed, the rest neither fetched nor billed; a finished call -> 409", async () => {
      const a = await account(server, 1000, "cancel")
      const subjects = ["ChIJcancel-1", "ChIJcancel-2", "ChIJcancel-slow-3", "ChIJcancel-slow-4"]
      const r = await post(server, maps, places(subjects), a.key, { prefer: "respond-async" })
      assert.strictEqual(r.status, 202)
      assert.strictEqual(r.body.quote, 16)
      const id = r.body.callId as string
      await sleep(1500) // the two quick units are delivered, the slow ones still run
      const running = await get(`${server.api}/api/v1/calls/${id}`, { headers: { "x-api-key": a.key } })
      assert.strictEqual(running.status, 202)
      assert.deepStrictEqual(running.body.progress, { unitsDone: 2, unitsTotal: 4 })
      const cancelled = await get(`${server.api}/api/v1/calls/${id}`, {
        method: "DELETE",
        headers: { "x-api-key": a.key }
      })
      assert.strictEqual(cancelled.status, 202)
      assert.strictEqual(cancelled.body.status, "cancelling")
      const done = await collect(server, a.key, id)
      assert.strictEqual(done.status, 200)
      assert.strictEqual(done.body.cost.creditsCharged, 8)
      assert.deepStrictEqual(
        done.body.coverage.map((c: any) => [c.status, c.reason ?? null]),
        [
          ["fetched", null],
          ["fetched", null],
          ["omitted", "cancelled"],
          ["omitted", "cancelled"]
        ]
      )
      assert.strictEqual(await balance(server, a.key), 992)
      // the delivered units were kept: asked again, they are stored and free
      const stored = await post(server, maps, places(["ChIJcancel-1", "ChIJcancel-2"]), a.key)
      assert.strictEqual(stored.body.cost.creditsCharged, 0)
      const list = await get(`${server.api}/api/v1/calls`, { headers: { "x-api-key": a.key } })
      assert.strictEqual(list.body.calls.find((c: any) => c.callId === id).status, "cancelled")
      const late = await get(`${server.api}/api/v1/calls/${id}`, { method: "DELETE", headers: { "x-api-key": a.key } })
      assert.strictEqual(late.status, 409)
      assert.strictEqual(late.body.error.code, "call_finished")
      assert.strictEqual(late.body.error.details.status, "cancelled")
      assert.strictEqual(await balance(server, a.key), 992)
    })

    it("calls answered together are each recorded once, in batches written as they fill (issue 22)", async () => {
      const a = await account(server, 1000, "batches")
      // more than two full batches at once: the batches written as they fill and the one written by the timer
      const n = 2 * CallRunner.recordBatch + 7
      const answers = await Promise.all(
        Array.from({ length: n }, (_, i) =>
          post(server, maps, { ...places([`ChIJbatch-${i}`]), estimateOnly: true }, a.key)
        )
      )
      await sleep(600)
      await collectedAsAnswered(server, a.key, answers)
    })

    it("another account's call id answers exactly as an unknown one: 404", async () => {
      const a = await account(server, 1000, "owner")
      const b = await account(server, 1000, "other")
      const r = await post(server, maps, places(["ChIJmine-1"]), a.key, { prefer: "wait=5" })
      const id = r.headers.get("call-id")!
      await sleep(600)
      const mine = await get(`${server.api}/api/v1/calls/${id}`, { headers: { "x-api-key": a.key } })
      assert.strictEqual(mine.status, 200)
      const unknown = `call_${"0".repeat(20)}`
      for (const method of ["GET", "DELETE"]) {
        const foreign = await get(`${server.api}/api/v1/calls/${id}`, { method, headers: { "x-api-key": b.key } })
        const none = await get(`${server.api}/api/v1/calls/${unknown}`, { method, headers: { "x-api-key": b.key } })
        const junk = await get(`${server.api}/api/v1/calls/nope`, { method, headers: { "x-api-key": b.key } })
        for (const x of [foreign, none, junk]) {
          assert.strictEqual(x.status, 404)
          assert.deepStrictEqual({ ...x.body.error, requestId: 0 }, { ...foreign.body.error, requestId: 0 })
        }
      }
      const list = await get(`${server.api}/api/v1/calls`, { headers: { "x-api-key": b.key } })
      assert.deepStrictEqual(list.body.calls, [])
    })

    it("GET /api/v1/calls pages with a keyset cursor, newest first", async () => {
      const a = await account(server, 1000, "list")
      const ids: Array<string> = []
      for (let i = 0; i < 5; i++) {
        const r = await post(server, maps, { ...places([`ChIJlist-${i}`]), estimateOnly: true }, a.key)
        ids.push(r.headers.get("call-id")!)
        await sleep(5)
      }
      await sleep(600)
      const seen: Array<string> = []
      let after: string | null = null
      for (let page = 0; page < 5; page++) {
        const q: string = after === null ? "?limit=2" : `?limit=2&after=${after}`
        const r = await get(`${server.api}/api/v1/calls${q}`, { headers: { "x-api-key": a.key } })
        assert.strictEqual(r.status, 200)
        seen.push(...r.body.calls.map((c: any) => c.callId))
        after = r.body.next
        if (after === null) break
      }
      assert.deepStrictEqual(seen, [...ids].reverse())
      const bad = await get(`${server.api}/api/v1/calls?after=zzz`, { headers: { "x-api-key": a.key } })
      assert.strictEqual(bad.status, 400)
    })

    it("forceFresh (and Cache-Control: no-cache): quoted and billed as a fetch, replaces the stored copy, one more history point", async () => {
      const a = await account(server, 1000, "force")
      const b = await account(server, 1000, "force-other")
      const body = places(["ChIJforce-1"])
      const first = await post(server, maps, body, a.key)
      assert.strictEqual(first.body.cost.creditsCharged, 4)
      const stored = await post(server, maps, body, b.key)
      assert.strictEqual(stored.body.coverage[0].status, "stored")
      const quote = await post(server, maps, { ...body, forceFresh: true, estimateOnly: true }, b.key)
      assert.strictEqual(quote.body.estimate.credits, 4)
      assert.strictEqual(quote.body.coverage[0].status, "fetch")
      const history = async () =>
        (
          await post(
            server,
            maps,
            { request: { op: "history", subjects: ["ChIJforce-1"], metric: "rating", days: 30 } },
            a.key
          )
        ).body.data[0].points.length as number
      const before = await history()
      server.offset.ms += 1000
      const forced = await post(server, maps, { ...body, forceFresh: true }, b.key)
      assert.strictEqual(forced.body.coverage[0].status, "fetched")
      assert.strictEqual(forced.body.cost.creditsCharged, 4)
      assert.strictEqual(await history(), before + 1)
      // every account now gets the new copy, free
      const after = await post(server, maps, body, a.key)
      assert.strictEqual(after.body.coverage[0].status, "stored")
      assert.strictEqual(after.body.coverage[0].measuredAt, forced.body.coverage[0].measuredAt)
      assert.notStrictEqual(after.body.coverage[0].measuredAt, first.body.coverage[0].measuredAt)
      assert.strictEqual(after.body.cost.creditsCharged, 0)
      // the header means the same
      server.offset.ms += 1000
      const viaHeader = await post(server, maps, body, a.key, { "cache-control": "no-cache" })
      assert.strictEqual(viaHeader.body.coverage[0].status, "fetched")
      assert.strictEqual(await history(), before + 2)
    })

    it("maxAgeSeconds (and Cache-Control: max-age) refetches only what is older; it never lengthens the window", async () => {
      const a = await account(server, 1000, "age")
      await post(server, maps, places(["ChIJage-old"]), a.key)
      server.offset.ms += 120_000
      await post(server, maps, places(["ChIJage-new"]), a.key)
      const both = places(["ChIJage-old", "ChIJage-new"])
      const quote = await post(server, maps, { ...both, maxAgeSeconds: 60, estimateOnly: true }, a.key)
      assert.strictEqual(quote.body.estimate.credits, 4)
      const r = await post(server, maps, { ...both, maxAgeSeconds: 60 }, a.key)
      assert.deepStrictEqual(
        r.body.coverage.map((c: any) => c.status),
        ["fetched", "stored"]
      )
      assert.strictEqual(r.body.cost.creditsCharged, 4)
      server.offset.ms += 120_000
      const viaHeader = await post(server, maps, both, a.key, { "cache-control": "max-age=60" })
      assert.deepStrictEqual(
        viaHeader.body.coverage.map((c: any) => c.status),
        ["fetched", "fetched"]
      )
      // a huge max age is the op's own window: still stored
      const long = await post(server, maps, { ...both, maxAgeSeconds: 10 ** 9 }, a.key)
      assert.deepStrictEqual(
        long.body.coverage.map((c: any) => c.status),
        ["stored", "stored"]
      )
      server.offset.ms += 4 * 24 * 3600 * 1000 // past the op's 3-day window
      const expired = await post(server, maps, { ...both, maxAgeSeconds: 10 ** 9 }, a.key)
      assert.deepStrictEqual(
        expired.body.coverage.map((c: any) => c.status),
        ["fetched", "fetched"]
      )
    })

    it("bad freshness input: 400 naming the field or header, nothing spent", async () => {
      const a = await account(server, 100, "bad")
      const cases: ReadonlyArray<[unknown, Record<string, string>, string]> = [
        [{ ...places(["ChIJbad-1"]), maxAgeSeconds: -1 }, {}, "maxAgeSeconds"],
        [{ ...places(["ChIJbad-1"]), maxAgeSeconds: 1.5 }, {}, "maxAgeSeconds"],
        [{ ...places(["ChIJbad-1"]), maxAgeSeconds: "60" }, {}, "maxAgeSeconds"],
        [{ ...places(["ChIJbad-1"]), forceFresh: "yes" }, {}, "forceFresh"],
        [places(["ChIJbad-1"]), { "cache-control": "max-age=soon" }, "Cache-Control"]
      ]
      for (const [body, headers, path] of cases) {
        const r = await post(server, maps, body, a.key, headers)
        assert.strictEqual(r.status, 400, JSON.stringify(body))
        assert.include(
          r.body.error.details.map((d: any) => d.path),
          path
        )
      }
      assert.strictEqual(await balance(server, a.key), 100)
    })
  })
}

/** An upstream whose "slow" subjects answer after 2 s; `runs` says whether it is a run adapter (a provider's). */
const slowUpstream = (runs: boolean) =>
  Layer.effect(
    Upstream.Upstream,
    Effect.map(SyntheticUpstream.make(SyntheticUpstream.defaults), (a) =>
      Upstream.single({
        ...a,
        ...(runs ? { runs: true } : {}),
        fetch: (unit) =>
          unit.subject?.includes("slow") === true
            ? Effect.zipRight(Effect.sleep("2 seconds"), a.fetch(unit))
            : a.fetch(unit)
      })
    )
  )

describe.skipIf(!targets[0]!.enabled)("the run budget of long calls (issue 21)", () => {
  const servers: Array<Running> = []
  afterAll(async () => {
    for (const s of servers) await s.close()
  })

  const longCall = async (runs: boolean) => {
    // a unit may take 0.5 s per request; a run of a long call may take 60 s (PROVIDER_RUN_TIMEOUT_S)
    const server = await start({
      target: targets[0]!.target,
      options: { upstream: slowUpstream(runs), unitTimeoutMs: 500, longUnitTimeoutMs: 60_000 }
    })
    servers.push(server)
    const a = await account(server, 1000, "budget")
    const r = await post(server, maps, places(["ChIJfast-1", "ChIJslow-1"]), a.key, { prefer: "respond-async" })
    assert.strictEqual(r.status, 202)
    return collect(server, a.key, r.body.callId as string)
  }

  it("a per-request adapter keeps its request timeout in a long call: the 2 s unit is omitted at 0.5 s", async () => {
    const done = await longCall(false)
    assert.strictEqual(done.status, 200)
    assert.deepStrictEqual(
      done.body.coverage.map((c: any) => [c.status, c.reason ?? null]),
      [
        ["fetched", null],
        ["omitted", "upstream_timeout"]
      ]
    )
  }, 60_000)

  it("a run adapter's unit gets the run budget in a long call: the 2 s unit is delivered", async () => {
    const done = await longCall(true)
    assert.strictEqual(done.status, 200)
    assert.deepStrictEqual(
      done.body.coverage.map((c: any) => c.status),
      ["fetched", "fetched"]
    )
  }, 60_000)
})

describe("call records when their write fails (a dropped connection)", () => {
  // the calls table refuses rows while `refuse_calls` has a row, each refusal counted in a sequence (not rolled back)
  const refusing = async (db: { query: (q: string) => Promise<{ rows: Array<any> }> }) => {
    await db.query("CREATE SEQUENCE calls_refused")
    await db.query("CREATE TABLE refuse_calls (x int)")
    await db.query(`CREATE FUNCTION refuse_calls_f() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF EXISTS (SELECT 1 FROM refuse_calls) THEN
          PERFORM nextval('calls_refused');
          RAISE EXCEPTION 'refused by the test';
        END IF;
        RETURN NEW;
      END $$`)
    await db.query(
      "CREATE TRIGGER refuse_calls_t BEFORE INSERT ON calls FOR EACH ROW EXECUTE FUNCTION refuse_calls_f()"
    )
    const refusals = async () =>
      Number(
        (await db.query("SELECT CASE WHEN is_called THEN last_value ELSE 0 END AS n FROM calls_refused")).rows[0].n
      )
    return {
      refuse: () => db.query("INSERT INTO refuse_calls VALUES (1)"),
      admit: () => db.query("DELETE FROM refuse_calls"),
      waitFor: async (n: number) => {
        for (let i = 0; i < 500 && (await refusals()) < n; i++) await sleep(10)
        assert.isAtLeast(await refusals(), n)
      }
    }
  }

  it("large answers are recorded in statements of at most maxRecordBytesPerWrite bytes beyond their first record (issue 22)", async () => {
    const { server, db, close } = await startWithDatabase()
    try {
      // each statement that writes records leaves its row count and answers' bytes (a statement trigger)
      await db.query("CREATE TABLE record_writes (n int, bytes bigint)")
      await db.query(`CREATE FUNCTION record_writes_f() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
          INSERT INTO record_writes SELECT count(*), sum(octet_length(answer)) FROM written;
          RETURN NULL;
        END $$`)
      await db.query(`CREATE TRIGGER record_writes_t AFTER INSERT ON calls REFERENCING NEW TABLE AS written
        FOR EACH STATEMENT EXECUTE FUNCTION record_writes_f()`)
      // 10 subjects x 730 days: a history answer of about 400,000 characters
      const subjects = Array.from({ length: 10 }, (_, i) => `ChIJrecords-${i}`)
      await db.query(`INSERT INTO history_values (platform, entity, metric, measured_at, value, source)
        SELECT 'maps', 'ChIJrecords-' || (g % 10), 'rating', now() - (g / 10) * interval '1 day' - interval '1 hour',
               (g % 50) / 10.0, 'synthetic'
        FROM generate_series(0, 7299) AS g`)
      const a = await account(server, 1000, "large")
      const history = { request: { op: "history", subjects, metric: "rating", days: 730 } }
      const small = (i: number) => ({ ...places([`ChIJrecords-small-${i}`]), estimateOnly: true })
      // 8 large and 40 small answers at once
      const answers = await Promise.all([
        ...Array.from({ length: 8 }, () => post(server, maps, history, a.key)),
        ...Array.from({ length: 36 }, (_, i) => post(server, maps, small(i), a.key)),
        // (answers not all ASCII: the record is the answer's UTF-8 as it was sent)
        ...Array.from({ length: 4 }, (_, i) =>
          post(server, "/api/v1/platforms/web_search", { request: { op: "search", query: `café ☕ 𝄞 ${i}` } }, a.key)
        )
      ])
      await sleep(800)
      await collectedAsAnswered(server, a.key, answers)
      assert.isAbove(answers[0]!.text.length, CallRunner.maxRecordBytesPerWrite / 2)
      assert.include(answers.at(-1)!.text, "café ☕ 𝄞 3")
      const writes = (await db.query("SELECT n, bytes::int AS bytes FROM record_writes")).rows
      assert.strictEqual(
        writes.reduce((n, w) => n + w.n, 0),
        answers.length
      )
      for (const w of writes) if (w.n > 1) assert.isAtMost(w.bytes, CallRunner.maxRecordBytesPerWrite)
      // the small answers still share statements
      assert.isBelow(writes.length, answers.length)
      // a long call's large answer (its end records the bytes it answers; a history is done within the request's
      // wait, so it is answered 200 at once or, on a slow machine, 202 and collected): the synchronous answer, and
      // collected as the same text
      const long = await post(server, maps, history, a.key, { prefer: "respond-async" })
      const id = long.headers.get("call-id")!
      const done = long.status === 202 ? await collect(server, a.key, id) : long
      assert.strictEqual(done.status, 200)
      assert.isAbove(done.text.length, CallRunner.bytesFrom)
      // (the ids, and the balance: the web_search calls above were billed)
      const ids = (text: string) =>
        text.replace(/"(requestId|callId)":"[a-z]+_[0-9a-f]+"/g, "").replace(/"creditsRemaining":\d+/, "")
      assert.strictEqual(ids(done.text), ids(answers[0]!.text))
      const again = await get(`${server.api}/api/v1/calls/${id}`, { headers: { "x-api-key": a.key } })
      assert.strictEqual(again.text, done.text)
    } finally {
      await close()
    }
  }, 60_000)

  it("a batch whose write fails is written with the next one; what fails twice is dropped, and calls go on", async () => {
    const { server, db, close } = await startWithDatabase()
    try {
      const t = await refusing(db)
      const a = await account(server, 1000, "records")
      const ask = () => post(server, maps, { ...places(["ChIJrecord-1"]), estimateOnly: true }, a.key)
      const again = (id: string) => get(`${server.api}/api/v1/calls/${id}`, { headers: { "x-api-key": a.key } })
      await t.refuse()
      const first = await ask()
      assert.strictEqual(first.status, 200)
      await t.waitFor(1)
      await t.admit()
      await sleep(700) // the next batch (250 ms)
      const kept = await again(first.headers.get("call-id")!)
      assert.strictEqual(kept.status, 200)
      assert.strictEqual(kept.text, first.text)
      // refused twice: dropped (the buffer does not grow on a row the store refuses), said in the log
      await t.refuse()
      const second = await ask()
      assert.strictEqual(second.status, 200)
      await t.waitFor(3)
      await t.admit()
      await sleep(700)
      assert.strictEqual((await again(second.headers.get("call-id")!)).status, 404)
      // and the calls after are recorded as before
      const third = await ask()
      await sleep(700)
      assert.strictEqual((await again(third.headers.get("call-id")!)).status, 200)
    } finally {
      await close()
    }
  }, 60_000)
})
