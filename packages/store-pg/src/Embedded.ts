/**
 * The embedded default database: PGlite in-process, data under DATA_DIR, served over its socket server on
 * loopback so the unchanged PgClient, migrator and transactions run against it.
 */

import { closeSync, mkdirSync, openSync, readFileSync, unlinkSync, writeSync } from "node:fs"
import { createServer } from "node:net"
import { join } from "node:path"
import { PGlite } from "@electric-sql/pglite"
import { PGLiteSocketServer } from "@electric-sql/pglite-socket"
import { Effect, Schema } from "effect"

/** Another live process has the embedded database of this data directory open. */
export class DataDirInUse extends Schema.TaggedError<DataDirInUse>()("DataDirInUse", {
  dataDir: Schema.String,
  pid: Schema.Number
}) {
  override get message() {
    return (
      `DATA_DIR ${this.dataDir} is in use by process ${this.pid}: the embedded database belongs to one process ` +
      "(the server runs the nightly refresh itself; use `pnpm admin` against it, or set DATABASE_URL to share a PostgreSQL server)"
    )
  }
}

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM"
  }
}

/** The lock file of a data directory: its owner's pid; a lock whose owner is gone is taken over. */
export const lockPath = (dataDir: string) => join(dataDir, "pdr.lock")

/** Takes the data directory's lock for this process, released when the scope closes. */
export const lock = (dataDir: string) =>
  Effect.acquireRelease(
    Effect.suspend(() => {
      mkdirSync(dataDir, { recursive: true })
      const path = lockPath(dataDir)
      for (let attempt = 0; attempt < 3; attempt++) {
        try {
          const fd = openSync(path, "wx", 0o600)
          writeSync(fd, String(process.pid))
          closeSync(fd)
          return Effect.succeed(path)
        } catch (e) {
          if ((e as NodeJS.ErrnoException).code !== "EEXIST") return Effect.die(e)
        }
        let owner = Number.NaN
        try {
          owner = Number(readFileSync(path, "utf8").trim())
        } catch {}
        if (Number.isInteger(owner) && owner > 0 && alive(owner))
          return Effect.fail(new DataDirInUse({ dataDir, pid: owner }))
        try {
          unlinkSync(path)
        } catch {}
      }
      return Effect.die(new Error(`could not take the lock ${path}`))
    }),
    (path) =>
      Effect.sync(() => {
        try {
          if (readFileSync(path, "utf8").trim() === String(process.pid)) unlinkSync(path)
        } catch {}
      })
  )

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const probe = createServer()
    probe.once("error", reject)
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address()
      const port = typeof address === "object" && address !== null ? address.port : 0
      probe.close(() => resolve(port))
    })
  })

/** Starts PGlite on `dataDir` (after taking its lock: one process per data directory) (or in memory when undefined) and its socket server; yields the connection URL. */
export const start = (dataDir: string | undefined) =>
  Effect.zipRight(dataDir === undefined ? Effect.void : lock(dataDir), startUnlocked(dataDir))

const startUnlocked = (dataDir: string | undefined) =>
  Effect.acquireRelease(
    Effect.tryPromise(async () => {
      let db: PGlite
      if (dataDir === undefined) {
        db = await PGlite.create()
      } else {
        const dir = join(dataDir, "pglite")
        mkdirSync(dir, { recursive: true })
        db = await PGlite.create(dir)
      }
      const port = await freePort()
      const server = new PGLiteSocketServer({ db, port, host: "127.0.0.1", maxConnections: 1 })
      await server.start()
      return { db, server, url: `postgres://postgres@127.0.0.1:${port}/postgres` }
    }),
    ({ db, server }) =>
      Effect.promise(async () => {
        await server.stop()
        await db.close()
      })
  ).pipe(Effect.map(({ url }) => url))
