// Runner processes (spawned from the runner's bundle, built before the suite by the vitest set-up
// `tooling/vitest/bundles.js`; killed by signal) over a fresh schema of the real server, and the set-up of
// tracked entities through real calls (demand noted by Calls), aged a day so the refresh finds them due.
import { type ChildProcess, spawn } from "node:child_process"
import { fileURLToPath } from "node:url"
import { Core } from "@pdr/core"
import { Accounts, Calls } from "@pdr/domain"
import type { Database } from "@pdr/store-pg"
import * as Testing from "@pdr/store-pg/Testing"
import { Effect, Exit, ManagedRuntime, Scope } from "effect"
import pg from "pg"

// `pnpm runner` runs the sources under tsx (5 s of CPU to start here), the bundle the same code in under 1 s
const main = fileURLToPath(new URL("../dist/main.js", import.meta.url))
const source = fileURLToPath(new URL("../src/main.ts", import.meta.url))

export interface RunnerProcess {
  readonly child: ChildProcess
  readonly output: () => string
  readonly stdout: () => string
  readonly exited: Promise<number | null>
}

/**
 * Spawns `runner` with these arguments and environment (a variable set to "" is removed): its bundle, or with `source`
 * its sources under tsx, as `pnpm runner` starts it.
 */
export const spawnRunner = (
  args: ReadonlyArray<string>,
  env: Record<string, string>,
  options: { readonly source?: boolean } = {}
): RunnerProcess => {
  let output = ""
  let stdout = ""
  const merged: Record<string, string | undefined> = { ...process.env, SYNTHETIC_SHORT_LISTS: "false", ...env }
  for (const [k, v] of Object.entries(env)) if (v === "") delete merged[k]
  const child = spawn(
    process.execPath,
    options.source ? ["--import", "tsx", "--conditions=@pdr/source", source, ...args] : [main, ...args],
    {
      env: merged,
      stdio: ["ignore", "pipe", "pipe"]
    }
  )
  child.stdout!.on("data", (d) => {
    output += d
    stdout += d
  })
  child.stderr!.on("data", (d) => {
    output += d
  })
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)))
  return { child, output: () => output, stdout: () => stdout, exited }
}

/**
 * Spawns the runner's bundle on a terminal (a pseudo-terminal of util-linux's `script`, as an operator runs it), its
 * output as the terminal received it (stdout and stderr interleaved, as written).
 */
