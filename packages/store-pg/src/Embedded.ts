/**
 * The embedded default database: PGlite in-process, data under DATA_DIR, served over its socket server on
 * loopback so the unchanged PgClient, migrator and transactions run against it.
 */

import { execFile } from "node:child_process"
import {
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  unlinkSync,
  writeFileSync,
  writeSync
} from "node:fs"
import { createRequire } from "node:module"
import { createServer } from "node:net"
import { dirname, join } from "node:path"
import { setFlagsFromString } from "node:v8"
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

/**
 * PGlite's start parameters with 16 MB of shared buffers instead of PostgreSQL's 128 MB (issue 22: the embedded
 * default's memory; the data directory's files stay in the OS cache): 347 -> 220 MB resident after opening a data
 * directory, measured here.
 */
export const startParams = [...PGlite.defaultStartParams, "-c", "shared_buffers=16MB"]

/**
 * initdb's own settings (PGlite's `initDbStartParams`, passed to initdb after its defaults): initdb's `-c name=value`
 * (PostgreSQL 16 and later; PGlite runs 18) sets a parameter while initdb runs and writes it into the new directory's
 * postgresql.conf (https://www.postgresql.org/docs/current/app-initdb.html; checked here: the file says
 * `shared_buffers = 16MB`). Without it initdb probes shared_buffers from 128 MB down and the WebAssembly memory of
 * each of its two PostgreSQL instances grows to 189 MB: 850 -> about 710 MB peak in the short-lived process that
 * creates the directory.
 */
export const initDbParams = ["-c", "shared_buffers=16MB"]

/**
 * V8's option for WebAssembly (`node --v8-options`: "--liftoff-only: disallow TurboFan compilation for WebAssembly"):
 * PostgreSQL's WebAssembly stays in V8's baseline compiler (Liftoff) and is never recompiled by the optimising one
 * (TurboFan), whose code and compile-time memory stay resident: 294 -> 213 MB resident idle for the server started
 * on a new data directory, and PGlite opens in 0.7 instead of 1.1 s (measured here, issue 22). Short statements
 * (the paid call's) run at the same rate (482 transactions/s of an update and a select on PGlite alone, 456 with
 * TurboFan); a query that computes over many rows takes 1.3-1.5 times as long. Set before PGlite compiles its
 * module; the server on a PostgreSQL server never loads it.
 */
export const wasmFlags = "--liftoff-only"

/**
 * Creates a new data directory in a short-lived child process, from `from` (the template of the installed PGlite,
 * PGlite's `loadDataDir`) when given, else by PGlite's initdb. initdb runs a second PostgreSQL instance and copies its
 * 128 MB memory before each of its runs, about 710 MB at its peak (850 before `initDbParams`), which a WebAssembly
 * instance never gives back: done in the server's process it would stay resident for the process's life (about 800
 * MB idle instead of about 200). From the template the child peaks at about 270 MB; in the server's own process it
 * left about 40 MB more resident 10 s later (its closed instance not yet collected), so it runs in the child too. The
 * child only makes the directory and exits; it runs with `wasmFlags` (initdb: about 620 MB peak, and quicker).
 */
const initialize = (dir: string, from: string | undefined) =>
  new Promise<void>((resolve, reject) => {
    const pglite = createRequire(import.meta.url).resolve("@electric-sql/pglite")
    execFile(
      process.execPath,
      [
        wasmFlags,
        "-e",
        "const { PGlite } = require(process.env.PDR_PGLITE); const from = process.env.PDR_PGLITE_TEMPLATE; " +
          "PGlite.create(process.env.PDR_PGLITE_DIR, from ? { loadDataDir: new Blob([require('node:fs').readFileSync(from)]) } " +
          ": { initDbStartParams: JSON.parse(process.env.PDR_PGLITE_INITDB) }).then((db) => db.close())"
      ],
      {
        env: {
          ...process.env,
          PDR_PGLITE: pglite,
          PDR_PGLITE_DIR: dir,
          PDR_PGLITE_INITDB: JSON.stringify(initDbParams),
          PDR_PGLITE_TEMPLATE: from ?? ""
        }
      },
      (error, _stdout, stderr) =>
        error ? reject(new Error(`the embedded database could not be created: ${stderr}`)) : resolve()
    )
  })

