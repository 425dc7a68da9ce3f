/**
 * `pnpm bench:sqlcpu`: PostgreSQL's CPU per paid call in the statements of its group commits, without the server (issue
 * 22). Each bundle named in BENCH_SQL_BUNDLES (default `dist/main.js`) migrates its own fresh schema (its server is
 * started, then stopped); then, in each of BENCH_SQL_ROUNDS rounds (the order reversed every other round), one
 * connection per schema places BENCH_SQL_BATCHES batches of 20 holds over 200 accounts and settles them in batches of
 * 20 with a paid places call's records (as `pdr_place_holds` and `pdr_settle_batch_keep` are asked by the server), and
 * the CPU of that connection's backend (utime + stime of /proc/<pid>/stat) is divided by the calls. Printed per bundle:
 * the medians over the rounds, in microseconds per call, for the holds and the settles.
 */

import { readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import pg from "pg"
import { spawnServer } from "../test/processes.js"

const dbUrl = process.env["TEST_DATABASE_URL"] ?? "postgres://postgres@127.0.0.1:5432/test"
const here = (p: string) => fileURLToPath(new URL(p, import.meta.url))
const bundles = (process.env["BENCH_SQL_BUNDLES"] ?? "dist/main.js").split(",").filter((b) => b.length > 0)
const rounds = Number(process.env["BENCH_SQL_ROUNDS"] ?? 7)
const batches = Number(process.env["BENCH_SQL_BATCHES"] ?? 100)
const size = 20

const cpuUs = (pid: number) => {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
  return ((Number(fields[11]) + Number(fields[12])) * 1e6) / 100
}
const median = (xs: ReadonlyArray<number>) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!

let serial = 0
const records = (entity: string, hold: string) => ({
  measurements: JSON.stringify([
    {
      platform: "maps",
      op: "places",
      entity,
      freshness_key: `maps/places/${entity}/{}`,
      measured_at: new Date().toISOString(),
      rows: [
        {
          subject: entity,
          placeId: entity,
          name: "Little Lab",
          address: "273 Open Street, Mumbai",
          lat: 2.437136,
          lon: 151.468073,
          rating: 3.8,
          reviewCount: 1808,
          categories: ["Museum", "Bakery"],
          phone: "+1-555-1075",
          website: "https://little-works.example",
          hours: {
            mon: "09:00-21:00",
            tue: "09:00-21:00",
            wed: "09:00-21:00",
            thu: "09:00-21:00",
            fri: "09:00-23:00",
            sat: "10:00-23:00",
            sun: "closed"
          },
          liveOccupancyPercent: 68
        }
      ],
      rows_asked: 1,
      exhaustive: true,
      found: true,
      source: "synthetic",
      hold_id: hold
    }
  ]),
  points: JSON.stringify([
    {
      platform: "maps",
      entity,
      store: "",
      stay: null,
      measured_at: new Date().toISOString(),
      metrics: { rating: 3.8, reviews: 1808, live_occupancy_percent: 68 },
      source: "synthetic"
    }
  ]),
  reveals: "[]"
})

const main = async () => {
  const admin = new pg.Client({ connectionString: dbUrl })
  await admin.connect()
  const targets: Array<{ bundle: string; schema: string; client: pg.Client; pid: number; accounts: Array<string> }> = []
  const figures = new Map<string, { holds: Array<number>; settles: Array<number> }>()
  try {
    for (const [i, bundle] of bundles.entries()) {
      const schema = `benchsql${i}_${Date.now().toString(36)}`
      await admin.query(`CREATE SCHEMA ${schema}`)
      const url = new URL(dbUrl)
      url.searchParams.set("options", `-c search_path=${schema}`)
      const server = await spawnServer({ DATABASE_URL: url.toString() }, [], { entry: here(`../${bundle}`) })
      server.child.kill("SIGTERM")
      await server.exited
      const client = new pg.Client({ connectionString: url.toString() })
      await client.connect()
      const pid = Number((await client.query("SELECT pg_backend_pid() AS p")).rows[0].p)
      const accounts = Array.from({ length: 200 }, (_, j) => `acct_bench_${j}`)
      await client.query(
        "INSERT INTO accounts (id, name, balance) SELECT a, a, 1000000000 FROM unnest($1::text[]) AS a",
        [accounts]
      )
      console.log(`${bundle}: backend ${pid}`)
      targets.push({ bundle, schema, client, pid, accounts })
      figures.set(bundle, { holds: [], settles: [] })
    }
    const run = async (t: (typeof targets)[number], record: boolean) => {
      let holdsUs = 0
      let settlesUs = 0
      for (let b = 0; b < batches; b++) {
        const asks = Array.from({ length: size }, () => {
          const n = serial++
          return { hold: `hold_bench_${n}`, account: t.accounts[n % t.accounts.length]!, entity: `ChIJbench${n}` }
        })
        const c0 = cpuUs(t.pid)
        await t.client.query(
          "SELECT * FROM pdr_place_holds($1::text[], $2::text[], $3::text[], $4::bigint[], $5::timestamptz[])",
          [
            asks.map((a) => a.hold),
            asks.map((a) => a.account),
            asks.map(() => null),
            asks.map(() => 4),
            asks.map(() => new Date(Date.now() + 60_000).toISOString())
          ]
        )
        const c1 = cpuUs(t.pid)
        const json = asks.map((a) => records(a.entity, a.hold))
        await t.client.query(
          `SELECT * FROM pdr_settle_batch_keep($1::text[], $2::text[], $3::bigint[], $4::text[], $5::text[], $6::text[],
             $7::text[], $8::text[], $9::integer[], $10::text[])`,
          [
            asks.map((a) => a.hold),
            asks.map((a) => a.account),
            asks.map(() => 4),
            asks.map(() => "maps places"),
            json.map((j) => j.measurements),
            json.map((j) => j.points),
            json.map((j) => j.reveals),
            asks.map(() => null),
            asks.map(() => null),
            asks.map(() => null)
          ]
        )
        const c2 = cpuUs(t.pid)
        holdsUs += c1 - c0
        settlesUs += c2 - c1
      }
      if (record) {
        figures.get(t.bundle)!.holds.push(holdsUs / (batches * size))
        figures.get(t.bundle)!.settles.push(settlesUs / (batches * size))
      }
    }
    for (const t of targets) await run(t, false)
    for (let r = 0; r < rounds; r++) for (const t of r % 2 === 0 ? targets : [...targets].reverse()) await run(t, true)
    console.log("bundle            holds us/call (median, rounds)        settles us/call (median, rounds)")
    for (const [bundle, f] of figures)
      console.log(
        `${bundle.padEnd(17)} ${median(f.holds).toFixed(0).padStart(5)} (${f.holds.map((x) => x.toFixed(0)).join(" ")})   ${median(f.settles).toFixed(0).padStart(5)} (${f.settles.map((x) => x.toFixed(0)).join(" ")})`
      )
  } finally {
    for (const t of targets) {
      await t.client.end()
      await admin.query(`DROP SCHEMA ${t.schema} CASCADE`)
    }
    await admin.end()
  }
}

await main()
