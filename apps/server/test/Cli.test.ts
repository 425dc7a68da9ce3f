// The operator CLI (@effect/cli over the client derived from the operator contract) against a running server:
// --json prints only JSON on stdout; API errors exit 1, usage errors 2. The command flow runs in-process (the
// commands' own `run`, with the environment as a ConfigProvider and stdout/stderr captured); the entry point runs
// as a process for exit codes and clean stdout. Also the operator listener's OpenAPI document.

import { execFile } from "node:child_process"
import { promisify } from "node:util"
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import * as Testing from "@pdr/store-pg/Testing"
import { ConfigProvider, Effect } from "effect"
import * as Cli from "../src/admin/Cli.js"
import { type Running, request, start } from "./harness.js"
import { cliBundle } from "./processes.js"

const serverUp = await Testing.serverAvailable()

const runWith = (env: Record<string, string | undefined>, ...args: Array<string>) =>
  promisify(execFile)(process.execPath, [cliBundle, ...args], {
    env: Object.fromEntries(Object.entries({ ...process.env, ...env }).filter(([, v]) => v !== undefined))
  }).then(
    (r) => ({ code: 0, stdout: r.stdout, stderr: r.stderr }),
    (e) => ({ code: e.code as number, stdout: e.stdout as string, stderr: e.stderr as string })
  )

/** The CLI in-process, as `node cli.ts ...args` with ADMIN_URL and ADMIN_TOKEN set. */
const run = (server: Running, ...args: Array<string>) =>
  Effect.gen(function* () {
    const out = { stdout: "", stderr: "" }
    const console = yield* Effect.console
    const code = yield* Cli.run(["node", "cli.ts", ...args]).pipe(
      Effect.withConsole({
        ...console,
        log: (...line: ReadonlyArray<unknown>) =>
          Effect.sync(() => {
            out.stdout += `${line.join(" ")}\n`
          }),
        error: (...line: ReadonlyArray<unknown>) =>
          Effect.sync(() => {
            out.stderr += `${line.join(" ")}\n`
          })
      }),
      Effect.withConfigProvider(
        ConfigProvider.fromMap(
          new Map([
            ["ADMIN_URL", server.admin],
            ["ADMIN_TOKEN", server.token]
          ])
        )
      )
    )
    return { code, ...out }
  }).pipe(Effect.runPromise)

