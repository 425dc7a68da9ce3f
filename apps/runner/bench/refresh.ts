/**
 * Refresh throughput: entities refreshed per second by one runner process and by two sharing the pass, over
 * BENCH_REFRESH_ENTITIES (10,000) pinned short_video profiles, on PostgreSQL (TEST_DATABASE_URL, a fresh schema per
 * scenario), synthetic upstream at zero latency. Printed as figures and the ratio of two runners to one; a script,
 * not a test. Run alone with `pnpm bench:refresh`; `pnpm bench` runs it after its own scenarios.
 */
import { spawn } from "node:child_process"
import { randomBytes } from "node:crypto"
import { fileURLToPath } from "node:url"
import { Core } from "@pdr/core"
import { Accounts, Catalogue, Demand, Freshness } from "@pdr/domain"
import { Effect, ManagedRuntime } from "effect"
import pg from "pg"

const dbUrl = process.env["TEST_DATABASE_URL"] ?? "postgres://postgres@127.0.0.1:5432/test"
const entities = Number(process.env["BENCH_REFRESH_ENTITIES"] ?? 10_000)
const main = fileURLToPath(new URL("../src/main.ts", import.meta.url))

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

const runner = (url: string, accountId: string) =>
  new Promise<{ code: number | null; summary: { seconds: number; refreshed: number; total: number } }>((resolve) => {
    let out = ""
    const child = spawn(process.execPath, ["--import", "tsx", "--conditions=@pdr/source", main, "once"], {
      env: {
        ...process.env,
        DATABASE_URL: url,
        DATABASE_POOL: "10",
        REFRESH_ACCOUNT_ID: accountId,
        REFRESH_BUDGET: String(entities * 10),
        REFRESH_CONCURRENCY: "16",
        REFRESH_PLATFORM_CONCURRENCY: "16",
        SYNTHETIC_LATENCY_MS: "0"
      },
      stdio: ["ignore", "pipe", "inherit"]
    })
    child.stdout.on("data", (d) => {
      out += d
    })
    child.once("exit", (code) => {
      const last = out
        .trim()
        .split("\n")
        .filter((l) => l.startsWith('{"pass"'))
        .at(-1)
      resolve({ code, summary: last ? JSON.parse(last) : { seconds: Number.NaN, refreshed: 0, total: 0 } })
    })
  })

/** Runs both scenarios; returns the lines to print. */
export const run = async (): Promise<ReadonlyArray<string>> => {
  const one = await seed(entities)
  const t1 = Date.now()
  const a = await runner(one.url, one.accountId)
  const wall1 = (Date.now() - t1) / 1000
  const two = await seed(entities)
  const t2 = Date.now()
  const [b, c] = await Promise.all([runner(two.url, two.accountId), runner(two.url, two.accountId)])
  const wall2 = (Date.now() - t2) / 1000
  await admin(`DROP SCHEMA ${one.schema} CASCADE; DROP SCHEMA ${two.schema} CASCADE`)
  // the pass's own time (from planning to the last result), as each runner reports it; two runners end together
  const rate1 = a.summary.refreshed / a.summary.seconds
  const rate2 = b.summary.refreshed / Math.max(b.summary.seconds, c.summary.seconds)
  const refreshed2 = Math.max(b.summary.refreshed, c.summary.refreshed)
  const ok = a.code === 0 && b.code === 0 && c.code === 0 && a.summary.refreshed === entities && refreshed2 === entities
  return [
    `r1 refresh, one runner, ${entities} entities: ${rate1.toFixed(0)} entities/s (pass ${a.summary.seconds} s, process ${wall1.toFixed(1)} s)`,
    `r2 refresh, two runners, ${entities} entities: ${rate2.toFixed(0)} entities/s (pass ${Math.max(b.summary.seconds, c.summary.seconds)} s, processes ${wall2.toFixed(1)} s)`,
    `r2 / r1 = ${(rate2 / rate1).toFixed(2)}${ok ? "" : "  (A RUNNER FAILED OR REFRESHED TOO FEW: see stderr)"}`
  ]
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  for (const line of await run()) console.log(line)
}
