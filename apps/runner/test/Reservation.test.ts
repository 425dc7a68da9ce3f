// Issue 19: a runner killed between its batch's reservation of the pass budget and the placement of the batch's hold
// (spawned runners on the real PostgreSQL server). The reservation is written down with the hold's id; the job's
// takeover gives it back, so the pass budget the pass reserved ends equal to what its results were charged.
import * as Testing from "@pdr/store-pg/Testing"
import { afterEach, describe, expect, it } from "vitest"
import * as F from "./fixtures.js"

const server = await Testing.serverAvailable()
const worlds: Array<F.World> = []
afterEach(async () => {
  for (const w of worlds.splice(0)) await w.close()
})

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
const waitFor = async (what: () => Promise<boolean>, ms: number) => {
  const until = Date.now() + ms
  while (Date.now() < until) {
    if (await what()) return true
    await sleep(50)
  }
  return false
}

describe.skipIf(!server)("a batch's reservation on PostgreSQL", () => {
  it("a runner killed between its reservation and its hold: the takeover gives the reservation back", async () => {
    const w = await F.world(16)
    worlds.push(w)
    // the first hold placed from now on waits 8 s in the database (the runner placing it is killed meanwhile; its
    // statement still ends, and its hold may appear after the takeover, held until it expires)
    await F.query(
      w.url,
      `CREATE SEQUENCE hold_gate;
       CREATE FUNCTION slow_first_hold() RETURNS trigger LANGUAGE plpgsql AS $$
       BEGIN IF nextval('hold_gate') = 1 THEN PERFORM pg_sleep(8); END IF; RETURN NEW; END $$;
       CREATE TRIGGER slow_first_hold BEFORE INSERT ON holds FOR EACH ROW EXECUTE FUNCTION slow_first_hold()`
    )
    // batches of 4 (8 credits each), one at a time; a killed runner's job is taken over after 1 s
    const env = w.env({ REFRESH_BATCH: "4", REFRESH_CONCURRENCY: "1", REFRESH_LEASE_MS: "1000" })
    const a = F.spawnRunner(["once"], env)
    const reserved = async () =>
      Number((await F.query(w.url, "SELECT reserved FROM refresh_passes").catch(() => []))[0]?.reserved ?? 0)
    const gated = async () =>
      (await F.query(w.url, "SELECT is_called FROM hold_gate").catch(() => []))[0]?.is_called === true
    // the first batch's quotes are reserved and its hold is being placed
    expect(await waitFor(async () => (await gated()) && (await reserved()) === 8, 60_000), a.output()).toBe(true)
    a.child.kill("SIGKILL")
    await a.exited
    const b = F.spawnRunner(["once"], env)
    expect(await b.exited, b.output()).toBe(0)
    const summary = F.lastJson(b.stdout())
    expect([summary.outcome, summary.total, summary.refreshed, summary.failed]).toEqual(["complete", 16, 16, 0])
    // exactly one point and one charge per entity, and the killed runner's reservation given back once
    const points = await F.pointsPerSubject(w.url)
    for (const s of w.subjects) expect(points.get(s), s).toBe(2)
    expect(await F.budgetSpent(w.url, F.todaysPass())).toEqual({ reserved: 32, charged: 32 })
    expect(await F.captures(w.url, F.todaysPass())).toEqual({ n: 4, credits: 32 })
    expect(await F.query(w.url, "SELECT count(*)::int AS n FROM refresh_reservations")).toEqual([{ n: 0 }])
    // no hold of the runner that finished is left held (the killed one's, placed after its death, may be)
    const [killed] = await F.query(
      w.url,
      "SELECT DISTINCT taken_over_from AS w FROM jobs WHERE taken_over_from IS NOT NULL"
    )
    expect(killed?.w, b.output()).toBeDefined()
    expect(
      await F.query(w.url, "SELECT count(*)::int AS n FROM holds WHERE status = 'held' AND key_id NOT LIKE $1", [
        `%:${killed.w}:%`
      ])
    ).toEqual([{ n: 0 }])
  }, 120_000)
})
