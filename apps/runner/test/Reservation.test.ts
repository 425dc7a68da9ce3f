// Issue 19: a batch's reservation of the pass budget survives any stop of its runner (spawned runners on the real
// PostgreSQL server): killed between the reservation and the placement of the batch's hold, or between the close of
// the hold and the give-back of what it did not capture (the reservation rows stay until the give-back, and the
// takeover gives back from the closed hold's record), or frozen past its lease on its last attempt (no takeover runs:
// the pass's end closes its hold, gives its reservation back and ends its entities). The pass budget reserved ends
// equal to what its results were charged and to what the ledger captured.
import * as Testing from "@pdr/store-pg/Testing"
import { afterEach, describe, expect, it } from "vitest"
import * as F from "./fixtures.js"

const server = await Testing.serverAvailable()
const worlds: Array<F.World> = []
afterEach(async () => {
  for (const w of worlds.splice(0)) await w.close()
})

const { sleep, waitFor } = F

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

  it("a runner killed between its round's hold close and its give-back: the takeover gives back the rest, once", async () => {
    const w = await F.world(16)
    worlds.push(w)
    // creator.5's measurement is refused (its call fails, transient): its batch's hold captures 6 of 8; the first close
    // of such a hold waits 5 s in the database (its runner is killed meanwhile; the close still commits)
    await F.query(
      w.url,
      `CREATE FUNCTION refuse_one() RETURNS trigger LANGUAGE plpgsql AS $$
       BEGIN IF NEW.entity = 'creator.5' THEN RAISE EXCEPTION 'measurement refused by the test'; END IF; RETURN NEW; END $$;
       CREATE TRIGGER refuse_one BEFORE INSERT ON measurements FOR EACH ROW EXECUTE FUNCTION refuse_one();
       CREATE SEQUENCE close_gate;
       CREATE FUNCTION slow_first_close() RETURNS trigger LANGUAGE plpgsql AS $$
       BEGIN IF nextval('close_gate') = 1 THEN PERFORM pg_sleep(5); END IF; RETURN NEW; END $$;
       CREATE TRIGGER slow_first_close AFTER UPDATE ON holds FOR EACH ROW
         WHEN (OLD.status = 'held' AND NEW.status <> 'held' AND OLD.captured > 0 AND OLD.captured < OLD.amount)
         EXECUTE FUNCTION slow_first_close()`
    )
    const env = w.env({
      REFRESH_BATCH: "4",
      REFRESH_CONCURRENCY: "1",
      REFRESH_LEASE_MS: "1000",
      REFRESH_MAX_ATTEMPTS: "2"
    })
    const a = F.spawnRunner(["once"], env)
    const gated = async () =>
      (await F.query(w.url, "SELECT is_called FROM close_gate").catch(() => []))[0]?.is_called === true
    expect(await waitFor(gated, 120_000), a.output()).toBe(true)
    a.child.kill("SIGKILL")
    await a.exited
    const b = F.spawnRunner(["once"], env)
    expect(await b.exited, b.output()).toBe(4) // creator.5 failed
    const summary = F.lastJson(b.stdout())
    expect([summary.total, summary.refreshed, summary.failed]).toEqual([16, 15, 1])
    const points = await F.pointsPerSubject(w.url)
    for (const s of w.subjects) expect(points.get(s), s).toBe(s === "creator.5" ? 1 : 2)
    expect(await F.passInvariants(w.url, F.todaysPass())).toMatchObject({ ...F.heldInvariants, charged: 30 })
    expect(await F.reconciles(w.url)).toBe(true)
  }, 240_000)

  it("a runner frozen past its lease on its last attempt: the pass ends, its entities ended, its hold closed and reservation given back", async () => {
    const w = await F.world(16)
    worlds.push(w)
    // batches of 4 at 1 s a call, one call of the platform at a time; one attempt per job, leases of 1.5 s
    const env = w.env({
      REFRESH_BATCH: "4",
      SYNTHETIC_LATENCY_MS: "1000",
      REFRESH_PLATFORM_CONCURRENCY: "1",
      REFRESH_LEASE_MS: "1500",
      REFRESH_MAX_ATTEMPTS: "1"
    })
    const a = F.spawnRunner(["once"], { ...env, REFRESH_CONCURRENCY: "1" })
    // frozen once an entity of its batch drew from the batch's hold and the next is being fetched
    const drawn = async () =>
      (
        await F.query(w.url, "SELECT 1 FROM holds WHERE status = 'held' AND captured > 0 AND key_id LIKE $1", [
          `%:${a.child.pid}:%`
        ]).catch(() => [])
      ).length > 0
    expect(await waitFor(drawn, 120_000), a.output()).toBe(true)
    a.child.kill("SIGSTOP")
    try {
      const b = F.spawnRunner(["once"], { ...env, REFRESH_CONCURRENCY: "2" })
      expect(await b.exited, b.output()).toBe(4) // the frozen runner's batch failed
      const summary = F.lastJson(b.stdout())
      expect(summary.total).toBe(16)
      expect(summary.failed).toBeGreaterThan(0)
      expect(summary.refreshed + summary.failed).toBe(16)
      expect(b.output()).toContain("lease expired")
      // its entities that drew before it froze are reported refreshed with their charge (their kept answers), the
      // others failed; its hold closed (the draws captured), its reservation given back
      const failedJobs = await F.query(
        w.url,
        "SELECT id, worker, taken_over_from, attempts, last_error, created_at, ended_at FROM jobs WHERE state = 'failed'"
      )
      expect(failedJobs.length, `${JSON.stringify(failedJobs)}\n${b.output()}`).toBe(1)
      expect(await F.passInvariants(w.url, F.todaysPass())).toMatchObject(F.heldInvariants)
      expect(
        await F.query(
          w.url,
          "SELECT count(*)::int AS n FROM refresh_results WHERE status = 'failed' AND detail LIKE '%lease expired%'"
        )
      ).toEqual([{ n: summary.failed }])
    } finally {
      a.child.kill("SIGCONT")
    }
    // it wakes: its fetch ends, its settle finds the hold closed; nothing changes
    const woke = await Promise.race([a.exited, sleep(20_000).then(() => "running")])
    if (woke === "running") a.child.kill("SIGKILL")
    const points = await F.pointsPerSubject(w.url)
    const [refreshed] = await F.query(
      w.url,
      "SELECT count(*)::int AS n FROM refresh_results WHERE status = 'refreshed'"
    )
    expect([...points.values()].filter((n) => n === 2).length).toBe(refreshed.n)
    expect(await F.passInvariants(w.url, F.todaysPass())).toMatchObject(F.heldInvariants)
    expect(await F.reconciles(w.url)).toBe(true)
  }, 240_000)
})
