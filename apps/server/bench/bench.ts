/**
 * `pnpm bench`: throughput and latency on loopback, bounded in time (about two minutes), printed as figures. Each
 * scenario runs 2 s of warm-up at the same load (discarded, BENCH_WARM_SECONDS) and then 6 s measured.
 *   a0  raw node:http answering a small JSON POST              (this machine's ceiling)
 *   a1  bare Effect HttpApi answering a small JSON POST        (the framework's ceiling)
 *   b   a 10-subject op served entirely from the store
 *   c   a paid 1-subject call, spread over 1,000 accounts (holds and settles group-committed, issue 22)
 *   c1  the same paid call on one account
 *   c-/c1- the same on a second server over the same schema with GROUP_COMMIT_MAX=1 (each call's hold and settle
 *       alone, as before group commit), run just before c and c1: the paired before/after of group commit
 *   c2  the paid call through a loopback balancer over two server instances on the same schema (issue 22)
 *   d   history for 10 subjects over 730 days, with 1,000,000 points in the table (latency: one connection;
 *       d10 repeats it with 10 connections); d10m the same call with 10 million points (13,700 subjects x 730 days)
 *   m   the embedded default as `pnpm start` runs it: peak resident memory at start and resident memory idle
 *       (BENCH_ONLY=m runs only this one)
 *   u   paid storefronts calls (a new store each) through the native storefront adapter against the loopback fixture
 *       at zero latency, as a ratio to the same calls on the synthetic upstream (u0), in the same run
 *   p   paid web_search playReviews calls (a new app each) through the provider adapter and its shipped actor mapping
 *       against the loopback provider (BENCH_ONLY=p), as a ratio to the same calls on the synthetic upstream (p0)
 *       (BENCH_ONLY=u runs only this one)
 *   e   the typed clients: a 10-subject op served from the store, called in this process at 20 concurrent calls through
 *       the Effect client (PdrClient.call, the answer decoded with the op's row Schemas) and the Promise client, as
 *       ratios to plain fetch + JSON.parse of the same calls (e0), in the same run (BENCH_ONLY=e runs only this one)
 *   o   observability (issue 25): b and c with metrics off (METRICS=false, o0: the baseline), with metrics on and
 *       the tracer off (the default, o1), and with traces exported to a loopback OTLP sink (o2), each as a ratio to
 *       o0 in the same run (target: o1 within 3%); then c during a burst of scrapes of /metrics (BENCH_ONLY=o)
 *   l   a paid call made asynchronously (Prefer: respond-async, collected at once) as a ratio to the same call made
 *       synchronously (l0), in the same run (BENCH_ONLY=l runs only this one)
 *   r1/r2 the nightly refresh: entities refreshed per second by one runner and by two, the planning of a million
 *       entities and the claim (apps/runner/bench/refresh.ts; the runner bundle this run built, or its sources through
 *       tsx as `pnpm runner` runs them with BENCH_REFRESH_RUNNER=source)
 * The server runs as its own process on PostgreSQL (TEST_DATABASE_URL, a fresh schema) with the synthetic upstream
 * at zero latency; its peak memory is its VmHWM. The bare server stays up and a1 is measured again just before b and
 * before c: the machine's speed drifts during a run, so each ratio is judged against the a1 next to it (both ratios
 * are printed; BENCH_ONLY=main runs a0-d10m only, BENCH_ONLY=c a1, c and c1 in alternating rounds, BENCH_ONLY=d d alone). Targets (issue 22): b >= 0.60 x a1, c >= 0.25 x a1,
 * c1 >= 0.20 x a1, d p50 <= 15 ms, d10m p50 <= 10 ms, server peak memory <= 250 MB, embedded <= 300 MB idle and
 * <= 450 MB at start, no errors but the expected 402 and 429. The last line printed is one JSON object of the
 * figures a script reads: {"b","c","c1","d_p50_ms","d10m_p50_ms","embedded_idle_mb",...} (ratios to a1 measured
 * next to them), with u, e, ep and the refresh's figures when those parts run (r1_per_s, r1p_per_s, r2_per_s,
 * r2_over_r1p, p1_s, p1_peak_mb, claim_p50_ms).
 */

import { type ChildProcess, execFileSync, spawn } from "node:child_process"
import { mkdtempSync, readdirSync, readFileSync } from "node:fs"
import { cpus, loadavg, tmpdir, totalmem } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { FetchHttpClient } from "@effect/platform"
import { createClient } from "@pdr/client"
import * as PdrClient from "@pdr/client/effect"
import * as Fixtures from "@pdr/upstream-http/testing"
import autocannon from "autocannon"
import { Effect } from "effect"
import { build } from "esbuild"
import pg from "pg"
import { balancer } from "../test/balancer.js"
import { freePort, spawnServer, track } from "../test/processes.js"
import { benchNodeOptions } from "./launch.js"

const seconds = Number(process.env["BENCH_SECONDS"] ?? 6)
const connections = Number(process.env["BENCH_CONNECTIONS"] ?? 50)
const dbUrl = process.env["TEST_DATABASE_URL"] ?? "postgres://postgres@127.0.0.1:5432/test"
const here = (p: string) => fileURLToPath(new URL(p, import.meta.url))

interface Result {
  readonly name: string
  readonly rps: number
  readonly p50: number
  readonly p99: number
  readonly statuses: Record<string, number>
  readonly errors: number
  readonly timeouts: number
}

const warmSeconds = Number(process.env["BENCH_WARM_SECONDS"] ?? 2)

/** One scenario: a warm-up at the same load (discarded: the JIT is still compiling), then the measured run. */
const load = async (name: string, options: autocannon.Options, onMeasure?: () => void): Promise<Result> => {
  if (warmSeconds > 0) await autocannon({ connections, ...options, duration: warmSeconds })
  onMeasure?.()
  const r = await autocannon({ connections, duration: seconds, ...options })
  const statuses: Record<string, number> = {}
  for (const [code, s] of Object.entries(r.statusCodeStats ?? {})) statuses[code] = (s as { count: number }).count
  return {
    name,
    rps: r.requests.average,
    p50: r.latency.p50,
    p99: r.latency.p99,
    statuses,
    errors: r.errors,
    timeouts: r.timeouts
  }
}

const waitFor = async (url: string, init?: RequestInit) => {
  for (let i = 0; i < 200; i++) {
    try {
      await fetch(url, init)
      return
    } catch {}
    await new Promise((r) => setTimeout(r, 100))
  }
  throw new Error(`${url} never answered`)
}

const stop = (child: ChildProcess) =>
  new Promise<void>((resolve) => {
    // a child that already exited had its "exit" event before this: waiting for another hung the bench for good
    if (child.exitCode !== null || child.signalCode !== null) return resolve()
    child.once("exit", () => resolve())
    child.kill("SIGTERM")
  })

/** A process's CPU time (user + system, ms) from /proc/<pid>/stat (clock ticks of 10 ms). */
const cpuMs = (pid: number) => {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ")
  return (Number(fields[11]) + Number(fields[12])) * 10
}

const peakMb = (pid: number) => {
  const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))
  return m ? Number(m[1]) / 1024 : Number.NaN
}

