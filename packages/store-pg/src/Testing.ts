/**
 * Storage targets for tests: a fresh schema on the real PostgreSQL server (TEST_DATABASE_URL, default the local
 * `test` database) and the embedded default (PGlite, in memory). With CI=true an unreachable server fails loudly;
 * elsewhere its tests are skipped with a warning.
 */

import { randomBytes } from "node:crypto"
import { connect, createServer, type Server, type Socket } from "node:net"
import { Effect } from "effect"
import pg from "pg"
import type { Target } from "./Database.js"

/** The real server used by tests. */
export const serverUrl = process.env["TEST_DATABASE_URL"] ?? "postgres://postgres@127.0.0.1:5432/test"

/** Which targets this run covers: PDR_TEST_STORES=server,embedded (the default: both). */
export const wanted = (process.env["PDR_TEST_STORES"] ?? "server,embedded").split(",").map((s) => s.trim())

const reachable = async () => {
  const client = new pg.Client({ connectionString: serverUrl, connectionTimeoutMillis: 3000 })
  try {
    await client.connect()
    await client.query("select 1")
    return true
  } catch {
    return false
  } finally {
    await client.end().catch(() => {})
  }
}

/** Whether the real server can be used; throws under CI=true when it cannot. */
export const serverAvailable = async (): Promise<boolean> => {
  if (!wanted.includes("server")) return false
  if (await reachable()) return true
  if (process.env["CI"] === "true") throw new Error(`CI=true and the PostgreSQL server at ${serverUrl} is unreachable`)
  console.warn(
    `[pdr] PostgreSQL at ${serverUrl} is unreachable: real-server tests are skipped (CI=true makes this fatal)`
  )
  return false
}

const withSearchPath = (url: string, schema: string) => {
  const u = new URL(url)
  u.searchParams.set("options", `-c search_path=${schema}`)
  return u.toString()
}

/** A fresh schema on the real server, dropped when the scope closes. */
export const freshServerSchema = (maxConnections = 10) =>
  Effect.acquireRelease(
    Effect.promise(async () => {
      const schema = `t_${randomBytes(6).toString("hex")}`
      const client = new pg.Client({ connectionString: serverUrl })
      await client.connect()
      await client.query(`CREATE SCHEMA ${schema}`)
      await client.end()
      return schema
    }),
    (schema) =>
      Effect.promise(async () => {
        const client = new pg.Client({ connectionString: serverUrl })
        await client.connect()
        await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`)
        await client.end()
      })
  ).pipe(Effect.map((schema): Target => ({ _tag: "Server", url: withSearchPath(serverUrl, schema), maxConnections })))

/** The embedded default, in memory. */
export const embedded: Target = { _tag: "Embedded", dataDir: undefined }

/** Runs `text` (one or more statements) as the test server's user on a connection of its own; the last one's rows. */
export const asSuperuser = async (text: string): Promise<Array<Record<string, unknown>>> => {
  const c = new pg.Client({ connectionString: serverUrl })
  await c.connect()
  try {
    const r = await c.query(text)
    return (Array.isArray(r) ? r.at(-1)?.rows : r.rows) ?? []
  } finally {
    await c.end()
  }
}

/** The targets of this run, by name, with whether each is usable. */
export const targets = async () => {
  const server = await serverAvailable()
  return [
    { name: "postgres", enabled: server, target: freshServerSchema() },
    { name: "embedded", enabled: wanted.includes("embedded"), target: Effect.succeed(embedded) }
  ] as const
}

/**
 * A TCP proxy on loopback to a PostgreSQL server, for outage tests: `up` listens (on the same port again after a
 * `down`) and answers its port; `down` cuts every connection and refuses new ones (a restart, a failover); `freeze`
 * passes nothing either way, the connections kept and new ones held (a partition: no error, no answer); `thaw` lets
 * everything go on; `lose` makes the connections open now pass nothing for good, kept open and never cut, while new
 * ones pass (a path gone without a word: a host failed over or powered off, a dropped NAT entry). `cutInFlight` counts
 * the connections `down` cut while a statement sent on them waited for its answer (the client sent after the server's
 * last bytes): an outage test's proof that it cut statements, not only idle connections.
 */
export const tcpProxy = (target: { readonly host: string; readonly port: number }) => {
  const sockets = new Set<Socket>()
  const pairs = new Set<readonly [Socket, Socket]>()
  const lost = new Set<Socket>()
  let server: Server | undefined
  let port = 0
  let frozen = false
  // the pairs whose client sent after the server last answered (a statement in flight)
  const awaiting = new Set<readonly [Socket, Socket]>()
  let cutInFlight = 0
  // (stopped by unpiping, then pausing: pipe() resumes its source, and so does a drain, so a pause alone let new
  // connections through a freeze)
  const stop = ([client, upstream]: readonly [Socket, Socket]) => {
    client.unpipe(upstream)
    upstream.unpipe(client)
    client.pause()
    upstream.pause()
  }
  const pass = ([client, upstream]: readonly [Socket, Socket]) => {
    client.pipe(upstream)
    upstream.pipe(client)
  }
  const serve = (client: Socket) => {
    const upstream = connect(target.port, target.host)
    const pair = [client, upstream] as const
    pairs.add(pair)
    client.on("data", () => awaiting.add(pair))
    upstream.on("data", () => awaiting.delete(pair))
    for (const s of pair) {
      sockets.add(s)
      s.on("error", () => {})
      s.on("close", () => {
        sockets.delete(s)
        pairs.delete(pair)
        awaiting.delete(pair)
        client.destroy()
        upstream.destroy()
      })
    }
    if (frozen) stop(pair)
    else pass(pair)
  }
  const up = () =>
    new Promise<number>((resolve) => {
      const listening = createServer(serve)
      server = listening
      listening.listen(port, "127.0.0.1", () => {
        port = (listening.address() as { port: number }).port
        resolve(port)
      })
    })
  const down = () => {
    // (close's callback waits for the open connections: they are cut first)
    const closed = new Promise<void>((resolve) => (server === undefined ? resolve() : server.close(() => resolve())))
    server = undefined
    for (const pair of pairs) if (awaiting.has(pair)) cutInFlight++
    for (const s of [...sockets, ...lost]) s.destroy()
    lost.clear()
    return closed
  }
  const freeze = () => {
    frozen = true
    for (const pair of pairs) stop(pair)
  }
  const thaw = () => {
    if (!frozen) return
    frozen = false
    for (const pair of pairs) pass(pair)
  }
  const lose = () => {
    for (const pair of pairs) {
      stop(pair)
      for (const s of pair) {
        sockets.delete(s)
        lost.add(s)
      }
    }
    pairs.clear()
  }
  return { up, down, freeze, thaw, lose, cutInFlight: () => cutInFlight }
}

/** `url` through a proxy listening on `port` (the same database, user and options). */
export const throughPort = (url: string, port: number): string => {
  const u = new URL(url)
  u.port = String(port)
  return u.toString()
}

/** The pg client's error when the server end closes the connection at once (a database that drops it). */
export const droppedConnection = async (): Promise<unknown> => {
  const server = createServer((socket) => socket.destroy())
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const port = (server.address() as { port: number }).port
  const client = new pg.Client({ host: "127.0.0.1", port, user: "x", database: "x", connectionTimeoutMillis: 2000 })
  try {
    await client.connect()
    return undefined
  } catch (e) {
    return e
  } finally {
    server.close()
  }
}
