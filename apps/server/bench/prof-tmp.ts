import autocannon from "autocannon"
import pg from "pg"
import { spawnServer } from "/work/main/apps/server/test/processes.js"

const dbUrl = "postgres://postgres@127.0.0.1:5432/test"
const schema = `prof_${Date.now().toString(36)}`
const admin = new pg.Client({ connectionString: dbUrl })
await admin.connect()
await admin.query(`CREATE SCHEMA ${schema}`)
const url = new URL(dbUrl)
url.searchParams.set("options", `-c search_path=${schema}`)
const server = await spawnServer({ DATABASE_URL: url.toString(), DATABASE_POOL: "20" }, [
  "--cpu-prof",
  "--cpu-prof-dir=/tmp/prof"
])
const op = async (path: string, body: unknown) =>
  (await fetch(`${server.admin}${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${server.token}`, "content-type": "application/json" },
    body: JSON.stringify(body)
  }).then((r) => r.json())) as any
const a = await op("/admin/accounts", { name: "p", credits: 1_000_000 })
const key = (await op(`/admin/accounts/${a.accountId}/keys`, { name: "p" })).key
const json = { "content-type": "application/json", "x-api-key": key }
const stored = JSON.stringify({
  request: { op: "places", subjects: Array.from({ length: 10 }, (_, i) => `ChIJbenchstored${i}`) }
})
await fetch(`${server.api}/api/v1/platforms/maps`, { method: "POST", headers: json, body: stored })
const which = process.argv[2]
if (which === "d") {
  await admin.query(
    `INSERT INTO ${schema}.history_points (platform, entity, store, measured_at, metrics, source) SELECT 'maps', 'ChIJbenchhist' || lpad((g % 1370)::text, 6, '0'), '', now() - ((g / 1370) * interval '1 day') - interval '1 hour', jsonb_build_object('rating', 3 + (g % 20) / 10.0), 'synthetic' FROM generate_series(0, 299999) AS g`
  )
  const history = JSON.stringify({
    request: {
      op: "history",
      subjects: Array.from({ length: 10 }, (_, i) => `ChIJbenchhist${String(i).padStart(6, "0")}`),
      metric: "rating",
      days: 730
    }
  })
  const r = await autocannon({
    url: `${server.api}/api/v1/platforms/maps`,
    method: "POST",
    headers: json,
    body: history,
    connections: 10,
    duration: 5
  })
  console.log("d", r.requests.average, r.latency.p50)
} else {
  const r = await autocannon({
    url: `${server.api}/api/v1/platforms/maps`,
    method: "POST",
    headers: json,
    body: stored,
    connections: 50,
    duration: 5
  })
  console.log("b", r.requests.average, r.latency.p50)
}
server.child.kill("SIGTERM")
await server.exited
await admin.query(`DROP SCHEMA ${schema} CASCADE`)
await admin.end()