/** An operator API call on a spawned server. */
const operator = (server: { readonly admin: string; readonly token: string }) => async (path: string, body: unknown) =>
  (await fetch(`${server.admin}${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${server.token}`, "content-type": "application/json" },
    body: JSON.stringify(body)
  }).then((r) => r.json())) as any

/**
 * This tree's bundles, built once per bench run: a build removes dist/chunks before it writes them again, so a build
 * while another server still loads its chunks made that server exit (the observability servers start side by side:
 * "Cannot find module .../dist/chunks/chunk-....js").
 */
let built = false
const buildOnce = () => {
  if (built) return
  execFileSync(process.execPath, [here("../build.mjs")], { stdio: "inherit" })
  built = true
}

/** The bench servers that stopped by themselves (out of memory, say): the run then exits 1. */
const died: Array<string> = []

/** A server bundled and run as `pnpm start` runs it (same heap bound), over a fresh schema of TEST_DATABASE_URL. */
const serverOnFreshSchema = async (prefix: string, env: Record<string, string> = {}) => {
  const admin = new pg.Client({ connectionString: dbUrl })
  await admin.connect()
  const schema = `${prefix}_${Date.now().toString(36)}`
  await admin.query(`CREATE SCHEMA ${schema}`)
  const url = new URL(dbUrl)
  url.searchParams.set("options", `-c search_path=${schema}`)
  // BENCH_SERVER_ENTRY (a bundle's path, relative to apps/server) runs that build instead of building this tree's
  const entry = process.env["BENCH_SERVER_ENTRY"]
  if (entry === undefined) buildOnce()
  const server = await spawnServer(
    { DATABASE_URL: url.toString(), DATABASE_POOL: "20", SYNTHETIC_LATENCY_MS: "0", ...env },
    nodeArgs,
    entry === undefined ? {} : { entry: here(`../${entry}`) }
  )
  const close = async () => {
    // a bench server that stopped by itself before its scenario ended is a defect to see, not to wait on
    if (server.child.exitCode !== null || server.child.signalCode !== null) {
      died.push(prefix)
      console.error(
        `bench server ${prefix} had exited (${server.child.exitCode ?? server.child.signalCode}): ${server
          .output()
          .split("\n")
          .filter((l) => !l.startsWith("{"))
          .join("\n")
          .slice(-6000)}`
      )
    }
    await stop(server.child)
    await admin.query(`DROP SCHEMA ${schema} CASCADE`)
    await admin.end()
  }
  return { server, admin, schema, url: url.toString(), close }
}

/** The node options of a bench server: `pnpm start`'s (its heap bound and collector settings). */
const nodeArgs = benchNodeOptions()

const small = {
  method: "POST" as const,
  headers: { "content-type": "application/json" },
  body: JSON.stringify({ name: "bench", n: 1 })
}

/** d's table: 1,000,000 points (1,370 subjects x 730 days); answers the milliseconds it took. */
const seedHistory = async (admin: pg.Client, schema: string) => {
  const t0 = Date.now()
  await admin.query(`
      INSERT INTO ${schema}.history_values (platform, entity, metric, measured_at, value, source)
      SELECT 'maps', 'ChIJbenchhist' || lpad((g % 1370)::text, 6, '0'), 'rating',
             now() - ((g / 1370) * interval '1 day') - interval '1 hour', 3 + (g % 20) / 10.0, 'synthetic'
      FROM generate_series(0, 999999) AS g`)
  await admin.query(`VACUUM ANALYZE ${schema}.history_values`)
  return Date.now() - t0
}

/** d10m's table: 9,000,000 more points (12,330 subjects x 730 days) added in time order as the nightly refresh writes them (each day, every subject); answers the milliseconds it took. */
const seedTenMillion = async (admin: pg.Client, schema: string) => {
  const t1 = Date.now()
  await admin.query(`
      INSERT INTO ${schema}.history_values (platform, entity, metric, measured_at, value, source)
      SELECT 'maps', 'ChIJbenchhist' || lpad((1370 + g % 12330)::text, 6, '0'), 'rating',
             now() - ((g / 12330) * interval '1 day') - interval '1 hour', 3 + (g % 20) / 10.0, 'synthetic'
      FROM generate_series(0, 12330 * 730 - 1) AS g
      ORDER BY g / 12330 DESC, g % 12330`)
  await admin.query(`VACUUM ANALYZE ${schema}.history_values`)
  return Date.now() - t1
}

/** d's call: 10 of the seeded subjects over 730 days. */
const history = JSON.stringify({
  request: {
    op: "history",
    subjects: Array.from({ length: 10 }, (_, i) => `ChIJbenchhist${String(i).padStart(6, "0")}`),
    metric: "rating",
    days: 730
  }
})

/**
 * `BENCH_ONLY=d`: the history call alone (d: one connection, 1,000,000 points in the table; with BENCH_D_10M=1 d10m's
 * 10 million), BENCH_D_ROUNDS rounds (default 3): each round's p50 and the server's CPU per call, and the median p50.
 */
const historyOnly = async () => {
  const { server, admin, schema, close } = await serverOnFreshSchema("benchd")
  try {
    const op = operator(server)
    const account = await op("/admin/accounts", { name: "bench", credits: 1_000 })
    const key = (await op(`/admin/accounts/${account.accountId}/keys`, { name: "bench" })).key as string
    const seeded = await seedHistory(admin, schema)
    // BENCH_D_10M=1: the 9M more points of d10m too (the rounds are then d10m's)
    const tenMillion = process.env["BENCH_D_10M"] === "1"
    if (tenMillion) console.log(`9M more points seeded in ${await seedTenMillion(admin, schema)} ms`)
    const d = {
      url: `${server.api}/api/v1/platforms/maps`,
      method: "POST" as const,
      headers: { "content-type": "application/json", "x-api-key": key },
      body: history,
      connections: 1
    }
    const probe = (await fetch(d.url, d).then((r) => r.json())) as any
    const points = probe.data.reduce((n: number, row: any) => n + row.points.length, 0)
    console.log(`1M points seeded in ${seeded} ms; the call answers ${points} points`)
    const p50s: Array<number> = []
    const rounds = Number(process.env["BENCH_D_ROUNDS"] ?? 3)
    for (let r = 0; r < rounds; r++) {
      let cpu0 = 0
      const result = await load(tenMillion ? "d10m" : "d", d, () => {
        cpu0 = cpuMs(server.child.pid!)
      })
      const total = result.rps * seconds
      const cpuPerCall = ((cpuMs(server.child.pid!) - cpu0) * 1000) / total
      p50s.push(result.p50)
      console.log(
        `round ${r + 1}: ${tenMillion ? "d10m" : "d"} ${result.rps.toFixed(1)}/s, p50 ${result.p50} ms, p99 ${result.p99} ms, statuses ${JSON.stringify(result.statuses)}, server CPU ${(cpuPerCall / 1000).toFixed(2)} ms/call, load average ${loadavg()[0]!.toFixed(1)}`
      )
    }
    const [line, field, target] = tenMillion ? ["d10m", "d10m_p50_ms", 10] : ["d", "d_p50_ms", 15]
    summary[field] = [...p50s].sort((x, y) => x - y)[Math.floor(p50s.length / 2)]!
    console.log(`${line} p50 = ${summary[field]} ms (median of ${rounds} rounds; target <= ${target} ms)`)
  } finally {
    await close()
  }
}

