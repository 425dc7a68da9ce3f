/**
 * `pnpm bench:cpu`: CPU time per call, not throughput (issue 22), so that two builds compare on a shared, loaded
 * machine. Each bundle named in BENCH_CPU_BUNDLES (paths relative to apps/server, default `dist/main.js`) runs as its
 * own server process on its own fresh schema (as `pnpm bench` starts it: pool 20, the heap bound, log lines on); in
 * each of BENCH_CPU_ROUNDS rounds (default 5) every server gets, in turn (the order reversed every other round),
 * BENCH_CPU_CALLS stored 10-subject calls (line b, one key) and then BENCH_CPU_PAID paid 1-subject calls over 200
 * accounts (line c), at 20 connections. Printed per bundle and line: the medians over the rounds of the server's CPU
 * per call (utime + stime of /proc/<pid>/stat) and of PostgreSQL's (the backends of the server's own connections,
 * found by their client ports), in microseconds, and the load average. BENCH_CPU_LINES=b (or c) runs one line.
 */

import { execFileSync } from "node:child_process"
import { readdirSync, readFileSync, readlinkSync } from "node:fs"
import { loadavg } from "node:os"
import { fileURLToPath } from "node:url"
import autocannon from "autocannon"
import pg from "pg"
import { spawnServer } from "../test/processes.js"
import { benchNodeOptions } from "./launch.js"

const dbUrl = process.env["TEST_DATABASE_URL"] ?? "postgres://postgres@127.0.0.1:5432/test"
const here = (p: string) => fileURLToPath(new URL(p, import.meta.url))
const bundles = (process.env["BENCH_CPU_BUNDLES"] ?? "dist/main.js").split(",").filter((b) => b.length > 0)
const rounds = Number(process.env["BENCH_CPU_ROUNDS"] ?? 5)
const storedCalls = Number(process.env["BENCH_CPU_CALLS"] ?? 6000)
const paidCalls = Number(process.env["BENCH_CPU_PAID"] ?? 2000)
const only = (process.env["BENCH_CPU_LINES"] ?? "b,c").split(",")
const ticks = 100 // USER_HZ: /proc's clock ticks per second on Linux

/** utime + stime of a process, in microseconds (0 once it is gone). */
const cpuUs = (pid: number) => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
    return ((Number(fields[11]) + Number(fields[12])) * 1e6) / ticks
  } catch {
    return 0
  }
}

