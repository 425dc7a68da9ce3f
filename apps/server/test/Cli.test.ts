// The operator CLI over a running server: --json prints only JSON on stdout; errors exit non-zero.

import { execFile } from "node:child_process"
import { fileURLToPath } from "node:url"
import { promisify } from "node:util"
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import * as Testing from "@pdr/store-pg/Testing"
import { type Running, request, start } from "./harness.js"

const serverUp = await Testing.serverAvailable()
const cli = fileURLToPath(new URL("../src/cli.ts", import.meta.url))

const run = (server: Running, ...args: Array<string>) =>
  promisify(execFile)(process.execPath, ["--import", "tsx", "--conditions=@pdr/source", cli, ...args], {
    env: { ...process.env, ADMIN_URL: server.admin, ADMIN_TOKEN: server.token }
  }).then(
    (r) => ({ code: 0, stdout: r.stdout, stderr: r.stderr }),
    (e) => ({ code: e.code as number, stdout: e.stdout as string, stderr: e.stderr as string })
  )

describe.skipIf(!serverUp)("pnpm admin", () => {
  let server: Running
  beforeAll(async () => {
    server = await start()
  }, 60_000)
  afterAll(() => server?.close())

  it("creates an account and a key, grants, lists and revokes; --json is clean JSON", async () => {
    const created = await run(server, "account", "create", "--name", "CLI Org", "--credits", "30", "--json")
    assert.strictEqual(created.code, 0, created.stderr)
    const account = JSON.parse(created.stdout)
    assert.strictEqual(account.balance, 30)
    const key = JSON.parse(
      (await run(server, "key", "create", "--account", account.accountId, "--name", "bot", "--json")).stdout
    )
    assert.match(key.key, /^key_live_[0-9A-Za-z]{32}$/)
    const balance = await request(`${server.api}/api/v1/balance`, { headers: { "x-api-key": key.key } })
    assert.strictEqual(balance.body.creditsRemaining, 30)
    const granted = await run(
      server,
      "credits",
      "grant",
      "--account",
      account.accountId,
      "--credits",
      "12",
      "--reason",
      "test",
      "--json"
    )
    assert.strictEqual(JSON.parse(granted.stdout).balance, 42)
    const listed = await run(server, "key", "list", "--account", account.accountId)
    assert.include(listed.stdout, key.prefix)
    assert.notInclude(listed.stdout, key.key)
    const revoked = JSON.parse((await run(server, "key", "revoke", "--key-id", key.keyId, "--json")).stdout)
    assert.isTrue(revoked.revoked)
    const after = await request(`${server.api}/api/v1/balance`, { headers: { "x-api-key": key.key } })
    assert.strictEqual(after.status, 401)
    const missing = await run(server, "account", "show", "--account", "acct_none", "--json")
    assert.strictEqual(missing.code, 1)
    assert.strictEqual(JSON.parse(missing.stdout).error.code, "not_found")
    const usage = await run(server, "key", "create", "--json")
    assert.strictEqual(usage.code, 2)
  }, 60_000)
})
