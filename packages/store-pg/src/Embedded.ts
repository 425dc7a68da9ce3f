/**
 * The embedded default database: PGlite in-process, data under DATA_DIR, served over its socket server on
 * loopback so the unchanged PgClient, migrator and transactions run against it.
 */

import { mkdirSync } from "node:fs"
import { createServer } from "node:net"
import { join } from "node:path"
import { PGlite } from "@electric-sql/pglite"
import { PGLiteSocketServer } from "@electric-sql/pglite-socket"
import { Effect } from "effect"

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

/** Starts PGlite on `dataDir` (or in memory when undefined) and its socket server; yields the connection URL. */
export const start = (dataDir: string | undefined) =>
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
