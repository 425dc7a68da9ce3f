/**
 * The nightly refresh's figures, on PostgreSQL (TEST_DATABASE_URL, a fresh schema per scenario), with runner processes:
 * r1, entities refreshed per second by one runner over BENCH_REFRESH_ENTITIES (10,000) pinned short_video profiles,
 * synthetic upstream at zero latency; r2 / r1, two runners sharing a pass against one, both with 200 ms upstream
 * latency (BENCH_REFRESH_SLOW_ENTITIES, 2,000; BENCH_REFRESH_PAIRS pairs of passes, 3, and their medians); p1, planning BENCH_REFRESH_PLAN (1,000,000) tracked entities (seconds
 * and the planning runner's peak memory; all pinned, so all due); c1, the claim's p50 with that million pending
 * (BENCH_REFRESH_ONLY=plan runs these two alone). A script, not a test.
 * Run alone with `pnpm bench:refresh`; `pnpm bench` runs it after its own scenarios.
 */
import { spawn } from "node:child_process"
import { randomBytes } from "node:crypto"
import { readFileSync } from "node:fs"
import { loadavg } from "node:os"
import { fileURLToPath } from "node:url"
import { Core } from "@pdr/core"
import { Accounts, Catalogue, Demand, Freshness } from "@pdr/domain"
import { Effect, ManagedRuntime } from "effect"
import pg from "pg"
import { runnerNodeOptions } from "../../server/bench/launch.js"

const dbUrl = process.env["TEST_DATABASE_URL"] ?? "postgres://postgres@127.0.0.1:5432/test"
const entities = Number(process.env["BENCH_REFRESH_ENTITIES"] ?? 10_000)
const slowEntities = Number(process.env["BENCH_REFRESH_SLOW_ENTITIES"] ?? 2_000)
const slowPairs = Math.max(1, Number(process.env["BENCH_REFRESH_PAIRS"] ?? 3))
const planned = Number(process.env["BENCH_REFRESH_PLAN"] ?? 1_000_000)
// the runners' per-platform limit (REFRESH_PLATFORM_CONCURRENCY, across runners); BENCH_REFRESH_PLATFORM_LIMIT=8 runs
// the passes at the runner's default, where the limit, not the runners, sets the pace
const platformLimit = process.env["BENCH_REFRESH_PLATFORM_LIMIT"] ?? "128"
const main = fileURLToPath(new URL("../src/main.ts", import.meta.url))
// BENCH_REFRESH_RUNNER=dist: the runner bundle `pnpm build` writes (apps/runner/dist/main.js, plain node: no
// TypeScript compiled at each start) instead of `pnpm runner`'s sources through tsx
const runnerEntry =
  process.env["BENCH_REFRESH_RUNNER"] === "dist"
    ? [fileURLToPath(new URL("../dist/main.js", import.meta.url))]
    : ["--import", "tsx", "--conditions=@pdr/source", main]
// the V8 options of `pnpm runner` (read from its script), then BENCH_RUNNER_NODE_OPTIONS
const runnerNode = [
  ...runnerNodeOptions(),
  ...(process.env["BENCH_RUNNER_NODE_OPTIONS"] ?? "").split(" ").filter((a) => a.length > 0)
]

const admin = async (text: string) => {
  const c = new pg.Client({ connectionString: dbUrl })
  await c.connect()
  await c.query(text)
  await c.end()
}

/** A fresh schema with `n` pinned entities and a funded refresh account. */
const seed = async (n: number) => {
  const schema = `bench_${randomBytes(5).toString("hex")}`
  await admin(`CREATE SCHEMA ${schema}`)
  const u = new URL(dbUrl)
  u.searchParams.set("options", `-c search_path=${schema}`)
  const url = u.toString()
  const runtime = ManagedRuntime.make(Core.layer({ target: { _tag: "Server", url, maxConnections: 4 } }))
  const op = Catalogue.findOp("short_video", "profiles")!
  const accountId = await runtime.runPromise(
    Effect.gen(function* () {
      const demand = yield* Demand.Demand
      const entries = Array.from({ length: n }, (_, i) => {
        const subject = `bench.${i}`
        const request = { op: "profiles", subjects: [subject] }
        return {
          freshnessKey: Freshness.key(op, subject, Freshness.answerFields(request, undefined)),
          platform: "short_video",
          op: "profiles",
          subject,
          request
        }
      })
      for (let i = 0; i < entries.length; i += 2000) yield* demand.pin(entries.slice(i, i + 2000))
      const account = yield* (yield* Accounts.Accounts).create({ name: "refresh", credits: n * 10 })
      return account.id
    })
  )
  await runtime.dispose()
  return { schema, url, accountId }
}