describe.skipIf(!serverUp)("pnpm admin", () => {
  let server: Running
  beforeAll(async () => {
    server = await start()
  }, 60_000)
  afterAll(() => server?.close())

  it("creates an account and a key, grants, lists and revokes; --json is clean JSON", async () => {
    // the usage errors need no server round trip: they run alongside the main sequence
    const usageErrors = Promise.all([
      run(server, "key", "create", "--json"),
      run(server, "key"),
      run(server, "account", "show", "--account", "acct_none", "--json"),
      run(server, "track", "add", "--platform", "maps", "--request", "[1]", "--json")
    ])
    const created = await run(server, "account", "create", "--name", "CLI Org", "--credits", "30", "--json")
    assert.strictEqual(created.code, 0, created.stderr)
    const account = JSON.parse(created.stdout)
    assert.strictEqual(account.balance, 30)
    const key = JSON.parse(
      (await run(server, "key", "create", "--account", account.accountId, "--name", "bot", "--json")).stdout
    )
    assert.match(key.key, /^key_live_[0-9A-Za-z]{32}$/)
    assert.deepStrictEqual(Object.keys(key), ["keyId", "key", "prefix", "expiresAt"])
    const balance = await request(`${server.api}/api/v1/balance`, { headers: { "x-api-key": key.key } })
    assert.strictEqual(balance.body.creditsRemaining, 30)
    const [granted, listed] = await Promise.all([
      run(server, "credits", "grant", "--account", account.accountId, "--credits", "12", "--reason", "test", "--json"),
      run(server, "key", "list", "--account", account.accountId)
    ])
    assert.strictEqual(JSON.parse(granted.stdout).balance, 42)
    assert.include(listed.stdout, key.prefix)
    assert.notInclude(listed.stdout, key.key)
    const revoked = JSON.parse((await run(server, "key", "revoke", "--key-id", key.keyId, "--json")).stdout)
    assert.isTrue(revoked.revoked)
    const after = await request(`${server.api}/api/v1/balance`, { headers: { "x-api-key": key.key } })
    assert.strictEqual(after.status, 401)
    const [usage, noun, missing, notObject] = await usageErrors
    assert.strictEqual(missing.code, 1)
    assert.strictEqual(JSON.parse(missing.stdout).error.code, "not_found")
    assert.strictEqual(usage.code, 2)
    const usageBody = JSON.parse(usage.stdout)
    assert.strictEqual(usageBody.error.code, "usage")
    assert.include(usageBody.error.message, "--account")
    assert.strictEqual(noun.code, 2)
    assert.include(noun.stderr, "create, list, revoke")
    assert.strictEqual(notObject.code, 2)
    assert.include(JSON.parse(notObject.stdout).error.message, "--request must be a JSON object")
  }, 60_000)

  it("as a process: a wrong token and an unreachable server exit 1 with a JSON error; no token is a usage error", async () => {
    const [wrong, unreachable, noToken] = await Promise.all([
      runWith({ ADMIN_URL: server.admin, ADMIN_TOKEN: "op_wrong" }, "holds", "sweep", "--json"),
      runWith({ ADMIN_URL: "http://127.0.0.1:1", ADMIN_TOKEN: "x" }, "account", "list", "--json"),
      runWith({ ADMIN_URL: server.admin, ADMIN_TOKEN: undefined, DATA_DIR: "/nonexistent-pdr" }, "account", "list")
    ])
    assert.deepStrictEqual([wrong.code, JSON.parse(wrong.stdout).error.code], [1, "unauthorized"])
    assert.strictEqual(unreachable.code, 1)
    assert.include(JSON.parse(unreachable.stdout).error.message, "cannot reach the operator API at http://127.0.0.1:1")
    assert.strictEqual(noToken.code, 2)
    assert.include(noToken.stderr, "no operator token")
    assert.strictEqual(noToken.stdout, "")
    // the help and an argument error read as plain text in a pipe or a log file: no terminal escape codes
    const [help, missing] = await Promise.all([runWith({}, "--help"), runWith({}, "key", "create")])
    assert.strictEqual(help.code, 0)
    assert.include(help.stdout, "pnpm admin")
    assert.notInclude(help.stdout + help.stderr, String.fromCharCode(27))
    assert.strictEqual(missing.code, 2)
    assert.include(missing.stderr, "--account")
    assert.notInclude(missing.stdout + missing.stderr, String.fromCharCode(27))
  }, 60_000)

  it("the operator listener serves its own OpenAPI document, and the public one has no operator path", async () => {
    const adminDoc = await request(`${server.admin}/openapi.json`)
    assert.strictEqual(adminDoc.status, 200)
    assert.includeMembers(Object.keys(adminDoc.body.paths), [
      "/admin/accounts",
      "/admin/accounts/{accountId}",
      "/admin/accounts/{accountId}/credits",
      "/admin/accounts/{accountId}/keys",
      "/admin/keys/{keyId}/revoke",
      "/admin/holds/sweep",
      "/admin/tracked",
      "/admin/tracked/remove",
      "/admin/accounts/{accountId}/members/invitations"
    ])
    assert.deepStrictEqual(Object.keys(adminDoc.body.components.securitySchemes), ["operator"])
    const publicDoc = await request(`${server.api}/openapi.json`)
    assert.isFalse(Object.keys(publicDoc.body.paths).some((p) => p.startsWith("/admin")))
    const viaPublic = await request(`${server.api}/admin/accounts`, {
      headers: { authorization: `Bearer ${server.token}` }
    })
    assert.strictEqual(viaPublic.status, 404)
  })
})
