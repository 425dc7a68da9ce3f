// A real server on loopback (port 0) over a storage target, with a clock the test moves instead of sleeping.
import { Api } from "@pdr/http-api"
import type { Database } from "@pdr/store-pg"
import * as Testing from "@pdr/store-pg/Testing"
import { SyntheticUpstream } from "@pdr/upstream-synthetic"
import { Ajv2020 } from "ajv/dist/2020.js"
import addFormatsModule from "ajv-formats"
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
  publicOrigins.add(api)
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
  const reply = { status: res.status, headers: res.headers, body, text }
  await conforms(url, init.method ?? "GET", reply)
  return reply
}

// ajv-formats is CommonJS: its default export is the module object under NodeNext
const formats = addFormatsModule as unknown as { default?: (ajv: Ajv2020) => unknown }
const addFormats = (formats.default ?? (addFormatsModule as unknown as (ajv: Ajv2020) => unknown)) as (
  ajv: Ajv2020
) => unknown

/** A JSON Schema 2020-12 validator (ajv) with the formats of ajv-formats: what published schemas are checked with. */
export const jsonSchemas = () => {
  const ajv = new Ajv2020({ strict: false, allErrors: true })
  addFormats(ajv)
  return ajv
}

const publicOrigins = new Set<string>()
const contracts = new Map<string, Promise<Contract>>()

interface Contract {
  readonly doc: any
  readonly ajv: Ajv2020
}

const contractOf = (origin: string) => {
  let found = contracts.get(origin)
  if (found === undefined) {
    found = fetch(`${origin}/openapi.json`)
      .then((r) => r.json())
      .then((doc: any) => {
        const ajv = jsonSchemas()
        ajv.addSchema({ ...doc, $id: "openapi.json" })
        return { doc, ajv }
      })
    contracts.set(origin, found)
  }
  return found
}

const pointer = (...parts: ReadonlyArray<string>) =>
  parts.map((p) => p.replace(/~/g, "~0").replace(/\//g, "~1")).join("/")

const check = (contract: Contract, ref: string, value: unknown, what: string) => {
  const validate = contract.ajv.getSchema(`openapi.json#/${ref}`)
  if (validate === undefined) throw new Error(`the contract has no schema at ${ref}`)
  if (!validate(value))
    throw new Error(`${what} breaks the published contract: ${contract.ajv.errorsText(validate.errors).slice(0, 1500)}`)
}

/**
 * Every answer of the public API must be what its OpenAPI document says (the document it serves): the status is one
 * the endpoint declares, the body matches that status's schema, required headers are present and every declared
 * header matches its schema. An undocumented route answers the generic 404 error body.
 */
export const conforms = async (url: string, method: string, reply: Reply) => {
  const u = new URL(url)
  // the dashboard's pages and forms (D20) are HTML outside the public contract
  if (!publicOrigins.has(u.origin) || u.pathname === "/openapi.json" || u.pathname === "/docs") return
  if (u.pathname === "/dashboard" || u.pathname.startsWith("/dashboard/")) return
  const contract = await contractOf(u.origin)
  // a templated path (`/api/v1/calls/{id}`) matches any one segment in its place
  const template =
    contract.doc.paths[u.pathname] === undefined
      ? Object.keys(contract.doc.paths).find((p) =>
          new RegExp(`^${p.replace(/\{[^}]+\}/g, "[^/]+")}$`).test(u.pathname)
        )
      : undefined
  const item = contract.doc.paths[template ?? u.pathname]?.[method.toLowerCase()]
  const what = `${method} ${u.pathname} ${reply.status}`
  if (item === undefined) {
    if (reply.status === 404 || reply.status === 405)
      return check(contract, pointer("components", "schemas", "Error404"), reply.body, what)
    if (reply.status >= 400 && contract.doc.components.schemas[`Error${reply.status}`] !== undefined)
      return check(contract, pointer("components", "schemas", `Error${reply.status}`), reply.body, what)
    throw new Error(`${what}: an undocumented route answered ${reply.status}`)
  }
  const declared = item.responses[String(reply.status)]
  if (declared === undefined) throw new Error(`${what}: status not declared for this endpoint`)
  check(
    contract,
    pointer(
      "paths",
      template ?? u.pathname,
      method.toLowerCase(),
      "responses",
      String(reply.status),
      "content",
      "application/json",
      "schema"
    ),
    reply.body,
    what
  )
  for (const [name, header] of Object.entries<any>(declared.headers ?? {})) {
    const resolved = header.$ref ? contract.doc.components.headers[header.$ref.split("/").pop()] : header
    const value = reply.headers.get(name)
    if (value === null) {
      if (resolved.required) throw new Error(`${what}: header ${name} is required by the contract`)
      continue
    }
    const schema = resolved.schema
    const typed = schema.type === "integer" || schema.type === "number" ? Number(value) : value
    const ref = header.$ref
      ? pointer("components", "headers", header.$ref.split("/").pop(), "schema")
      : pointer(
          "paths",
          template ?? u.pathname,
          method.toLowerCase(),
          "responses",
          String(reply.status),
          "headers",
          name,
          "schema"
        )
    check(contract, ref, typed, `${what} header ${name}`)
  }
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
