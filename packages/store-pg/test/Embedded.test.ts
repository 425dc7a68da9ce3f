// Issue 22 item 4: the embedded default's peak at start. A new data directory (and an in-memory database) is made
// from the data directory template of the installed PGlite (packages/store-pg/template, written by `pnpm --filter
// @pdr/store-pg template`) rather than by PGlite's initdb, whose process peaked at about 620 MB (`pnpm start` on a
// new DATA_DIR: 636 MB, above the 450 MB target; from the template 299 MB). What is checked here: the template of the
// installed PGlite exists (an upgrade without a new template fails here, not at a user's first start); directories
// made from it are that template (its cluster's system identifier), with its settings (16 MB shared buffers), and
// keep their data across a reopen; without a template initdb still makes one; a half-made directory left by a start
// cut short is made again.
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, assert, describe, it } from "@effect/vitest"
import type { PGlite } from "@electric-sql/pglite"
import { Embedded } from "../src/index.js"

const dirs: Array<string> = []
const scratch = () => {
  const d = mkdtempSync(join(tmpdir(), "pdr-embedded-"))
  dirs.push(d)
  return d
}
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true })
})

const identity = async (db: PGlite) => {
  const r = await db.query<{ id: string; buffers: string }>(
    "SELECT system_identifier::text AS id, current_setting('shared_buffers') AS buffers FROM pg_control_system()"
  )
  return r.rows[0]!
}

describe("the embedded database's template", () => {
  it("the installed PGlite has its template", () => {
    const version = Embedded.pgliteVersion()
    assert.match(version, /^\d+\.\d+\.\d+/)
    assert.strictEqual(
      Embedded.template(),
      Embedded.templatePath(version),
      `no template for PGlite ${version}: run \`pnpm --filter @pdr/store-pg template\` and commit it`
    )
  })

  it("new directories are made from it, keep their data across a reopen; initdb still makes one without it", async () => {
    const a = scratch()
    const first = await Embedded.open(a)
    const made = await identity(first)
    assert.strictEqual(made.buffers, "16MB", "the template's postgresql.conf (initdb's -c shared_buffers=16MB)")
    await first.exec("CREATE TABLE kept (x int); INSERT INTO kept VALUES (7)")
    await first.close()
    assert.isFalse(existsSync(join(a, "pglite.new")), "the directory was renamed into place")
    const again = await Embedded.open(a)
    assert.deepStrictEqual((await again.query("SELECT x FROM kept")).rows, [{ x: 7 }])
    assert.strictEqual((await identity(again)).id, made.id)
    await again.close()

    // a second directory from the template is the same cluster; one made by initdb is not
    const b = await Embedded.open(scratch())
    assert.strictEqual((await identity(b)).id, made.id, "made from the template")
    await b.close()
    const c = await Embedded.open(scratch(), "initdb")
    const byInitdb = await identity(c)
    assert.notStrictEqual(byInitdb.id, made.id, "made by initdb")
    assert.strictEqual(byInitdb.buffers, "16MB")
    await c.close()

    // in memory, from the template too
    const memory = await Embedded.open(undefined)
    assert.strictEqual((await identity(memory)).id, made.id)
    await memory.close()
  }, 120_000)

  it("a half-made directory left by a start cut short is made again", async () => {
    const d = scratch()
    mkdirSync(join(d, "pglite.new", "base"), { recursive: true })
    writeFileSync(join(d, "pglite.new", "PG_VERSION"), "18\n")
    writeFileSync(join(d, "pglite.new", "base", "junk"), "half")
    const db = await Embedded.open(d)
    assert.deepStrictEqual((await db.query("SELECT 1 AS one")).rows, [{ one: 1 }])
    await db.close()
    assert.isFalse(existsSync(join(d, "pglite.new")))
  }, 60_000)
})