/** The installed PGlite's version (its package.json, beside the entry point `require` resolves). */
export const pgliteVersion = (): string => {
  const entry = createRequire(import.meta.url).resolve("@electric-sql/pglite")
  return (JSON.parse(readFileSync(join(dirname(entry), "..", "package.json"), "utf8")) as { version: string }).version
}

/** Where the data directory template of PGlite `version` is kept (`pnpm --filter @pdr/store-pg template` writes it). */
export const templatePath = (version: string) =>
  join(
    dirname(createRequire(import.meta.url).resolve("@pdr/store-pg/package.json")),
    "template",
    `pglite-${version}.tar.gz`
  )

/**
 * The template of a new data directory for the installed PGlite: a directory its initdb made (with `initDbParams`),
 * opened and closed once, as PGlite's own `dumpDataDir("gzip")` writes it (4.5 MB). A new database is loaded from it
 * (PGlite's `loadDataDir`; for a directory in the child of `initialize`): about 270 MB at its peak and 1.2 s, where
 * initdb peaks at about 620 MB and takes 2.6-3.6 s (measured here: `pnpm start` on a new DATA_DIR peaked
 * at 636 MB, above the 450 MB of issue 22). Undefined when the installed PGlite has none (an upgrade not followed by
 * `pnpm --filter @pdr/store-pg template`): initdb then runs in its child as before, and the store's tests fail.
 */
export const template = (): string | undefined => {
  try {
    const path = templatePath(pgliteVersion())
    return existsSync(path) ? path : undefined
  } catch {
    return undefined
  }
}

/**
 * Opens the embedded database of `dataDir` (in memory when undefined), creating it when new: from the template of
 * the installed PGlite (`from`, default `template()`), else (`"initdb"`, or no template) by initdb.
 */
export const open = async (
  dataDir: string | undefined,
  created: string | "initdb" = template() ?? "initdb"
): Promise<PGlite> => {
  const from = created === "initdb" ? undefined : created
  setFlagsFromString(wasmFlags)
  if (dataDir === undefined)
    return from === undefined
      ? PGlite.create({ startParams, initDbStartParams: initDbParams })
      : PGlite.create({ loadDataDir: new Blob([readFileSync(from)]), startParams })
  const dir = join(dataDir, "pglite")
  if (!existsSync(join(dir, "PG_VERSION"))) {
    // created beside it and renamed once whole, so a start cut short never leaves a half-made directory
    const fresh = join(dataDir, "pglite.new")
    rmSync(fresh, { recursive: true, force: true })
    mkdirSync(fresh, { recursive: true })
    await initialize(fresh, from)
    rmSync(dir, { recursive: true, force: true })
    renameSync(fresh, dir)
  }
  return PGlite.create(dir, { startParams })
}

/**
 * Writes the template of the installed PGlite (`template()`'s file): initdb in its child with `initDbParams`, then
 * the directory opened, dumped and closed. Run by `pnpm --filter @pdr/store-pg template` after a PGlite upgrade.
 */
export const writeTemplate = async (scratch: string): Promise<string> => {
  const dir = join(scratch, "pglite")
  mkdirSync(dir, { recursive: true })
  await initialize(dir, undefined)
  setFlagsFromString(wasmFlags)
  const db = await PGlite.create(dir, { startParams })
  const dump = await db.dumpDataDir("gzip")
  await db.close()
  const path = templatePath(pgliteVersion())
  mkdirSync(dirname(path), { recursive: true })
  writeFileSync(path, Buffer.from(await dump.arrayBuffer()))
  return path
}

const startUnlocked = (dataDir: string | undefined) =>
  Effect.acquireRelease(
    Effect.tryPromise(async () => {
      const db = await open(dataDir)
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