/** CPU seconds (user and system) a process has used so far, or NaN once it is gone. */
const cpuSeconds = (pid: number) => {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ")
    // utime and stime are fields 14 and 15 of stat (11 and 12 after the command), in clock ticks of 1/100 s
    return (Number(fields[11]) + Number(fields[12])) / 100
  } catch {
    return Number.NaN
  }
}

/**
 * BENCH_REFRESH_DB_OPTIONS: settings for the runners' sessions only, e.g. `-c log_min_duration_statement=0` to count
 * their statements in PostgreSQL's log (no other session logs).
 */
const runnerUrl = (url: string) => {
  const extra = process.env["BENCH_REFRESH_DB_OPTIONS"]
  if (extra === undefined || extra === "") return url
  const u = new URL(url)
  u.searchParams.set("options", `${u.searchParams.get("options") ?? ""} ${extra}`.trim())
  return u.toString()
}

const runner = (url: string, accountId: string, n: number, latencyMs = 0, extra: Record<string, string> = {}) =>
  new Promise<{
    code: number | null
    summary: { seconds: number; refreshed: number; total: number }
    cpu: number
    exitedAt: number
  }>((resolve) => {
    let out = ""
    let cpu = 0
    const child = spawn(process.execPath, [...runnerNode, ...runnerEntry, "once"], {
      env: {
        ...process.env,
        DATABASE_URL: runnerUrl(url),
        DATABASE_POOL: "10",
        REFRESH_ACCOUNT_ID: accountId,
        REFRESH_BUDGET: String(n * 10),
        REFRESH_CONCURRENCY: "16",
        // the per-platform limit holds across runners: high enough here for two runners to add up (a runner makes
        // up to 16 jobs x 4 calls at once)
        REFRESH_PLATFORM_CONCURRENCY: platformLimit,
        SYNTHETIC_LATENCY_MS: String(latencyMs),
        ...extra
      },
      stdio: ["ignore", "pipe", "inherit"]
    })
    child.stdout.on("data", (d) => {
      out += d
    })
    // the runner's CPU time, read until it exits (the last 50 ms of it are not seen)
    const sampling = setInterval(() => {
      const c = cpuSeconds(child.pid!)
      if (!Number.isNaN(c)) cpu = c
    }, 50)
    child.once("exit", (code) => {
      clearInterval(sampling)
      const last = out
        .trim()
        .split("\n")
        .filter((l) => l.startsWith('{"pass"'))
        .at(-1)
      resolve({
        code,
        summary: last ? JSON.parse(last) : { seconds: Number.NaN, refreshed: 0, total: 0 },
        cpu,
        exitedAt: Date.now()
      })
    })
  })

const query = async (url: string, text: string, values: ReadonlyArray<unknown> = []) => {
  const c = new pg.Client({ connectionString: url })
  await c.connect()
  try {
    return (await c.query(text, values as Array<unknown>)).rows
  } finally {
    await c.end()
  }
}

/**
 * BENCH_REFRESH_PHASES=1: where a pass's time went, in seconds from the runners' spawn (the database's clock and this
 * process's are the machine's): the pass row (start-up done), the first and last planned job, the first and last
 * result written, the pass's end, and each runner's exit.
 */