/** The local ports of the process's TCP connections to PostgreSQL's port. */
const pgClientPorts = (pid: number, pgPort: number) => {
  const inodes = new Set<string>()
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`))
      if (m) inodes.add(m[1]!)
    } catch {}
  }
  const ports: Array<number> = []
  for (const file of ["/proc/net/tcp", "/proc/net/tcp6"]) {
    for (const line of readFileSync(file, "utf8").split("\n").slice(1)) {
      const f = line.trim().split(/\s+/)
      if (f.length < 10) continue
      const local = f[1]!.split(":")
      const remote = f[2]!.split(":")
      if (parseInt(remote[1]!, 16) === pgPort && inodes.has(f[9]!)) ports.push(parseInt(local[1]!, 16))
    }
  }
  return ports
}

const median = (xs: ReadonlyArray<number>) => {
  const s = [...xs].sort((a, b) => a - b)
  return s.length === 0
    ? Number.NaN
    : s.length % 2
      ? s[(s.length - 1) / 2]!
      : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2
}

const operator = (server: { readonly admin: string; readonly token: string }) => async (path: string, body: unknown) =>
  (await fetch(`${server.admin}${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${server.token}`, "content-type": "application/json" },
    body: JSON.stringify(body)
  }).then((r) => r.json())) as any

const json = { "content-type": "application/json" }
const stored = JSON.stringify({
  request: { op: "places", subjects: Array.from({ length: 10 }, (_, i) => `ChIJbenchstored${i}`) }
})

const main = async () => {
  const admin = new pg.Client({ connectionString: dbUrl })
  await admin.connect()
  const pgPort = Number(new URL(dbUrl).port || 5432)
  const nodeArgs = benchNodeOptions()
  const servers: Array<{
    readonly bundle: string
    readonly schema: string
    readonly server: Awaited<ReturnType<typeof spawnServer>>
    readonly keys: ReadonlyArray<string>
    readonly figures: Record<string, Array<{ server: number; pg: number }>>
  }> = []
  try {
    for (const [i, bundle] of bundles.entries()) {
      const schema = `benchcpu${i}_${Date.now().toString(36)}`
      await admin.query(`CREATE SCHEMA ${schema}`)
      const url = new URL(dbUrl)
      url.searchParams.set("options", `-c search_path=${schema}`)
      const server = await spawnServer(
        { DATABASE_URL: url.toString(), DATABASE_POOL: "20", SYNTHETIC_LATENCY_MS: "0" },
        nodeArgs,
        { entry: here(`../${bundle}`) }
      )
      const op = operator(server)
      const keys = await Promise.all(
        Array.from({ length: 200 }, async (_, j) => {
          const a = await op("/admin/accounts", { name: `bench ${j}`, credits: 1_000_000 })
          return (await op(`/admin/accounts/${a.accountId}/keys`, { name: "bench" })).key as string
        })
      )
      await fetch(`${server.api}/api/v1/platforms/maps`, {
        method: "POST",
        headers: { ...json, "x-api-key": keys[0]! },
        body: stored
      })
      servers.push({ bundle, schema, server, keys, figures: Object.fromEntries(only.map((name) => [name, []])) })
    }
    let n = 0
    const lines = {
      b: (s: (typeof servers)[number]) => ({
        url: `${s.server.api}/api/v1/platforms/maps`,
        method: "POST" as const,
        headers: { ...json, "x-api-key": s.keys[0]! },
        body: stored,
        amount: storedCalls
      }),
      c: (s: (typeof servers)[number]) => ({
        url: `${s.server.api}/api/v1/platforms/maps`,
        method: "POST" as const,
        amount: paidCalls,
        requests: [
          {
            setupRequest: (req: any) => {
              n++
              return {
                ...req,
                headers: { ...json, "x-api-key": s.keys[n % s.keys.length]! },
                body: JSON.stringify({ request: { op: "places", subjects: [`ChIJbenchcpu${n}x${Date.now()}`] } })
              }
            }
          }
        ]
      })
    }
    const chosen = Object.entries(lines).filter(([name]) => only.includes(name))
    const loads: Array<number> = []
    // warm-up: the JIT compiles on the first few thousand calls of each line
    for (const s of servers) {
      for (const [, line] of chosen) await autocannon({ connections: 20, ...line(s), amount: 2000 })
    }
    for (let r = 0; r < rounds; r++) {
      const order = r % 2 === 0 ? servers : [...servers].reverse()
      for (const s of order) {
        for (const [name, line] of chosen) {
          const pid = s.server.child.pid!
          const backends = async () =>
            (
              await admin.query("SELECT pid FROM pg_stat_activity WHERE client_port = ANY ($1::int[])", [
                pgClientPorts(pid, pgPort)
              ])
            ).rows.map((row) => Number(row.pid))
          const before = new Map((await backends()).map((b) => [b, cpuUs(b)]))
          const s0 = cpuUs(pid)
          const result = await autocannon({ connections: 20, ...line(s) })
          const s1 = cpuUs(pid)
          // a connection opened during the round counts whole; one closed during it is lost (rare: the pool is warm)
          const pg0 = [...before.values()].reduce((t, x) => t + x, 0)
          const pg1 = [...new Set([...before.keys(), ...(await backends())])].reduce(
            (t, b) => t + (cpuUs(b) || (before.get(b) ?? 0)),
            0
          )
          const ok = result.non2xx === 0 && result.errors === 0
          if (!ok) console.log(`${s.bundle} ${name}: ${result.non2xx} non-2xx, ${result.errors} errors`)
          const calls = result.requests.total
          s.figures[name]!.push({ server: (s1 - s0) / calls, pg: (pg1 - pg0) / calls })
          loads.push(loadavg()[0]!)
        }
      }
    }
    console.log(`load average during the rounds: ${Math.min(...loads).toFixed(1)} to ${Math.max(...loads).toFixed(1)}`)
    console.log("bundle            line  server us/call (median, all rounds)        PostgreSQL us/call")
    for (const s of servers) {
      for (const [name, f] of Object.entries(s.figures)) {
        const sv = f.map((x) => x.server)
        const pv = f.map((x) => x.pg)
        console.log(
          `${s.bundle.padEnd(17)} ${name.padEnd(5)} ${median(sv).toFixed(0).padStart(6)} (${sv.map((x) => x.toFixed(0)).join(" ")})   ${median(pv).toFixed(0).padStart(6)} (${pv.map((x) => x.toFixed(0)).join(" ")})`
        )
      }
    }
  } finally {
    for (const s of servers) {
      s.server.child.kill("SIGTERM")
      await s.server.exited
      await admin.query(`DROP SCHEMA ${s.schema} CASCADE`)
    }
    await admin.end()
  }
}

if (process.env["BENCH_CPU_BUILD"] !== "false")
  execFileSync(process.execPath, [here("../build.mjs")], { stdio: "inherit" })
await main()