/** The bare Effect HttpApi server (a1), bundled like the real server so both run the same way under plain node. */
const startBare = async () => {
  const barePort = await freePort()
  await build({
    entryPoints: [here("./bare.ts")],
    outfile: here("../dist/bare.js"),
    bundle: true,
    platform: "node",
    format: "esm",
    banner: {
      js: "import { createRequire as __pdrRequire } from 'node:module'; const require = __pdrRequire(import.meta.url);"
    },
    logLevel: "warning"
  })
  const bare = track(
    spawn(process.execPath, [here("../dist/bare.js")], {
      env: { ...process.env, PORT: String(barePort) },
      stdio: "inherit"
    })
  )
  await waitFor(`http://127.0.0.1:${barePort}/echo`, small)
  const bareLoad = (name: string) => load(name, { url: `http://127.0.0.1:${barePort}/echo`, ...small })
  return { bare, bareLoad }
}

/**
 * `BENCH_ONLY=b`: the stored 10-subject call (b) against the bare server (a1) in alternating rounds
 * (BENCH_B_ROUNDS, default 3): each round's b / a1 and their median.
 */
const storedOnly = async () => {
  const { bare, bareLoad } = await startBare()
  const { server, close } = await serverOnFreshSchema("benchb")
  try {
    const op = operator(server)
    const account = await op("/admin/accounts", { name: "bench", credits: 1_000_000 })
    const key = (await op(`/admin/accounts/${account.accountId}/keys`, { name: "bench" })).key as string
    const stored = {
      url: `${server.api}/api/v1/platforms/maps`,
      method: "POST" as const,
      headers: { "content-type": "application/json", "x-api-key": key },
      body: JSON.stringify({
        request: { op: "places", subjects: Array.from({ length: 10 }, (_, i) => `ChIJbenchstored${i}`) }
      })
    }
    await fetch(stored.url, stored)
    const ratios: Array<number> = []
    const rounds = Number(process.env["BENCH_B_ROUNDS"] ?? 3)
    for (let r = 0; r < rounds; r++) {
      // the order alternates, so neither line always runs on the warmer machine
      const first = r % 2 === 0 ? "a1" : "b"
      const a1 = first === "a1" ? await bareLoad("a1") : undefined
      // the b server's CPU time over the measured seconds, per call (what bounds b once the server is saturated)
      let cpuBefore = 0
      const b = await load("b  10-subject op served from the store", stored, () => {
        cpuBefore = cpuMs(server.child.pid!)
      })
      const cpuPerCall = ((cpuMs(server.child.pid!) - cpuBefore) * 1000) / (b.rps * seconds)
      const a1After = a1 ?? (await bareLoad("a1"))
      ratios.push(b.rps / a1After.rps)
      console.log(
        `round ${r + 1}: a1 ${a1After.rps.toFixed(0)}/s, b ${b.rps.toFixed(0)}/s (p50 ${b.p50} ms, statuses ${JSON.stringify(b.statuses)}, server CPU ${cpuPerCall.toFixed(0)} us/call), b = ${(b.rps / a1After.rps).toFixed(3)} x a1, load average ${loadavg()[0]!.toFixed(1)}`
      )
    }
    const sorted = [...ratios].sort((x, y) => x - y)
    summary["b"] = Number(sorted[Math.floor(sorted.length / 2)]!.toFixed(3))
    console.log(`b = ${summary["b"]} x a1 (median of ${rounds} rounds; target 0.60)`)
  } finally {
    await close()
    await stop(bare)
  }
}

/** The keys of 1,000 accounts of a million credits each (line c), made 50 at a time through the operator API. */
const thousandKeys = async (op: ReturnType<typeof operator>) => {
  const keys: Array<string> = []
  for (let i = 0; i < 1000; i += 50) {
    const batch = await Promise.all(
      Array.from({ length: 50 }, async (_, j) => {
        const a = await op("/admin/accounts", { name: `bench ${i + j}`, credits: 1_000_000 })
        return (await op(`/admin/accounts/${a.accountId}/keys`, { name: "bench" })).key as string
      })
    )
    keys.push(...batch)
  }
  return keys
}

/**
 * `BENCH_ONLY=c`: the paid 1-subject call over 1,000 accounts (c) and on one account (c1) against the bare server (a1)
 * in alternating rounds (BENCH_C_ROUNDS, default 3): each round's c / a1 and c1 / a1 and their medians.
 */
const paidOnly = async () => {
  const { bare, bareLoad } = await startBare()
  const { server, close } = await serverOnFreshSchema("benchc")
  try {
    const op = operator(server)
    const keys = await thousandKeys(op)
    let n = 0
    const stamp = Date.now().toString(36)
    const paid = (pick: () => string) => ({
      url: `${server.api}/api/v1/platforms/maps`,
      method: "POST" as const,
      headers: { "content-type": "application/json" },
      requests: [
        {
          setupRequest: (req: any) => {
            n++
            return {
              ...req,
              headers: { "content-type": "application/json", "x-api-key": pick() },
              body: JSON.stringify({ request: { op: "places", subjects: [`ChIJbenchpaid${n}x${stamp}`] } })
            }
          }
        }
      ]
    })
    const ratios: Record<"c" | "c1", Array<number>> = { c: [], c1: [] }
    const rounds = Number(process.env["BENCH_C_ROUNDS"] ?? 3)
    for (let r = 0; r < rounds; r++) {
      // the order alternates, so neither line always runs on the warmer machine
      const first = r % 2 === 0 ? "a1" : "c"
      const a1 = first === "a1" ? await bareLoad("a1") : undefined
      const c = await load(
        "c  paid 1-subject call, 1,000 accounts",
        paid(() => keys[n % keys.length]!)
      )
      const c1 = await load(
        "c1 paid 1-subject call, one account",
        paid(() => keys[1]!)
      )
      const a1After = a1 ?? (await bareLoad("a1"))
      ratios.c.push(c.rps / a1After.rps)
      ratios.c1.push(c1.rps / a1After.rps)
      console.log(
        `round ${r + 1}: a1 ${a1After.rps.toFixed(0)}/s, c ${c.rps.toFixed(0)}/s (p50 ${c.p50} ms, statuses ${JSON.stringify(c.statuses)}), c1 ${c1.rps.toFixed(0)}/s (statuses ${JSON.stringify(c1.statuses)}), c = ${(c.rps / a1After.rps).toFixed(3)}, c1 = ${(c1.rps / a1After.rps).toFixed(3)} x a1, load average ${loadavg()[0]!.toFixed(1)}`
      )
    }
    for (const line of ["c", "c1"] as const) {
      const sorted = [...ratios[line]].sort((x, y) => x - y)
      summary[line] = Number(sorted[Math.floor(sorted.length / 2)]!.toFixed(3))
    }
    console.log(`c = ${summary["c"]}, c1 = ${summary["c1"]} x a1 (medians of ${rounds} rounds; targets 0.25, 0.20)`)
  } finally {
    await close()
    await stop(bare)
  }
}