const phases = async (url: string, spawnedAt: number, exits: ReadonlyArray<number>) => {
  const [r] = await query(
    url,
    `SELECT extract(epoch FROM p.planned_at) * 1000 AS pass, extract(epoch FROM p.ended_at) * 1000 AS ended,
       (SELECT extract(epoch FROM min(created_at)) * 1000 FROM jobs) AS first_job,
       (SELECT extract(epoch FROM max(created_at)) * 1000 FROM jobs) AS last_job,
       (SELECT extract(epoch FROM min(at)) * 1000 FROM refresh_results) AS first_result,
       (SELECT extract(epoch FROM max(at)) * 1000 FROM refresh_results) AS last_result,
       (SELECT extract(epoch FROM percentile_disc(0.1) WITHIN GROUP (ORDER BY at)) * 1000 FROM refresh_results) AS p10,
       (SELECT extract(epoch FROM percentile_disc(0.9) WITHIN GROUP (ORDER BY at)) * 1000 FROM refresh_results) AS p90,
       (SELECT count(*) FROM refresh_results) AS n,
       (SELECT array_agg(extract(epoch FROM x) * 1000) FROM unnest((SELECT percentile_disc(ARRAY[0.1, 0.2, 0.3, 0.4,
         0.5, 0.6, 0.7, 0.8, 0.9, 1.0]) WITHIN GROUP (ORDER BY at) FROM refresh_results)) AS x) AS deciles
     FROM refresh_passes p`
  )
  const s = (ms: unknown) => ((Number(ms) - spawnedAt) / 1000).toFixed(2)
  // each runner's share: its results, its first and its last (a runner that starts late or ends early shows here)
  const perRunner = await query(
    url,
    `SELECT runner, count(*) AS n, extract(epoch FROM min(at)) * 1000 AS first, extract(epoch FROM max(at)) * 1000 AS last
     FROM refresh_results GROUP BY runner ORDER BY min(at)`
  )
  const runners = perRunner.map((x) => `${x.n} results ${s(x.first)}-${s(x.last)}`).join(" / ")
  // the steady rate: the middle 80% of the results over the time they took; what the pass took beyond n at that rate
  // is its fixed time (start-up to the first results, the tail, the end's detection)
  const steady = (0.8 * Number(r.n)) / ((Number(r.p90) - Number(r.p10)) / 1000)
  const pass = (Number(r.ended) - Number(r.pass)) / 1000
  return `  phases (s from spawn): pass row ${s(r.pass)}, jobs planned ${s(r.first_job)}-${s(r.last_job)}, results ${s(r.first_result)}-${s(r.last_result)}, pass ended ${s(r.ended)}, exits ${exits.map(s).join(" / ")}; steady ${steady.toFixed(0)}/s, pass row to end ${pass.toFixed(2)} s of which beyond the steady rate ${(pass - Number(r.n) / steady).toFixed(2)} s; each tenth of the results by ${(r.deciles as Array<number>).map(s).join(" ")}; per runner: ${runners}`
}
const showPhases = process.env["BENCH_REFRESH_PHASES"] === "1"

/**
 * The pass's time as the database recorded it, in seconds: from its row (planning starts) to its end. The runners'
 * summaries give theirs to a tenth of a second (about 2% of a two-runner pass of 2,000 entities), each from its own
 * start; the rates are computed from this one.
 */
const passSeconds = async (url: string) => {
  const [r] = await query(url, "SELECT extract(epoch FROM ended_at - planned_at)::float8 AS s FROM refresh_passes")
  return Number(r?.s)
}

/** Peak resident memory of a process, in MB (VmHWM). */
const peakMb = (pid: number) => {
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8")
    return Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1] ?? 0) / 1024
  } catch {
    return Number.NaN
  }
}

