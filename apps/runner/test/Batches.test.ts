// Jobs that carry batches of entities (REFRESH_BATCH), with spawned runners on the real PostgreSQL server: an entity
// of a batch that always fails ends failed alone (the others refresh, the pass ends); a batch run again after its
// lease ran out (its runner frozen, taken over) makes no second point or charge for any of its entities; a budget
// that covers part of a batch refreshes its cheap entities while credits remain.
import { Catalogue, Freshness } from "@pdr/domain"
import * as Testing from "@pdr/store-pg/Testing"
import { afterEach, describe, expect, it } from "vitest"
import * as F from "./fixtures.js"

const server = await Testing.serverAvailable()
const worlds: Array<F.World> = []
const open = async (n: number, credits?: number) => {
  const w = await F.world(n, credits)
  worlds.push(w)
  return w
}
afterEach(async () => {
  for (const w of worlds.splice(0)) await w.close()
})

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
const count = async (url: string, text: string, values: ReadonlyArray<unknown> = []) =>
  Number((await F.query(url, text, values).catch(() => [{ n: -1 }]))[0]?.n ?? 0)
const waitFor = async (what: () => Promise<boolean>, ms: number) => {
  const until = Date.now() + ms
  while (Date.now() < until) {
    if (await what()) return true
    await sleep(50)
  }
  return false
}
/** The entities each job of the pass carries. */
const batchSizes = async (url: string) =>
  (await F.query(url, "SELECT jsonb_array_length(payload->'entities') AS n FROM jobs ORDER BY id")).map(
    (r) => r.n as number
  )