const main = async () => {
  const results: Array<Result> = []

  const rawPort = await freePort()
  const raw = track(
    spawn(process.execPath, [here("./raw.mjs")], {
      env: { ...process.env, PORT: String(rawPort) },
      stdio: "inherit"
    })
  )
  await waitFor(`http://127.0.0.1:${rawPort}/`, small)
  results.push(await load("a0 raw node:http JSON POST", { url: `http://127.0.0.1:${rawPort}/`, ...small }))
  await stop(raw)

  const { bare, bareLoad } = await startBare()
  results.push(await bareLoad("a1 bare Effect HttpApi JSON POST"))

  const { server, admin, schema, url: serverUrl, close } = await serverOnFreshSchema("bench")
  try {
    const op = operator(server)
    const keys = await thousandKeys(op)
    const api = `${server.api}/api/v1/platforms`
    const json = { "content-type": "application/json" }

    const stored = JSON.stringify({
      request: { op: "places", subjects: Array.from({ length: 10 }, (_, i) => `ChIJbenchstored${i}`) }
    })
    await fetch(`${api}/maps`, { method: "POST", headers: { ...json, "x-api-key": keys[0]! }, body: stored })
    // the machine's speed drifts during a run: each ratio is also taken against a1 measured just before it (the bare
    // server idles, alive, while the others run)
    results.push(await bareLoad("a1' again, just before b"))
    results.push(
      await load("b  10-subject op served from the store", {
        url: `${api}/maps`,
        method: "POST",
        headers: { ...json, "x-api-key": keys[0]! },
        body: stored
      })
    )

    let n = 0
    const paid = (pick: () => string) => ({
      url: `${api}/maps`,
      method: "POST" as const,
      headers: json,
      requests: [
        {
          setupRequest: (req: any) => {
            n++
            return {
              ...req,
              headers: { ...json, "x-api-key": pick() },
              body: JSON.stringify({ request: { op: "places", subjects: [`ChIJbenchpaid${n}x`] } })
            }
          }
        }
      ]
    })
    // group commit (issue 22), paired: a second server over the same schema and keys runs each call's hold and settle
    // alone (GROUP_COMMIT_MAX=1, as before group commit); each paid line runs on it, then on the first, back to back
    const alone = await spawnServer(
      { DATABASE_URL: serverUrl, DATABASE_POOL: "20", SYNTHETIC_LATENCY_MS: "0", GROUP_COMMIT_MAX: "1" },
      nodeArgs
    )
    const on = (other: { readonly api?: string; readonly url?: string }, spec: ReturnType<typeof paid>) => ({
      ...spec,
      url: spec.url.replace(api, `${other.api ?? other.url}/api/v1/platforms`)
    })
    try {
      results.push(await bareLoad('a1" again, just before c'))
      results.push(
        await load(
          "c- paid call, 1,000 accounts, group commit off",
          on(
            alone,
            paid(() => keys[n % keys.length]!)
          )
        )
      )
      results.push(
        await load(
          "c  paid 1-subject call, 1,000 accounts",
          paid(() => keys[n % keys.length]!)
        )
      )
      results.push(
        await load(
          "c1- paid call, one account, group commit off",
          on(
            alone,
            paid(() => keys[1]!)
          )
        )
      )
      results.push(
        await load(
          "c1 paid 1-subject call, one account",
          paid(() => keys[1]!)
        )
      )
    } finally {
      await stop(alone.child)
    }
    // two instances, one service (issue 22): a second server over the same schema, both behind a loopback balancer;
    // the same paid calls through it (on two cores two instances share the CPU: the line shows it works as one)
    const twin = await spawnServer(
      { DATABASE_URL: serverUrl, DATABASE_POOL: "20", SYNTHETIC_LATENCY_MS: "0" },
      nodeArgs
    )
    const lb = await balancer([server.api, twin.api])
    try {
      results.push(
        await load(
          "c2 paid call through a balancer, two instances",
          on(
            lb,
            paid(() => keys[n % keys.length]!)
          )
        )
      )
    } finally {
      await lb.close()
      await stop(twin.child)
    }

    const seeded = await seedHistory(admin, schema)
    const probe = (await fetch(`${api}/maps`, {
      method: "POST",
      headers: { ...json, "x-api-key": keys[2]! },
      body: history
    }).then((r) => r.json())) as any
    const points = probe.data.reduce((n: number, row: any) => n + row.points.length, 0)
    const d = {
      url: `${api}/maps`,
      method: "POST" as const,
      headers: { ...json, "x-api-key": keys[2]! },
      body: history
    }
    results.push(await load(`d  history 10 x 730 days (${points} points), 1M in table`, { ...d, connections: 1 }))
    results.push(await load("d10 the same history call, 10 connections", { ...d, connections: 10 }))

    // d10m (issue 22): the same call with 10 million points in the table (13,700 subjects x 730 days), the 9 million
    // added in time order as the nightly refresh writes them (each day, every subject)
    const seeded10m = await seedTenMillion(admin, schema)
    const total = Number((await admin.query(`SELECT count(*) AS n FROM ${schema}.history_values`)).rows[0].n as string)
    results.push(
      await load(`d10m the same, ${(total / 1e6).toFixed(1)}M points in the table`, { ...d, connections: 1 })
    )

    const peak = peakMb(server.child.pid!)
    const a0 = results[0]!.rps
    const a1 = results[1]!.rps
    const by = (prefix: string) => results.find((r) => r.name.startsWith(prefix))!
    console.log(
      `\nPlatform Data Retrieval API benchmark: ${cpus().length} cores (${cpus()[0]?.model}), ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}, ${connections} connections, ${seconds} s each, loopback`
    )
    console.log("scenario                                              req/s    p50 ms  p99 ms  statuses")
    for (const r of results) {
      console.log(
        `${r.name.padEnd(52)} ${r.rps.toFixed(0).padStart(7)}  ${String(r.p50).padStart(7)} ${String(r.p99).padStart(7)}  ${JSON.stringify(r.statuses)}${r.errors ? ` errors=${r.errors}` : ""}${r.timeouts ? ` timeouts=${r.timeouts}` : ""}`
      )
    }
    const b = by("b ").rps
    const c = by("c ").rps
    const c1 = by("c1 ").rps
    const a1b = by("a1'").rps
    const a1c = by('a1"').rps
    const met = (ok: boolean) => (ok ? "met" : "NOT met")
    console.log(
      `\nb = ${(b / a1b).toFixed(2)} x a1 measured just before it, ${(b / a1).toFixed(2)} x the first a1, ${(b / a0).toFixed(2)} x a0   (target b >= 0.60 x a1: ${met(b >= 0.6 * a1b)})`
    )
    console.log(
      `c = ${(c / a1c).toFixed(2)} x a1 measured just before it, ${(c / a1).toFixed(2)} x the first a1, ${(c / a0).toFixed(2)} x a0   (target c >= 0.25 x a1: ${met(c >= 0.25 * a1c)}); group commit off: ${(by("c- ").rps / a1c).toFixed(2)} x a1, so group commit = ${(c / by("c- ").rps).toFixed(2)} x`
    )
    console.log(
      `c1 = ${(c1 / a1c).toFixed(2)} x a1 measured before c   (target c1 >= 0.20 x a1: ${met(c1 >= 0.2 * a1c)}); group commit off: ${(by("c1- ").rps / a1c).toFixed(2)} x a1, so group commit = ${(c1 / by("c1- ").rps).toFixed(2)} x`
    )
    console.log(
      `d p50 = ${by("d ").p50} ms   (target <= 15 ms: ${met(by("d ").p50 <= 15)}); 1M points seeded in ${seeded} ms`
    )
    console.log(
      `d10m p50 = ${by("d10m").p50} ms with ${total} points   (target <= 10 ms: ${met(by("d10m").p50 <= 10)}); 9M more seeded in ${seeded10m} ms`
    )
    console.log(`server peak memory (VmHWM) = ${peak.toFixed(0)} MB   (target <= 250 MB: ${met(peak <= 250)})`)
    Object.assign(summary, {
      b: round2(b / a1b),
      c: round2(c / a1c),
      c1: round2(c1 / a1c),
      c_alone: round2(by("c- ").rps / a1c),
      c1_alone: round2(by("c1- ").rps / a1c),
      c2: round2(by("c2 ").rps / a1c),
      d_p50_ms: by("d ").p50,
      d10m_p50_ms: by("d10m").p50,
      server_peak_mb: Math.round(peak)
    })
    const unexpected = results
      .filter((r) => !r.name.startsWith("a"))
      .flatMap((r) => Object.keys(r.statuses).filter((s) => !["200", "402", "429"].includes(s)))
    const errors = results.reduce((e, r) => e + r.errors, 0)
    console.log(
      `unexpected statuses: ${unexpected.length ? unexpected.join(", ") : "none"}; connection errors: ${errors}`
    )
  } finally {
    await stop(bare)
    await close()
  }
}