/** p1 and c1: a million tracked entities planned by a runner that works nothing, then the claim's p50. */
const planning = async () => {
  const world = await seed(0)
  // the tracked rows in one statement (their keys need only be unique: planning reads them, no call is made)
  await query(
    world.url,
    `INSERT INTO tracked (freshness_key, platform, op, subject, request, demanded_at, pinned)
     SELECT 'short_video/profiles/plan.' || i || '/{}', 'short_video', 'profiles', 'plan.' || i,
       jsonb_build_object('op', 'profiles', 'subjects', jsonb_build_array('plan.' || i)), now() - (i || ' seconds')::interval,
       true
     FROM generate_series(1, ${planned}) AS i`
  )
  await query(world.url, "ANALYZE tracked")
  const child = spawn(process.execPath, [...runnerNode, ...runnerEntry, "once"], {
    env: {
      ...process.env,
      DATABASE_URL: world.url,
      DATABASE_POOL: "4",
      REFRESH_ACCOUNT_ID: world.accountId,
      // no worker: the runner only plans
      REFRESH_CONCURRENCY: "0"
    },
    stdio: ["ignore", "ignore", "pipe"]
  })
  let err = ""
  child.stderr.on("data", (d) => {
    err += d
  })
  let seconds = Number.NaN
  let peak = 0
  for (let i = 0; i < 6000; i++) {
    await new Promise((r) => setTimeout(r, 100))
    peak = Math.max(peak, peakMb(child.pid!))
    const m = /"refresh pass planned",\{[^}]*"seconds":([0-9.]+)/.exec(err)
    if (m !== null) {
      seconds = Number(m[1])
      break
    }
    if (child.exitCode !== null) break
  }
  peak = Math.max(peak, peakMb(child.pid!))
  child.kill("SIGKILL")
  const [jobs] = await query(world.url, "SELECT count(*)::int AS n FROM jobs WHERE state = 'pending'")
  // c1: claims of 16 on the million pending, each completed (as a worker does), in every platform's lane as a runner
  // claims (the pending jobs are in one of them)
  const c = new pg.Client({ connectionString: world.url })
  await c.connect()
  const times: Array<number> = []
  for (let i = 0; i < 200; i++) {
    const t = process.hrtime.bigint()
    const rows = (
      await c.query("SELECT id FROM pdr_claim_jobs('refresh', 'bench', 16, 60000, $1::text[], 64)", [
        Catalogue.platforms.map((p) => p.id)
      ])
    ).rows
    times.push(Number(process.hrtime.bigint() - t) / 1e6)
    await c.query("UPDATE jobs SET state = 'done', ended_at = now() WHERE id = ANY($1::bigint[])", [
      rows.map((r) => r.id)
    ])
  }
  await c.end()
  await admin(`DROP SCHEMA ${world.schema} CASCADE`)
  times.sort((a, b) => a - b)
  return { seconds, peak, jobs: jobs.n as number, p50: times[100]!, p90: times[180]! }
}

