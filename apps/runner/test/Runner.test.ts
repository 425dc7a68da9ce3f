// The nightly refresh against the real PostgreSQL server, with runner processes: two runners share one night's work
// and refresh every tracked entity exactly once; a runner killed mid-pass and restarted completes it with no duplicate
// point and no double charge, and the ledger reconciles; the budget stops the pass; a dry run spends nothing and
// quotes what the real pass costs; an unknown refresh account is refused clearly.
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

const results = async (url: string) =>
  Object.fromEntries(
    (await F.query(url, "SELECT status, count(*)::int AS n FROM refresh_results GROUP BY status")).map((r) => [
      r.status,
      r.n
    ])
  )

describe.skipIf(!server)("the refresh runner on PostgreSQL", () => {
  it("two runners on one night's work refresh every tracked entity exactly once", async () => {
    const w = await open(40)
    const env = w.env({ SYNTHETIC_LATENCY_MS: "40", REFRESH_CONCURRENCY: "2" })
    const [a, b] = [F.spawnRunner(["once"], env), F.spawnRunner(["once"], env)]
    expect([await a.exited, await b.exited]).toEqual([0, 0])
    const points = await F.pointsPerSubject(w.url)
    expect(points.size).toBe(40)
    for (const s of w.subjects) expect(points.get(s), s).toBe(2) // the customer's point and one refresh
    // issue 19: one capture entry per batch hold (40 entities planned as 20 batches of 2)
    expect(await F.captures(w.url, F.todaysPass())).toEqual({ n: 20, credits: 80 })
    expect(await F.budgetSpent(w.url, F.todaysPass())).toEqual({ reserved: 80, charged: 80 })
    expect(await results(w.url)).toEqual({ refreshed: 40 })
    // both processes took part (each took tasks from the queue), and exactly one planned the pass
    const runners = await F.query(w.url, "SELECT DISTINCT runner FROM refresh_results")
    expect(runners.length).toBe(2)
    const [summaryA, summaryB] = [F.lastJson(a.stdout()), F.lastJson(b.stdout())]
    expect([summaryA.total, summaryB.total]).toEqual([40, 40])
    const planned = [a, b].filter((r) => r.output().includes("refresh pass planned")).length
    expect(planned).toBe(1)
    expect(await F.reconciles(w.url)).toBe(true)
  }, 120_000)

  it("a runner killed mid-pass and restarted completes it with no duplicate point and no double charge", async () => {
    const w = await open(30)
    const env = w.env({
      SYNTHETIC_LATENCY_MS: "150",
      REFRESH_CONCURRENCY: "3",
      REFRESH_LEASE_MS: "2000",
      HOLD_TTL_MS: "1500"
    })
    const first = F.spawnRunner(["once"], env)
    for (let i = 0; i < 600; i++) {
      const [r] = await F.query(w.url, "SELECT count(*)::int AS n FROM refresh_results").catch(() => [{ n: 0 }])
      if (r.n >= 5) break
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
    first.child.kill("SIGKILL")
    await first.exited
    const [before] = await F.query(w.url, "SELECT count(*)::int AS n FROM refresh_results")
    expect(before.n).toBeLessThan(30)
    const second = F.spawnRunner(["once"], env)
    expect(await second.exited, second.output()).toBe(0)
    const points = await F.pointsPerSubject(w.url)
    for (const s of w.subjects) expect(points.get(s), s).toBe(2)
    const captured = await F.captures(w.url, F.todaysPass())
    expect(captured).toEqual({ n: 30, credits: 60 })
    const summary = F.lastJson(second.stdout())
    expect([summary.total, summary.failed, summary.creditsSpent]).toEqual([30, 0, 60])
    // the killed runner's holds expire (HOLD_TTL_MS) and the next runner start releases them
    await new Promise((resolve) => setTimeout(resolve, 1600))
    const sweeper = F.spawnRunner(["once"], env)
    expect(await sweeper.exited).toBe(0)
    expect(await F.reconciles(w.url)).toBe(true)
    expect(await F.captures(w.url, F.todaysPass())).toEqual(captured)
  }, 120_000)

  it("the budget stops the pass cleanly when spent", async () => {
    const w = await open(20)
    // this one runs from the sources under tsx, as `pnpm runner` does (the others run the bundle)
    const r = F.spawnRunner(["once"], w.env({ REFRESH_BUDGET: "11", REFRESH_CONCURRENCY: "2" }), { source: true })
    expect(await r.exited, r.output()).toBe(3) // budget reached with entities left
    const summary = F.lastJson(r.stdout())
    // 2 credits each: 5 fit in 11, the rest are over budget; nothing above the budget was charged
    expect([summary.refreshed, summary.overBudget, summary.creditsSpent]).toEqual([5, 15, 10])
    expect(await F.captures(w.url, F.todaysPass())).toEqual({ n: 5, credits: 10 })
    expect(await F.reconciles(w.url)).toBe(true)
  }, 120_000)

  it("--dry-run spends nothing and quotes what the real pass then costs", async () => {
    const w = await open(20)
    const balance = async () =>
      (await F.query(w.url, "SELECT balance::int AS b FROM accounts WHERE id = $1", [w.refreshAccount]))[0].b
    const before = await balance()
    const pointsBefore = await F.pointsPerSubject(w.url)
    const dry = F.spawnRunner(["once", "--dry-run"], w.env())
    expect(await dry.exited, dry.output()).toBe(0)
    const quoted = F.lastJson(dry.stdout())
    expect([quoted.dryRun, quoted.entities, quoted.credits]).toEqual([true, 20, 40])
    expect(dry.stdout()).toContain("refresh  short_video profiles creator.0  2 credits")
    expect(await balance()).toBe(before)
    expect(await F.pointsPerSubject(w.url)).toEqual(pointsBefore)
    expect(await F.query(w.url, "SELECT * FROM refresh_passes")).toEqual([])
    const real = F.spawnRunner(["once"], w.env())
    expect(await real.exited).toBe(0)
    expect(F.lastJson(real.stdout()).creditsSpent).toBe(quoted.credits)
    expect(await balance()).toBe(before - quoted.credits)
  }, 120_000)

  it("--platform limits the pass to one platform; an unknown refresh account is a clear error and exit 1; an unknown platform exit 2, before anything else", async () => {
    const w = await open(10)
    const other = F.spawnRunner(["once", "--platform", "maps"], w.env())
    expect(await other.exited).toBe(0)
    expect(F.lastJson(other.stdout()).total).toBe(0)
    const unknown = F.spawnRunner(["once"], w.env({ REFRESH_ACCOUNT_ID: "acct_nobody" }))
    expect(await unknown.exited).toBe(1)
    expect(unknown.output()).toContain("REFRESH_ACCOUNT_ID acct_nobody names no account")
    const bad = F.spawnRunner(["twice"], w.env())
    expect(await bad.exited).toBe(2)
    const nosuch = F.spawnRunner(["once", "--platform", "nosuch"], w.env())
    expect(await nosuch.exited).toBe(2)
    expect(nosuch.output()).toContain("--platform nosuch is no platform")
    expect(await F.query(w.url, "SELECT id FROM refresh_passes WHERE id LIKE '%nosuch%'")).toEqual([])
    // a bad argument is said first, whatever else is wrong (no refresh account, no database)
    const first = F.spawnRunner(
      ["once", "--platform", "nosuch"],
      w.env({ REFRESH_ACCOUNT_ID: "acct_nobody", DATABASE_URL: "postgres://postgres@127.0.0.1:1/none" })
    )
    expect(await first.exited).toBe(2)
    expect(first.output()).toContain("--platform nosuch is no platform")
    // --platform with no value: said so (not "unknown argument"), with the platforms, exit 2
    const bare = F.spawnRunner(["once", "--platform"], w.env())
    expect(await bare.exited).toBe(2)
    expect(bare.output()).toContain("runner: --platform needs a platform; the platforms are quick_commerce_a, ")
    // the help and an argument error read as plain text in a pipe or a log file: no terminal escape codes
    const help = F.spawnRunner(["--help"], w.env())
    expect(await help.exited).toBe(0)
    expect(help.stdout()).toContain("run one pass now")
    expect(help.output()).not.toContain(String.fromCharCode(27))
    expect(await bad.exited).toBe(2)
    expect(bad.output().length).toBeGreaterThan(0)
    expect(bad.output()).not.toContain(String.fromCharCode(27))
  }, 120_000)

  it("on a terminal, log lines mid-pass never break the live line: each shows on a line of its own, the live line drawn again after it", async () => {
    const w = await open(40)
    // the planner's log line comes while the live line shows "(planning)"; most fetches fail (the adapter's own
    // retries too), so failure lines follow the summary
    const r = F.spawnRunnerOnTerminal(
      ["once"],
      w.env({
        SYNTHETIC_LATENCY_MS: "40",
        SYNTHETIC_FAILURE_RATE: "0.8",
        REFRESH_MAX_ATTEMPTS: "2",
        REFRESH_CONCURRENCY: "2",
        REFRESH_BATCH: "4"
      })
    )
    const code = await r.exited
    const raw = r.output()
    expect([0, 4], raw).toContain(code)
    const live = /^\d{4}-\d{2}-\d{2}: \d+\/\d+\+? (\(planning\) )?done, /
    const lines = F.screenLines(raw).filter((l) => l.trim() !== "")
    const logs = lines.filter((l) => l.startsWith("{"))
    expect(
      logs.some((l) => l.includes('"refresh pass planned"')),
      raw
    ).toBe(true)
    // what the terminal shows: JSON lines (logs, the summary) whole, each parsed; the live line alone on its line;
    // failure lines after the summary; nothing else (a log line written after a partial live line would show both)
    for (const l of lines) {
      if (l.startsWith("{")) expect(() => JSON.parse(l), l).not.toThrow()
      else if (!l.startsWith("failed: ")) expect(l, raw).toMatch(live)
      expect(l.indexOf('{"'), l).not.toBeGreaterThan(0)
    }
    expect(
      lines.some((l) => live.test(l)),
      JSON.stringify(lines)
    ).toBe(true)
    // the live line is drawn again after a log line: some log line is followed by a redraw in the raw output
    expect(raw).toMatch(/"refresh pass planned"[^\n]*\n\r?\d{4}-\d{2}-\d{2}: /)
    expect(F.lastJson(lines.filter((l) => l.startsWith("{")).join("\n")).pass).toBe(F.todaysPass())
  }, 120_000)

  it("scheduled: a runner started after the day's pass was due, with that pass never started, runs it at once; started again, it does not; a pass due on another day is not run", async () => {
    const now = new Date()
    // a daily time 2 s ago, the runner up within the same UTC day (within a minute of midnight the case cannot be set up)
    const due = new Date(now.getTime() - 2_000)
    const day = (t: number) => new Date(t).toISOString().slice(0, 10)
    if (day(due.getTime()) !== day(now.getTime() + 60_000)) return
    const cron = `${due.getUTCSeconds()} ${due.getUTCMinutes()} ${due.getUTCHours()} * * *`
    const w = await open(12)
    const env = w.env({ REFRESH_CRON: cron, REFRESH_CONCURRENCY: "2" })
    const ended = () =>
      F.query(w.url, "SELECT count(*)::int AS n FROM refresh_passes WHERE ended_at IS NOT NULL").then(
        (r) => r[0].n === 1
      )
    const a = F.spawnRunner([], env)
    try {
      expect(await F.waitFor(ended, 60_000), a.output()).toBe(true)
      await F.waitFor(async () => a.output().includes("refresh pass ended"), 5_000)
    } finally {
      a.child.kill("SIGTERM")
      await a.exited
    }
    const missed = a
      .output()
      .split("\n")
      .filter((l) => l.startsWith("{"))
      .map((l) => JSON.parse(l))
      .find((l) => l.message?.[0] === "refresh pass missed at its time: running it now")
    expect(missed?.message[1], a.output()).toEqual({
      pass: F.todaysPass(),
      due: `${due.toISOString().slice(0, 19)}.000Z`
    })
    expect(a.output()).toContain("refresh pass ended")
    const points = await F.pointsPerSubject(w.url)
    for (const s of w.subjects) expect(points.get(s), s).toBe(2)
    expect(await F.passInvariants(w.url, F.todaysPass())).toMatchObject(F.heldInvariants)
    // started again the same day: the day's pass ran; it waits for the next
    const b = F.spawnRunner([], env)
    try {
      expect(await F.waitFor(async () => b.output().includes("next refresh pass"), 30_000), b.output()).toBe(true)
    } finally {
      b.child.kill("SIGTERM")
      await b.exited
    }
    expect(b.output()).not.toContain("refresh pass missed")
    expect(await F.captures(w.url, F.todaysPass())).toEqual({ n: 12, credits: 24 })

    // a daily time later today: the last one was due yesterday (its own day), so nothing runs before it
    const later = new Date(now.getTime() + 3_600_000)
    if (later.toISOString().slice(0, 10) !== F.todaysPass()) return
    const v = await open(4)
    const c = F.spawnRunner(
      [],
      v.env({ REFRESH_CRON: `0 ${later.getUTCMinutes()} ${later.getUTCHours()} * * *`, REFRESH_CONCURRENCY: "2" })
    )
    try {
      expect(await F.waitFor(async () => c.output().includes("next refresh pass"), 30_000), c.output()).toBe(true)
      await F.sleep(500)
    } finally {
      c.child.kill("SIGTERM")
      await c.exited
    }
    expect(c.output()).not.toContain("refresh pass missed")
    expect(await F.query(v.url, "SELECT id FROM refresh_passes")).toEqual([])
  }, 120_000)
})