/** u: the native storefront adapter against the fixture host, next to the same calls on the synthetic upstream. */
const upstreams = async () => {
  const fixture = await Fixtures.storefront()
  const running: Array<{ readonly close: () => Promise<void> }> = []
  try {
    const results: Array<Result> = []
    for (const i of [0, 1]) {
      const native =
        i === 1
          ? { UPSTREAMS: "storefronts=storefront", STOREFRONT_ORIGINS: `https://*.bench.example=${fixture.url}/*` }
          : {}
      const { server, close } = await serverOnFreshSchema(`bench_u${i}`, native)
      running.push({ close })
      const op = operator(server)
      const account = await op("/admin/accounts", { name: "bench u", credits: 100_000_000 })
      const key = (await op(`/admin/accounts/${account.accountId}/keys`, { name: "bench" })).key as string
      let n = 0
      const json = { "content-type": "application/json" }
      results.push(
        await load(i === 0 ? "u0 storefronts call, synthetic upstream" : "u  the same, native adapter on the fixture", {
          url: `${server.api}/api/v1/platforms/storefronts`,
          method: "POST",
          headers: json,
          requests: [
            {
              setupRequest: (req: any) => ({
                ...req,
                headers: { ...json, "x-api-key": key },
                body: JSON.stringify({
                  request: { op: "products", subjects: [`https://b${i}x${++n}.bench.example`], limit: 25 }
                })
              })
            }
          ]
        })
      )
    }
    for (const r of results)
      console.log(
        `${r.name.padEnd(52)} ${r.rps.toFixed(0).padStart(7)}  ${String(r.p50).padStart(7)} ${String(r.p99).padStart(7)}  ${JSON.stringify(r.statuses)}${r.errors ? ` errors=${r.errors}` : ""}`
      )
    const [u0, u] = results as [Result, Result]
    summary["u"] = round2(u.rps / u0.rps)
    console.log(
      `u = ${(u.rps / u0.rps).toFixed(2)} x u0: storefronts calls per second through the native adapter (fixture at zero latency, ${fixture.total()} upstream requests) over the same calls on the synthetic upstream`
    )
  } finally {
    for (const r of running) await r.close()
    await fixture.close()
  }
}

/** Calls of `call` for `seconds`, `concurrency` at a time: calls per second and p50 in ms. */
const inProcess = async (name: string, call: () => Promise<unknown>, concurrency = 20) => {
  const run = async (duration: number) => {
    const latencies: Array<number> = []
    const until = Date.now() + duration * 1000
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (Date.now() < until) {
          const t = performance.now()
          await call()
          latencies.push(performance.now() - t)
        }
      })
    )
    latencies.sort((a, b) => a - b)
    return {
      name,
      rps: latencies.length / duration,
      p50: Math.round(latencies[Math.floor(latencies.length / 2)] ?? 0),
      p99: Math.round(latencies[Math.floor(latencies.length * 0.99)] ?? 0),
      statuses: {},
      errors: 0,
      timeouts: 0
    } satisfies Result
  }
  if (warmSeconds > 0) await run(warmSeconds)
  return run(seconds)
}

/** e: the typed clients over the same stored call as plain fetch (e0), in this process. */
const clients = async () => {
  const { server, close } = await serverOnFreshSchema("bench_e")
  try {
    const op = operator(server)
    const account = await op("/admin/accounts", { name: "bench e", credits: 1_000_000 })
    const key = (await op(`/admin/accounts/${account.accountId}/keys`, { name: "bench" })).key as string
    const request = { op: "places", subjects: Array.from({ length: 10 }, (_, i) => `ChIJbenchclient${i}`) } as const
    const body = JSON.stringify({ request })
    const headers = { "content-type": "application/json", "x-api-key": key }
    // each typed client sends a fresh Idempotency-Key with a paid call: so does the plain call, for the same server work
    const plain = () =>
      fetch(`${server.api}/api/v1/platforms/maps`, {
        method: "POST",
        headers: { ...headers, "idempotency-key": crypto.randomUUID() },
        body
      }).then((r) => r.json())
    const probe = (await plain()) as { data: ReadonlyArray<unknown> }
    if (probe.data.length !== 10) throw new Error("the stored call answered no rows")
    const promise = createClient({ baseUrl: server.api, apiKey: key })
    const effect = await Effect.runPromise(
      PdrClient.make({ baseUrl: server.api, apiKey: key }).pipe(Effect.provide(FetchHttpClient.layer))
    )
    const typed = () =>
      Effect.runPromise(PdrClient.call(effect, "maps", request).pipe(Effect.provide(FetchHttpClient.layer)))
    const scenarios: ReadonlyArray<readonly [string, () => Promise<unknown>]> = [
      ["e0 plain fetch + JSON.parse, stored 10-subject call", plain],
      ["e  Effect client (PdrClient.call, rows decoded)", typed],
      ["ep Promise client (createClient().call)", () => promise.call("maps", request)]
    ]
    // two rounds, the second in reverse order, each scenario's figures averaged: the machine drifts within a run
    const round = async (order: typeof scenarios) => {
      const out = new Map<string, Result>()
      for (const [name, call] of order) out.set(name, await inProcess(name, call))
      return out
    }
    const first = await round(scenarios)
    const second = await round([...scenarios].reverse())
    const results = scenarios.map(([name]): Result => {
      const [a, b] = [first.get(name)!, second.get(name)!]
      return { ...a, name, rps: (a.rps + b.rps) / 2, p50: Math.round((a.p50 + b.p50) / 2), p99: Math.max(a.p99, b.p99) }
    })
    for (const r of results)
      console.log(
        `${r.name.padEnd(52)} ${r.rps.toFixed(0).padStart(7)}  ${String(r.p50).padStart(7)} ${String(r.p99).padStart(7)}`
      )
    const [e0, e, ep] = results as [Result, Result, Result]
    Object.assign(summary, { e: round2(e.rps / e0.rps), ep: round2(ep.rps / e0.rps) })
    console.log(
      `e = ${(e.rps / e0.rps).toFixed(2)} x e0 (Effect client), ep = ${(ep.rps / e0.rps).toFixed(2)} x e0 (Promise client): stored calls per second through the typed clients over plain fetch, 20 at a time, in the bench process`
    )
  } finally {
    await close()
  }
}

