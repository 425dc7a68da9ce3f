/** The operator token: ADMIN_TOKEN, or generated on first start and kept in DATA_DIR with mode 0600. */

import { randomBytes } from "node:crypto"
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { Effect, Option, Redacted } from "effect"

/** What a request of the operator listener without the operator token is told (401 `unauthorized`). */
export const required = "the operator token is required (Authorization: Bearer <token>)"

/** Where the generated token is kept. */
export const path = (dataDir: string) => join(dataDir, "admin-token")

/** The configured token, else the kept one, else a new one written with mode 0600. */
export const resolve = (configured: Option.Option<Redacted.Redacted<string>>, dataDir: string) =>
  Effect.sync(() => {
    if (Option.isSome(configured)) return configured.value
    const file = path(dataDir)
    if (existsSync(file)) return Redacted.make(readFileSync(file, "utf8").trim())
    mkdirSync(dataDir, { recursive: true })
    const token = `op_${randomBytes(24).toString("base64url")}`
    writeFileSync(file, `${token}\n`, { mode: 0o600 })
    chmodSync(file, 0o600)
    return Redacted.make(token)
  })
