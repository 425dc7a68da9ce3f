/**
 * Writes the embedded database's template for the installed PGlite (packages/store-pg/template/pglite-<version>.tar.gz):
 * run after a PGlite upgrade (`pnpm --filter @pdr/store-pg template`); the store's tests fail until it exists.
 */
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Embedded } from "@pdr/store-pg"

const scratch = mkdtempSync(join(tmpdir(), "pdr-template-"))
try {
  console.log(`wrote ${await Embedded.writeTemplate(scratch)}`)
} finally {
  rmSync(scratch, { recursive: true, force: true })
}