/**
 * l (issue 21): a paid 1-subject call (a new subject each: fetched, zero latency) made asynchronously
 * (`Prefer: respond-async`, then its `Location` collected at once, again after each 202) over the same call made
 * synchronously (l0), 20 at a time, in the same run (BENCH_ONLY=l runs only this one).
 */
const longCalls = async () => {
  const { server, close } = await serverOnFreshSchema("bench_l")
  try {
    const op = operator(server)
    const account = await op("/admin/accounts", { name: "bench l", credits: 100_000_000 })
    const key = (await op(`/admin/accounts/${account.accountId}/keys`, { name: "bench" })).key as string
    const headers = { "content-type": "application/json", "x-api-key": key }
    let n = 0
    const body = () => JSON.stringify({ request: { op: "places", subjects: [`ChIJbenchlong${++n}`] } })
    const sync = async () => {
      const r = await fetch(`${server.api}/api/v1/platforms/maps`, { method: "POST", headers, body: body() })
      if (r.status !== 200) throw new Error(`sync call answered ${r.status}`)
      return r.json()
    }
    const async_ = async () => {
      const r = await fetch(`${server.api}/api/v1/platforms/maps`, {
        method: "POST",
        headers: { ...headers, prefer: "respond-async" },
        body: body()
      })
      let status = r.status
      let location = r.headers.get("location")
      await r.text()
      let text = ""
      while (status === 202) {
        const c = await fetch(`${server.api}${location}`, { headers: { "x-api-key": key } })
        status = c.status
        location = c.headers.get("location") ?? location
        text = await c.text()
      }
      // the answer and the server's last error lines, to see why
      if (status !== 200)
        throw new Error(
          `async call answered ${status} (its request ${r.status}): ${text}\n${server
            .output()
            .split("\n")
            .filter((l) => l.includes('"logLevel":"ERROR"'))
            .slice(-6)
            .join("\n")}`
        )
    }
    const scenarios: ReadonlyArray<readonly [string, () => Promise<unknown>]> = [
      ["l0 paid 1-subject call, synchronous", sync],
      ["l  the same, Prefer: respond-async + collect", async_]
    ]
    const round = async (order: typeof scenarios) => {
      const out = new Map<string, Result>()
      for (const [name, call] of order) out.set(name, await inProcess(name, call))
      return out
    }
    const first = await round(scenarios)
    const second = await round([...scenarios].reverse())
    const results = scenarios.map(([name]): Result => {
      const [a, b] = [first.get(name)!, second.get(name)!]
      return { ...a, name, rps: (a.rps + b.rps) / 2, p50: Math.round((a.p50 + b.p50) / 2), p99: Math.max(a.p99, b.p99) }
    })
    for (const r of results)
      console.log(
        `${r.name.padEnd(52)} ${r.rps.toFixed(0).padStart(7)}  ${String(r.p50).padStart(7)} ${String(r.p99).padStart(7)}`
      )
    const [l0, l] = results as [Result, Result]
    console.log(
      `l = ${(l.rps / l0.rps).toFixed(2)} x l0: paid calls per second made asynchronously and collected at once over the same calls made synchronously, 20 at a time (p50 ${l.p50} vs ${l0.p50} ms)`
    )
  } finally {
    await close()
  }
}

// r1/r2 (issue 11): the nightly refresh's throughput, one runner and two, in its own script (BENCH_REFRESH=false skips)
const refresh = () => {
  if (process.env["BENCH_REFRESH"] === "false") return
  // the runners are the bundle this run built (buildOnce writes apps/runner/dist with the server's), as README's
  // figures are; BENCH_REFRESH_RUNNER=source runs `pnpm runner`'s sources through tsx instead
  buildOnce()
  const runner = process.env["BENCH_REFRESH_RUNNER"] ?? "dist"
  console.log(
    `\nnightly refresh (apps/runner/bench/refresh.ts, runner ${runner === "dist" ? "bundle" : "sources through tsx"}):`
  )
  const out = execFileSync(
    process.execPath,
    ["--import", "tsx", "--conditions=@pdr/source", here("../../runner/bench/refresh.ts")],
    {
      stdio: ["ignore", "pipe", "inherit"],
      encoding: "utf8",
      env: { ...process.env, BENCH_REFRESH_RUNNER: runner === "source" ? "" : runner }
    }
  )
  process.stdout.write(out)
  const figure = (key: string, pattern: RegExp) => {
    const m = pattern.exec(out)
    if (m) summary[key] = Number(m[1])
  }
  figure("r1_per_s", /^r1 .*?: (\d+) entities\/s/m)
  figure("r1p_per_s", /^r1' .*?: (\d+) entities\/s/m)
  figure("r2_per_s", /^r2 .*?: (\d+) entities\/s/m)
  figure("r2_over_r1p", /^r2 \/ r1' = ([0-9.]+)/m)
  figure("p1_s", /^p1 planning \d+ tracked entities: ([0-9.]+) s/m)
  figure("p1_peak_mb", /^p1 planning .*?runner peak memory (\d+) MB/m)
  figure("claim_p50_ms", /^c1 claim of 16 .*?p50 ([0-9.]+) ms/m)
}

/** The figures a script reads: the last line of `pnpm bench`. */
const summary: Record<string, number> = {}
const round2 = (x: number) => Math.round(x * 100) / 100

/**
 * m: the embedded default as `pnpm start` runs it (the bundle, its heap bound, the demo account, PGlite on a fresh
 * DATA_DIR): its peak resident memory once it answers (VmHWM: the start, migrations included) and its resident memory
 * after idling (VmRSS, BENCH_IDLE_SECONDS, default 10), with the heap's part (process.memoryUsage() is not reachable
 * from outside: /proc's RssAnon, RssFile). Targets: <= 300 MB idle, <= 450 MB peak at start. The first start creates
 * the database in a short-lived child process (packages/store-pg Embedded.ts; from the data directory template of the
 * installed PGlite, or by initdb without one): its peak (VmHWM, sampled every 50 ms while the server starts) is
 * printed beside, and the target is judged on the larger of the two (the machine's peak on a first start).
 */
const embedded = async () => {
  buildOnce()
  delete process.env["DATABASE_URL"]
  const dataDir = mkdtempSync(join(tmpdir(), "pdr-bench-m-"))
  const idleSeconds = Number(process.env["BENCH_IDLE_SECONDS"] ?? 10)
  const status = (pid: number, field: string) => {
    try {
      const m = new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, "utf8"))
      return m ? Number(m[1]) / 1024 : Number.NaN
    } catch {
      return Number.NaN
    }
  }
  const children = (pid: number): Array<number> => {
    try {
      return readdirSync(`/proc/${pid}/task`).flatMap((task) =>
        readFileSync(`/proc/${pid}/task/${task}/children`, "utf8")
          .split(/\s+/)
          .filter((p) => p.length > 0)
          .map(Number)
      )
    } catch {
      return []
    }
  }
  const starts: Array<{
    readonly started: number
    readonly peak: number
    readonly idle: number
    readonly anon: number
    readonly file: number
    readonly after: number
    readonly initializer: number
  }> = []
  // the first start creates the data directory, the second opens it: each is measured once it answers and after idling
  for (let i = 0; i < 2; i++) {
    const t = Date.now()
    // this process's children are the servers; theirs, the one that creates the data directory
    let initializer = 0
    const sampler = setInterval(() => {
      for (const server of children(process.pid))
        for (const child of children(server)) initializer = Math.max(initializer, status(child, "VmHWM") || 0)
    }, 50)
    const server = await spawnServer(
      { DATA_DIR: dataDir, DEMO: "true", RATE_LIMIT_RPS: "10", RATE_LIMIT_BURST: "20" },
      nodeArgs
    ).finally(() => clearInterval(sampler))
    try {
      const started = Date.now() - t
      const pid = server.child.pid!
      const peak = peakMb(pid)
      await new Promise((r) => setTimeout(r, idleSeconds * 1000))
      starts.push({
        started,
        peak,
        idle: status(pid, "VmRSS"),
        anon: status(pid, "RssAnon"),
        file: status(pid, "RssFile"),
        after: peakMb(pid),
        initializer
      })
    } finally {
      await stop(server.child)
    }
  }
  for (const [i, s] of starts.entries())
    console.log(
      `\nembedded default (pnpm start, PGlite), ${i === 0 ? "first start (creates DATA_DIR)" : "second start (opens it)"}: answered in ${s.started} ms; peak at start (VmHWM) ${s.peak.toFixed(0)} MB (target <= 450 MB, the data directory's child included: ${Math.max(s.peak, s.initializer) <= 450 ? "met" : "NOT met"}), resident after ${idleSeconds} s idle (VmRSS) ${s.idle.toFixed(0)} MB (target <= 300 MB: ${s.idle <= 300 ? "met" : "NOT met"}; anonymous ${s.anon.toFixed(0)}, files ${s.file.toFixed(0)}), peak by then ${s.after.toFixed(0)} MB${s.initializer > 0 ? `; the child that created the data directory peaked at ${s.initializer.toFixed(0)} MB` : ""}`
    )
  Object.assign(summary, {
    embedded_idle_mb: Math.round(Math.max(...starts.map((s) => s.idle))),
    embedded_peak_mb: Math.round(Math.max(...starts.map((s) => s.after))),
    embedded_init_peak_mb: Math.round(Math.max(...starts.map((s) => s.initializer)))
  })
}