/** Runs the scenarios; returns the lines to print. */
export const run = async (): Promise<ReadonlyArray<string>> => {
  const lines: Array<string> = []
  // BENCH_REFRESH_ONLY=plan runs p1 and c1 alone
  if (process.env["BENCH_REFRESH_ONLY"] === "plan") {
    const p = await planning()
    return [
      `p1 planning ${planned} tracked entities: ${p.seconds} s, runner peak memory ${p.peak.toFixed(0)} MB (${p.jobs} jobs pending)`,
      `c1 claim of 16 with ${p.jobs} pending: p50 ${p.p50.toFixed(2)} ms, p90 ${p.p90.toFixed(2)} ms`
    ]
  }
  const one = await seed(entities)
  const t1 = Date.now()
  const a = await runner(one.url, one.accountId, entities)
  const wall1 = (Date.now() - t1) / 1000
  const phases1 = showPhases ? [await phases(one.url, t1, [a.exitedAt])] : []
  const pass1 = await passSeconds(one.url)
  await admin(`DROP SCHEMA ${one.schema} CASCADE`)
  const rate1 = a.summary.refreshed / pass1
  lines.push(
    `r1 refresh, one runner, ${entities} entities, 0 ms upstream: ${rate1.toFixed(0)} entities/s (pass ${pass1.toFixed(2)} s, process ${wall1.toFixed(1)} s, runner CPU ${a.cpu.toFixed(1)} s: ${((a.cpu * 1000) / entities).toFixed(2)} ms/entity, load ${loadavg()[0]!.toFixed(1)})${a.code === 0 && a.summary.refreshed === entities ? "" : "  (FAILED: see stderr)"}`
  )
  lines.push(...phases1)
  // BENCH_REFRESH_ONLY=r1 runs r1 alone
  if (process.env["BENCH_REFRESH_ONLY"] === "r1") return lines
  // with 200 ms upstream latency: one runner, then two sharing the pass, BENCH_REFRESH_PAIRS times (default 3: on a
  // two-core machine one pair's ratio ranged 1.58 to 1.73 from run to run with the same code); the lines give the
  // medians
  const pairs: Array<{ r1: number; r2: number; ratio: number; ok: boolean; lines: Array<string> }> = []
  for (let i = 0; i < slowPairs; i++) {
    const slow1 = await seed(slowEntities)
    const ts1 = Date.now()
    const s1 = await runner(slow1.url, slow1.accountId, slowEntities, 200)
    const phasesS1 = showPhases ? [await phases(slow1.url, ts1, [s1.exitedAt])] : []
    const passS1 = await passSeconds(slow1.url)
    await admin(`DROP SCHEMA ${slow1.schema} CASCADE`)
    const slow2 = await seed(slowEntities)
    const ts2 = Date.now()
    const [b, c] = await Promise.all([
      runner(slow2.url, slow2.accountId, slowEntities, 200),
      runner(slow2.url, slow2.accountId, slowEntities, 200)
    ])
    const phasesS2 = showPhases ? [await phases(slow2.url, ts2, [b.exitedAt, c.exitedAt])] : []
    const passS2 = await passSeconds(slow2.url)
    await admin(`DROP SCHEMA ${slow2.schema} CASCADE`)
    const r1 = s1.summary.refreshed / passS1
    const r2 = b.summary.refreshed / passS2
    pairs.push({
      r1,
      r2,
      ratio: r2 / r1,
      ok: s1.code === 0 && b.code === 0 && c.code === 0 && b.summary.refreshed === slowEntities,
      lines: [
        `  pair ${i + 1}: r1' ${r1.toFixed(0)}/s (pass ${passS1.toFixed(2)} s, runner CPU ${((s1.cpu * 1000) / slowEntities).toFixed(2)} ms/entity), r2 ${r2.toFixed(0)}/s (pass ${passS2.toFixed(2)} s, runners' CPU ${(((b.cpu + c.cpu) * 1000) / slowEntities).toFixed(2)} ms/entity), r2 / r1' ${(r2 / r1).toFixed(2)}`,
        ...phasesS1,
        ...phasesS2
      ]
    })
  }
  const median = (xs: ReadonlyArray<number>) => {
    const s = [...xs].sort((a, b) => a - b)
    return s.length % 2 === 1 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2
  }
  const ratios = pairs.map((p) => p.ratio)
  lines.push(
    `r1' refresh, one runner, ${slowEntities} entities, 200 ms upstream: ${median(pairs.map((p) => p.r1)).toFixed(0)} entities/s (median of ${pairs.length})`,
    `r2 refresh, two runners, ${slowEntities} entities, 200 ms upstream: ${median(pairs.map((p) => p.r2)).toFixed(0)} entities/s (median of ${pairs.length})`,
    ...pairs.flatMap((p) => p.lines),
    `r2 / r1' = ${median(ratios).toFixed(2)} (median of ${pairs.length} pairs, ${Math.min(...ratios).toFixed(2)} to ${Math.max(...ratios).toFixed(2)})${pairs.every((p) => p.ok) ? "" : "  (A RUNNER FAILED OR REFRESHED TOO FEW: see stderr)"}`
  )
  if (planned > 0) {
    const p = await planning()
    lines.push(
      `p1 planning ${planned} tracked entities: ${p.seconds} s, runner peak memory ${p.peak.toFixed(0)} MB (${p.jobs} jobs pending)`,
      `c1 claim of 16 with ${p.jobs} pending: p50 ${p.p50.toFixed(2)} ms, p90 ${p.p90.toFixed(2)} ms`
    )
  }
  return lines
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  for (const line of await run()) console.log(line)
}