describe.skipIf(!server)("batches of entities per job on PostgreSQL", () => {
  it("a batch with one always-failing entity: the others refresh, the pass ends with that one failed", async () => {
    const w = await open(16)
    // creator.5's measurement is refused by the database at every settle (its call fails after its hold)
    await F.query(
      w.url,
      `CREATE FUNCTION refuse_one() RETURNS trigger LANGUAGE plpgsql AS $$
       BEGIN IF NEW.entity = 'creator.5' THEN RAISE EXCEPTION 'measurement refused by the test'; END IF; RETURN NEW; END $$;
       CREATE TRIGGER refuse_one BEFORE INSERT ON measurements FOR EACH ROW EXECUTE FUNCTION refuse_one()`
    )
    const r = F.spawnRunner(
      ["once"],
      w.env({ REFRESH_BATCH: "4", REFRESH_MAX_ATTEMPTS: "2", REFRESH_CONCURRENCY: "2" })
    )
    expect(await r.exited, r.output()).toBe(4) // failures
    expect(await batchSizes(w.url)).toEqual([4, 4, 4, 4])
    const summary = F.lastJson(r.stdout())
    expect([summary.outcome, summary.total, summary.refreshed, summary.failed, summary.left]).toEqual([
      "failures",
      16,
      15,
      1,
      0
    ])
    expect(r.output()).toContain("measurement refused by the test")
    const [failed] = await F.query(w.url, "SELECT freshness_key, detail FROM refresh_results WHERE status = 'failed'")
    expect(failed.freshness_key).toContain("creator.5")
    // its batch ended done (only the entity failed); the others were charged once each, the failed one never
    expect(await count(w.url, "SELECT count(*)::int AS n FROM jobs WHERE state <> 'done'")).toBe(0)
    expect(await F.captures(w.url, F.todaysPass())).toEqual({ n: 15, credits: 30 })
    const points = await F.pointsPerSubject(w.url)
    for (const s of w.subjects) expect(points.get(s), s).toBe(s === "creator.5" ? 1 : 2)
    expect(await F.reconciles(w.url)).toBe(true)
  }, 120_000)

  it("a batch run again after its lease ran out makes no second point or charge for any of its entities", async () => {
    const w = await open(16)
    // batches of 4 at 1.5 s a call, one call of the platform at a time (so one batch runs, its calls in turn); a
    // runner frozen mid-batch loses its lease after 1 s
    const env = w.env({
      REFRESH_BATCH: "4",
      SYNTHETIC_LATENCY_MS: "1500",
      REFRESH_CONCURRENCY: "2",
      REFRESH_PLATFORM_CONCURRENCY: "1",
      REFRESH_LEASE_MS: "1000"
    })
    const a = F.spawnRunner(["once"], env)
    const workerOf = async (pid: number) =>
      (await F.query(w.url, "SELECT DISTINCT worker FROM jobs WHERE worker LIKE $1", [`%:${pid}:%`]).catch(() => []))[0]
        ?.worker as string | undefined
    let worker: string | undefined
    // frozen once two entities of its batch settled and the third is being fetched
    expect(
      await waitFor(async () => {
        worker = await workerOf(a.child.pid!)
        return (
          worker !== undefined &&
          (await count(w.url, "SELECT count(*)::int AS n FROM ledger WHERE kind = 'capture' AND key_id LIKE $1", [
            `%:${worker}:%`
          ])) >= 2
        )
      }, 60_000),
      a.output()
    ).toBe(true)
    a.child.kill("SIGSTOP")
    const b = F.spawnRunner(["once"], env)
    const takenOver = await waitFor(
      async () => (await count(w.url, "SELECT count(*)::int AS n FROM jobs WHERE taken_over_from = $1", [worker])) >= 1,
      60_000
    )
    expect(takenOver, b.output()).toBe(true)
    a.child.kill("SIGCONT")
    expect(await b.exited, b.output()).toBe(0)
    await a.exited
    expect(await batchSizes(w.url)).toEqual([4, 4, 4, 4])
    const points = await F.pointsPerSubject(w.url)
    for (const s of w.subjects) expect(points.get(s), `${s}\n${a.output()}`).toBe(2)
    expect(await F.captures(w.url, F.todaysPass())).toEqual({ n: 16, credits: 32 })
    expect(await count(w.url, "SELECT count(*)::int AS n FROM holds WHERE status = 'held'")).toBe(0)
    expect(await F.query(w.url, "SELECT status, count(*)::int AS n FROM refresh_results GROUP BY status")).toEqual([
      { status: "refreshed", n: 16 }
    ])
    expect(await F.reconciles(w.url)).toBe(true)
  }, 180_000)

  it("a budget that covers part of a batch refreshes its cheap entities while credits remain", async () => {
    const w = await open(0)
    // pinned short_video posts: the first batch is one expensive entity (100 rows) and two cheap ones (1 row each)
    const op = Catalogue.findOp("short_video", "posts")!
    const entities = [
      { subject: "a.big", limit: 100 },
      ...Array.from({ length: 8 }, (_, i) => ({ subject: `b.small.${i}`, limit: 1 }))
    ]
    for (const e of entities) {
      const request = { op: "posts", subject: e.subject, limit: e.limit }
      await F.query(
        w.url,
        "INSERT INTO tracked (freshness_key, platform, op, subject, request, demanded_at, pinned) VALUES ($1, 'short_video', 'posts', $2, $3, now(), true)",
        [Freshness.key(op, e.subject, Freshness.answerFields(request, undefined)), e.subject, JSON.stringify(request)]
      )
    }
    const dry = F.spawnRunner(["once", "--dry-run"], w.env({ REFRESH_BUDGET: "1000" }))
    expect(await dry.exited, dry.output()).toBe(0)
    expect(dry.stdout()).toContain("short_video posts a.big  194 credits")
    expect(dry.stdout()).toContain("short_video posts b.small.0  2 credits")
    // 16 credits: never the 194 of the big one, every cheap one (8 x 2)
    const r = F.spawnRunner(
      ["once"],
      w.env({ REFRESH_BATCH: "3", REFRESH_BUDGET: "16", REFRESH_CONCURRENCY: "1", SYNTHETIC_LATENCY_MS: "20" })
    )
    expect(await r.exited, r.output()).toBe(3) // budget reached with entities left
    expect(await batchSizes(w.url)).toEqual([3, 3, 3])
    const summary = F.lastJson(r.stdout())
    expect([summary.refreshed, summary.overBudget, summary.creditsSpent]).toEqual([8, 1, 16])
    const [cut] = await F.query(w.url, "SELECT freshness_key, detail FROM refresh_results WHERE status = 'over_budget'")
    expect(cut.freshness_key).toContain("a.big")
    expect(cut.detail).toMatch(/^194 credits needed, 12 of the pass budget left$/)
    expect(await F.captures(w.url, F.todaysPass())).toEqual({ n: 8, credits: 16 })
    expect(await F.reconciles(w.url)).toBe(true)
  }, 120_000)
})