export const spawnRunnerOnTerminal = (args: ReadonlyArray<string>, env: Record<string, string>): RunnerProcess => {
  const command = [process.execPath, main, ...args].map((a) => `'${a.replaceAll("'", `'\\''`)}'`).join(" ")
  let output = ""
  const child = spawn("script", ["--quiet", "--flush", "--return", "--command", command, "/dev/null"], {
    env: { ...process.env, SYNTHETIC_SHORT_LISTS: "false", TERM: "xterm", COLUMNS: "200", ...env },
    stdio: ["ignore", "pipe", "pipe"]
  })
  child.stdout!.on("data", (d) => {
    output += d
  })
  child.stderr!.on("data", (d) => {
    output += d
  })
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)))
  return { child, output: () => output, stdout: () => output, exited }
}

/** A terminal's control sequence (ESC [ ... letter) at the start of a text. */
const controlSequence = new RegExp(`^${String.fromCharCode(27)}\\[([0-9;?]*)([A-Za-z])`)

/**
 * The lines a terminal shows for this output: a carriage return goes back to the line's start, `ESC [2K` erases the
 * line, other escapes (styles) are dropped, text overwrites from the cursor.
 */
export const screenLines = (raw: string): Array<string> => {
  const lines: Array<string> = []
  let line = ""
  let cursor = 0
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i]!
    if (c === "\n") {
      lines.push(line)
      line = ""
      cursor = 0
    } else if (c === "\r") cursor = 0
    else if (c === "\x1b") {
      const m = controlSequence.exec(raw.slice(i))
      if (m === null) continue
      if (m[2] === "K" && m[1] === "2") {
        line = ""
        cursor = 0
      }
      i += m[0].length - 1
    } else {
      line = line.slice(0, cursor) + c + line.slice(cursor + 1)
      cursor++
    }
  }
  if (line !== "") lines.push(line)
  return lines
}

/** The last JSON line a runner printed on stdout. */
export const lastJson = (text: string): any =>
  JSON.parse(
    text
      .trim()
      .split("\n")
      .filter((l) => l.startsWith("{"))
      .at(-1)!
  )

/** One query on the schema. */
export const query = async (url: string, text: string, values: ReadonlyArray<unknown> = []): Promise<Array<any>> => {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    return (await client.query(text, values as Array<unknown>)).rows
  } finally {
    await client.end()
  }
}

export interface World {
  readonly url: string
  readonly refreshAccount: string
  readonly subjects: ReadonlyArray<string>
  readonly env: (extra?: Record<string, string>) => Record<string, string>
  readonly close: () => Promise<void>
}

/** `n` short_video profiles (2 credits each) asked by a customer, so they are tracked; measured a day ago. */
export const world = async (n: number, refreshCredits = 100_000): Promise<World> => {
  const scope = Effect.runSync(Scope.make())
  const target = (await Effect.runPromise(Scope.extend(Testing.freshServerSchema(), scope))) as Extract<
    Database.Target,
    { _tag: "Server" }
  >
  const runtime = ManagedRuntime.make(Core.layer({ target, knobs: { shortLists: false } }))
  const subjects = Array.from({ length: n }, (_, i) => `creator.${i}`)
  const refreshAccount = await runtime.runPromise(
    Effect.gen(function* () {
      const accounts = yield* Accounts.Accounts
      const calls = yield* Calls.Calls
      const customer = yield* accounts.create({ name: "customer", credits: 1_000_000 })
      const refresh = yield* accounts.create({ name: "refresh", credits: refreshCredits })
      const caller = { accountId: customer.id, keyId: "k", prefix: "p" }
      for (let i = 0; i < n; i += 10) {
        yield* calls.call(caller, "short_video", { request: { op: "profiles", subjects: subjects.slice(i, i + 10) } })
      }
      return refresh.id
    })
  )
  await runtime.dispose() // flushes the demand buffer
  await query(target.url, "UPDATE measurements SET measured_at = measured_at - interval '1 day'")
  await query(target.url, "UPDATE history_values SET measured_at = measured_at - interval '1 day'")
  return {
    url: target.url,
    refreshAccount,
    subjects,
    env: (extra = {}) => ({
      DATABASE_URL: target.url,
      DATABASE_POOL: "4",
      REFRESH_ACCOUNT_ID: refreshAccount,
      ...extra
    }),
    close: () => Effect.runPromise(Scope.close(scope, Exit.void))
  }
}

/** History points (distinct measurement instants) per short_video subject. */
export const pointsPerSubject = async (url: string) => {
  const rows = await query(
    url,
    "SELECT entity, count(DISTINCT measured_at)::int AS n FROM history_values WHERE platform = 'short_video' GROUP BY entity"
  )
  return new Map(rows.map((r) => [r.entity as string, r.n as number]))
}

/** Captures of a pass in the ledger: how many and how many credits. */
export const captures = async (url: string, pass: string) => {
  const [r] = await query(
    url,
    "SELECT count(*)::int AS n, coalesce(-sum(credits), 0)::int AS credits FROM ledger WHERE key_id LIKE $1 AND kind = 'capture'",
    [`refresh:${pass}:%`]
  )
  return r as { n: number; credits: number }
}

/**
 * What a pass reserved of its budget and what its results were charged (issue 19: with no batch running, the two are
 * equal: every batch's unspent reservation came back when its hold was closed).
 */
export const budgetSpent = async (url: string, pass: string) => {
  const [r] = await query(
    url,
    `SELECT p.reserved::int AS reserved,
       (SELECT coalesce(sum(credits), 0)::int FROM refresh_results WHERE pass_id = p.id) AS charged
     FROM refresh_passes p WHERE p.id = $1`,
    [pass]
  )
  return r as { reserved: number; charged: number }
}

/** Every account reconciles (balance == grants - captures) and no hold is left held. */
export const reconciles = async (url: string) => {
  const bad = await query(
    url,
    `SELECT a.id FROM accounts a LEFT JOIN ledger l ON l.account_id = a.id
     GROUP BY a.id, a.balance HAVING a.balance <> coalesce(sum(l.credits), 0)`
  )
  const held = await query(url, "SELECT count(*)::int AS n FROM holds WHERE status = 'held'")
  return bad.length === 0 && held[0].n === 0
}

/** Today's pass id, as the runner names it. */
export const todaysPass = () => new Date().toISOString().slice(0, 10)

/**
 * Issue 19's budget invariants of an ended pass: no reservation or hold of it left; what it reserved equals what its
 * results were charged, and what the ledger captured for it; never above its budget; no account below zero.
 */
export const passInvariants = async (url: string, pass: string) => {
  const [r] = await query(
    url,
    `SELECT p.reserved::int AS reserved, p.budget::int AS budget,
       (SELECT coalesce(sum(credits), 0)::int FROM refresh_results WHERE pass_id = p.id) AS charged,
       (SELECT coalesce(-sum(credits), 0)::int FROM ledger WHERE key_id LIKE 'refresh:' || p.id || ':%'
         AND kind = 'capture') AS captured,
       (SELECT count(*)::int FROM refresh_reservations WHERE pass_id = p.id) AS reservations,
       (SELECT count(*)::int FROM holds WHERE status = 'held' AND key_id LIKE 'refresh:' || p.id || ':%') AS held,
       (SELECT count(*)::int FROM accounts WHERE balance < 0 OR balance - held < 0) AS negative
     FROM refresh_passes p WHERE p.id = $1`,
    [pass]
  )
  return {
    ...r,
    reservedIsCharged: r.reserved === r.charged,
    capturedIsCharged: r.captured === r.charged,
    reservedIsCaptured: r.reserved === r.captured,
    withinBudget: r.reserved <= r.budget
  } as {
    reserved: number
    budget: number
    charged: number
    captured: number
    reservations: number
    held: number
    negative: number
    reservedIsCharged: boolean
    capturedIsCharged: boolean
    reservedIsCaptured: boolean
    withinBudget: boolean
  }
}

/** `passInvariants` as they hold at an ended pass (for `toMatchObject`). */
export const heldInvariants = {
  reservations: 0,
  held: 0,
  negative: 0,
  reservedIsCharged: true,
  capturedIsCharged: true,
  reservedIsCaptured: true,
  withinBudget: true
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** Whether `what` came true within `ms` (looked at every 50 ms). */
export const waitFor = async (what: () => Promise<boolean>, ms: number) => {
  const until = Date.now() + ms
  while (Date.now() < until) {
    if (await what()) return true
    await sleep(50)
  }
  return false
}