/** p: web_search playReviews through the provider (its shipped actor) on the loopback provider, next to synthetic. */
const providerServed = async () => {
  const actor = "coder_zoro~google-play-app-reviews-scraper"
  const items = JSON.parse(
    readFileSync(here(`../../../packages/upstream-http/test/fixtures/provider/${actor}.json`), "utf8")
  ) as ReadonlyArray<unknown>
  const fixture = await Fixtures.provider({ datasets: { [actor]: items } })
  const running: Array<{ readonly close: () => Promise<void> }> = []
  try {
    const results: Array<Result> = []
    for (const i of [0, 1]) {
      const env =
        i === 1
          ? {
              UPSTREAM_DEFAULT: "provider",
              PROVIDER_URL: fixture.url,
              PROVIDER_TOKEN: Fixtures.credentials.providerToken,
              PROVIDER_WAIT_S: "1"
            }
          : {}
      const { server, close } = await serverOnFreshSchema(`bench_p${i}`, env)
      running.push({ close })
      const op = operator(server)
      const account = await op("/admin/accounts", { name: "bench p", credits: 100_000_000 })
      const key = (await op(`/admin/accounts/${account.accountId}/keys`, { name: "bench" })).key as string
      let n = 0
      const json = { "content-type": "application/json" }
      results.push(
        await load(i === 0 ? "p0 playReviews call, synthetic upstream" : "p  the same, provider actor on the fixture", {
          url: `${server.api}/api/v1/platforms/web_search`,
          method: "POST",
          headers: json,
          requests: [
            {
              setupRequest: (req: any) => ({
                ...req,
                headers: { ...json, "x-api-key": key },
                body: JSON.stringify({ request: { op: "playReviews", subjects: [`com.bench.p${i}x${++n}`], limit: 2 } })
              })
            }
          ]
        })
      )
    }
    for (const r of results)
      console.log(
        `${r.name.padEnd(52)} ${r.rps.toFixed(0).padStart(7)}  ${String(r.p50).padStart(7)} ${String(r.p99).padStart(7)}  ${JSON.stringify(r.statuses)}${r.errors ? ` errors=${r.errors}` : ""}`
      )
    const [p0, p] = results as [Result, Result]
    console.log(
      `p = ${(p.rps / p0.rps).toFixed(2)} x p0: playReviews calls per second through the provider adapter (a run started, polled and its dataset read on the fixture at zero latency, ${fixture.started.length} runs) over the same calls on the synthetic upstream`
    )
  } finally {
    for (const r of running) await r.close()
    await fixture.close()
  }
}

/** o: the cost of metrics and tracing on b and c, and of scrapes during a burst of calls. */
/** CPU seconds (user + system) a process has used so far, from /proc (Linux). */
const cpuSeconds = (pid: number): number => {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
  // utime and stime are fields 14 and 15 of stat(5): 12 and 13 after the command name, in clock ticks (100 a second)
  return (Number(fields[11]) + Number(fields[12])) / 100
}

