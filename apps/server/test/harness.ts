// A real server on loopback (port 0) over a storage target, with a clock the test moves instead of sleeping.
import { Api } from "@pdr/http-api"
import type { Database } from "@pdr/store-pg"
import * as Testing from "@pdr/store-pg/Testing"
import { SyntheticUpstream } from "@pdr/upstream-synthetic"
import { Clock, Effect, Exit, Layer, ManagedRuntime, Redacted, Schema, Scope } from "effect"
import pg from "pg"
import * as Server from "../src/Server.js"

/** A clock that runs `offset.ms` ahead of the real one. */
export const offsetClock = (offset: { ms: number }): Clock.Clock => {
  const base = Clock.make()
  const clock = Object.create(base) as Clock.Clock
  const millis = () => base.unsafeCurrentTimeMillis() + offset.ms
  Object.assign(clock, {
    unsafeCurrentTimeMillis: millis,
    currentTimeMillis: Effect.sync(millis),
    unsafeCurrentTimeNanos: () => BigInt(millis()) * 1_000_000n,
    currentTimeNanos: Effect.sync(() => BigInt(millis()) * 1_000_000n)
  })
  return clock
}

export interface Running {
  readonly api: string
  readonly admin: string
  readonly token: string
  readonly offset: { ms: number }
  readonly close: () => Promise<void>
}

/** Starts a server over a target (a fresh schema on the real server by default). */
export const start = async (
  options: {
    readonly target?: Effect.Effect<Database.Target, never, Scope.Scope>
    readonly knobs?: Partial<SyntheticUpstream.Knobs>
    readonly options?: Partial<Server.Options>
  } = {}
): Promise<Running> => {
  const offset = { ms: 0 }
  const token = `op_test_${Math.random().toString(36).slice(2)}`
  const target = options.target ?? Testing.freshServerSchema()
  const layer = Layer.unwrapScoped(
    Effect.map(target, (t) =>
      Server.layer({
        port: 0,
        host: "127.0.0.1",
        adminPort: 0,
        adminHost: "127.0.0.1",
        adminToken: Redacted.make(token),
        target: t,
        knobs: { ...SyntheticUpstream.defaults, ...options.knobs },
        rateLimit: { perSecond: 10_000, burst: 10_000 },
        authFailureLimit: { perSecond: 10_000, burst: 10_000 },
        ...options.options
      })
    )
  ).pipe(Layer.provide(Layer.setClock(offsetClock(offset))))
  const runtime = ManagedRuntime.make(layer)
  const api = await runtime.runPromise(Server.PublicUrl)
  const admin = await runtime.runPromise(Server.AdminUrl)
  return { api, admin, token, offset, close: () => runtime.dispose() }
}

export interface Reply {
  readonly status: number
  readonly headers: Headers
  readonly body: any
  readonly text: string
}

/** One HTTP request; the body is parsed when it is JSON. */
export const request = async (url: string, init: RequestInit = {}): Promise<Reply> => {
  const res = await fetch(url, init)
  const text = await res.text()
  let body: unknown
  try {
    body = JSON.parse(text)
  } catch {}
  // every 200 op answer must be what the API publishes (the server writes it without re-encoding it)
  if (res.status === 200 && (init.method ?? "GET") === "POST" && /\/api\/v1\/platforms\/[^/]+$/.test(url)) {
    decodeOpResponse(body)
  }
  return { status: res.status, headers: res.headers, body, text }
}

const decodeOpResponse = Schema.decodeUnknownSync(Api.OpResponse, { onExcessProperty: "error" })

/** A POST of a JSON body with an API key. */
export const post = (server: Running, path: string, body: unknown, key: string, headers: Record<string, string> = {}) =>
  request(`${server.api}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-api-key": key, ...headers },
    body: JSON.stringify(body)
  })

/** An operator call. */
export const admin = async (server: Running, method: string, path: string, body?: unknown) => {
  const r = await request(`${server.admin}${path}`, {
    method,
    headers: { authorization: `Bearer ${server.token}`, "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) })
  })
  if (r.status >= 400) throw new Error(`operator ${method} ${path}: ${r.status} ${r.text}`)
  return r.body
}

/** A new account with credits and a key. */
export const account = async (server: Running, credits: number, name = "test") => {
  const created = await admin(server, "POST", "/admin/accounts", { name, credits })
  const key = await admin(server, "POST", `/admin/accounts/${created.accountId}/keys`, { name: `${name} key` })
  return { accountId: created.accountId as string, key: key.key as string, keyId: key.keyId as string }
}

/** Spendable credits of the key's account. */
export const balance = async (server: Running, key: string) =>
  (await request(`${server.api}/api/v1/balance`, { headers: { "x-api-key": key } })).body.creditsRemaining as number

/** A server on a fresh schema of the real PostgreSQL server, with a client of that schema to read what it holds. */
export const startWithDatabase = async (options: Parameters<typeof start>[0] = {}) => {
  const scope = Effect.runSync(Scope.make())
  const target = await Effect.runPromise(Scope.extend(Testing.freshServerSchema(), scope))
  if (target._tag !== "Server") throw new Error("expected a server target")
  const server = await start({ ...options, target: Effect.succeed(target) })
  const db = new pg.Client({ connectionString: target.url })
  await db.connect()
  const close = async () => {
    await db.end()
    await server.close()
    await Effect.runPromise(Scope.close(scope, Exit.void))
  }
  return { server, db, url: target.url, close }
}