const observability = async () => {
  const { createServer } = await import("node:http")
  const sink = createServer((req, res) => {
    req.resume()
    req.on("end", () => res.writeHead(200, { "content-type": "application/json" }).end("{}"))
  })
  await new Promise<void>((r) => sink.listen(0, "127.0.0.1", () => r()))
  const sinkUrl = `http://127.0.0.1:${(sink.address() as { port: number }).port}`
  const configs = [
    { name: "o0 metrics off", env: { METRICS: "false" } },
    { name: "o1 metrics on (default)", env: {} },
    { name: "o2 metrics + OTLP traces", env: { OTEL_EXPORTER_OTLP_ENDPOINT: sinkUrl } }
  ]
  interface Figure {
    name: string
    b: number
    c: number
    cScraped?: number
    bCpuUs: number
    cCpuUs: number
  }
  const json = { "content-type": "application/json" }
  // the three servers run side by side and are measured in turns (o0, o1, o2, o0, o1, o2...), so a change of the
  // machine's load falls on all three alike; besides requests/s, each turn reads the server process's own CPU time
  // per request, which the load of other processes hardly changes
  const started = await Promise.all(
    configs.map(async (config, i) => {
      const s = await serverOnFreshSchema(`bench_o${i}`, { ...config.env, LOG_REQUESTS: "false" })
      const op = operator(s.server)
      const keys: Array<string> = []
      for (let k = 0; k < 100; k += 50) {
        keys.push(
          ...(await Promise.all(
            Array.from({ length: 50 }, async (_, j) => {
              const a = await op("/admin/accounts", { name: `bench o ${k + j}`, credits: 1_000_000 })
              return (await op(`/admin/accounts/${a.accountId}/keys`, { name: "bench" })).key as string
            })
          ))
        )
      }
      return { config, ...s, keys }
    })
  )
  const sums = started.map((s) => ({
    name: s.config.name,
    b: [] as number[],
    c: [] as number[],
    bCpu: [] as number[],
    cCpu: [] as number[]
  }))
  const rounds = Number(process.env["BENCH_O_ROUNDS"] ?? 4)
  try {
    for (const s of started) {
      const url = `${s.server.api}/api/v1/platforms/maps`
      const stored = JSON.stringify({
        request: { op: "places", subjects: Array.from({ length: 10 }, (_, i) => `ChIJbenchstored${i}`) }
      })
      await fetch(url, { method: "POST", headers: { ...json, "x-api-key": s.keys[0]! }, body: stored })
    }
    let n = 0
    for (let round = 0; round < rounds; round++) {
      // the order turns each round (o0 o1 o2, then o2 o1 o0, ...): whatever the database does after a run (a
      // checkpoint, autovacuum) falls on each configuration alike
      const order = round % 2 === 0 ? [...started.entries()] : [...started.entries()].reverse()
      for (const [i, s] of order) {
        const url = `${s.server.api}/api/v1/platforms/maps`
        const stored = JSON.stringify({
          request: { op: "places", subjects: Array.from({ length: 10 }, (_, i) => `ChIJbenchstored${i}`) }
        })
        const pid = s.server.child.pid!
        let cpu = 0
        const mark = () => {
          cpu = cpuSeconds(pid)
        }
        const b = await load(
          `${s.config.name}: b (round ${round + 1})`,
          { url, method: "POST", headers: { ...json, "x-api-key": s.keys[0]! }, body: stored },
          mark
        )
        sums[i]!.b.push(b.rps)
        sums[i]!.bCpu.push(((cpuSeconds(pid) - cpu) * 1e6) / (b.rps * seconds))
        const c = await load(
          `${s.config.name}: c (round ${round + 1})`,
          {
            url,
            method: "POST",
            headers: json,
            requests: [
              {
                setupRequest: (req: any) => {
                  n++
                  return {
                    ...req,
                    headers: { ...json, "x-api-key": s.keys[n % s.keys.length]! },
                    body: JSON.stringify({ request: { op: "places", subjects: [`ChIJbenchpaid${n}x`] } })
                  }
                }
              }
            ]
          },
          mark
        )
        sums[i]!.c.push(c.rps)
        sums[i]!.cCpu.push(((cpuSeconds(pid) - cpu) * 1e6) / (c.rps * seconds))
      }
    }
    // c while /metrics is scraped every 100 ms (Prometheus scrapes every 15 s or so: this is 150 times more);
    // BENCH_O_SCRAPE=false leaves it out (profiling the rounds alone)
    const scrapeRatio =
      process.env["BENCH_O_SCRAPE"] === "false"
        ? undefined
        : await (async () => {
            const o1 = started[1]!
            const paid = {
              url: `${o1.server.api}/api/v1/platforms/maps`,
              method: "POST" as const,
              headers: json,
              requests: [
                {
                  setupRequest: (req: any) => {
                    n++
                    return {
                      ...req,
                      headers: { ...json, "x-api-key": o1.keys[n % o1.keys.length]! },
                      body: JSON.stringify({ request: { op: "places", subjects: [`ChIJbenchpaid${n}x`] } })
                    }
                  }
                }
              ]
            }
            // the same load without, then with, the scrapes
            const cNow = await load(`${o1.config.name}: c`, paid)
            let scraping = true
            const scrapes = (async () => {
              while (scraping) {
                await fetch(`${o1.server.admin}/metrics`, {
                  headers: { authorization: `Bearer ${o1.server.token}` }
                }).then((r) => r.text())
                await new Promise((r) => setTimeout(r, 100))
              }
            })()
            const cScraped = await load(`${o1.config.name}: c while /metrics is scraped every 100 ms`, paid)
            scraping = false
            await scrapes
            return cScraped.rps / cNow.rps
          })()
    const median = (xs: ReadonlyArray<number>) => {
      const sorted = [...xs].sort((a, b) => a - b)
      const mid = Math.floor(sorted.length / 2)
      return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2
    }
    const figures: Array<Figure> = sums.map((s, i) => ({
      name: s.name,
      b: median(s.b),
      c: median(s.c),
      bCpuUs: median(s.bCpu),
      cCpuUs: median(s.cCpu),
      ...(i === 1 && scrapeRatio !== undefined ? { cScraped: scrapeRatio } : {})
    }))
    const base = figures[0]!
    console.log(
      `\nobservability (issue 25): medians of ${rounds} interleaved rounds; requests/s and the server process's CPU per request, ratio to metrics off`
    )
    for (const f of figures)
      console.log(
        `${f.name.padEnd(28)} b ${f.b.toFixed(0).padStart(6)} (${(f.b / base.b).toFixed(3)}) cpu ${f.bCpuUs.toFixed(0)} us (${(f.bCpuUs / base.bCpuUs).toFixed(3)})   c ${f.c.toFixed(0).padStart(6)} (${(f.c / base.c).toFixed(3)}) cpu ${f.cCpuUs.toFixed(0)} us (${(f.cCpuUs / base.cCpuUs).toFixed(3)})${f.cScraped === undefined ? "" : `   c during scrapes ${f.cScraped.toFixed(3)} x c`}`
      )
    summary["o1_b"] = Number((figures[1]!.b / base.b).toFixed(3))
    summary["o1_c"] = Number((figures[1]!.c / base.c).toFixed(3))
    summary["o1_b_cpu"] = Number((figures[1]!.bCpuUs / base.bCpuUs).toFixed(3))
    summary["o1_c_cpu"] = Number((figures[1]!.cCpuUs / base.cCpuUs).toFixed(3))
  } finally {
    for (const s of started) await s.close()
    sink.close()
  }
}

const only = process.env["BENCH_ONLY"]
const all = async () => {
  if (only === undefined || only === "m") await embedded()
  if (only === undefined || only === "main") await main()
  if (only === "b") await storedOnly()
  if (only === "c") await paidOnly()
  if (only === "d") await historyOnly()
  if (only === undefined || only === "u") await upstreams()
  if (only === undefined || only === "p") await providerServed()
  if (only === undefined || only === "e") await clients()
  if (only === undefined || only === "o") await observability()
  if (only === undefined || only === "l") await longCalls()
  if (only === undefined || only === "r") refresh()
  console.log(JSON.stringify(summary))
  if (died.length > 0) {
    console.error(`bench servers that stopped by themselves: ${died.join(", ")} (their output is above)`)
    process.exitCode = 1
  }
}

all().catch((e) => {
  console.error(e)
  process.exit(1)
})
