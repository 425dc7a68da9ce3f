// D20: `pnpm admin member invite` prints a one-time sign-up link that creates the account's first owner.
import { execFile } from "node:child_process"
import { promisify } from "node:util"
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import * as Testing from "@pdr/store-pg/Testing"
import { form, sessionCookie, testScrypt } from "./dashboard.js"
import { account, type Running, start } from "./harness.js"
import { cliBundle } from "./processes.js"

const serverUp = await Testing.serverAvailable()

const run = (server: Running, ...args: Array<string>) =>
  promisify(execFile)(process.execPath, [cliBundle, ...args], {
    env: { ...process.env, ADMIN_URL: server.admin, ADMIN_TOKEN: server.token, PUBLIC_URL: server.api }
  }).then(
    (r) => ({ code: 0, stdout: r.stdout, stderr: r.stderr }),
    (e) => ({ code: e.code as number, stdout: e.stdout as string, stderr: e.stderr as string })
  )

describe.skipIf(!serverUp)("pnpm admin member invite", () => {
  let server: Running
  beforeAll(async () => {
    server = await start({ options: { dashboard: testScrypt } })
  }, 60_000)
  afterAll(() => server?.close())

  it("D20: prints a one-time link; the owner it creates signs in; the link works once; a bad email exits non-zero", async () => {
    const a = await account(server, 10, "cli-invite")
    const out = await run(
      server,
      "member",
      "invite",
      "--account",
      a.accountId,
      "--email",
      "first@cli.example",
      "--json"
    )
    assert.strictEqual(out.code, 0, out.stderr)
    const invited = JSON.parse(out.stdout)
    assert.deepStrictEqual([invited.email, invited.role], ["first@cli.example", "owner"])
    const token = new URL(invited.link).searchParams.get("token")!
    assert.match(token, /^inv_[0-9A-Za-z]{32}$/)
    const up = await form(server, "/dashboard/sign-up", { token, password: "first owner password" })
    assert.strictEqual(up.status, 303)
    const again = await form(server, "/dashboard/sign-up", { token, password: "first owner password" })
    assert.strictEqual(again.status, 400)
    const signIn = await form(server, "/dashboard/sign-in", {
      email: "first@cli.example",
      password: "first owner password"
    })
    assert.strictEqual(signIn.status, 303)
    assert.isString(sessionCookie(signIn))
    const bad = await run(server, "member", "invite", "--account", a.accountId, "--email", "not-an-email")
    assert.notStrictEqual(bad.code, 0)
    assert.include(bad.stderr, "email")
    // re-inviting a member says so instead of minting a dead link
    const twice = await run(server, "member", "invite", "--account", a.accountId, "--email", "first@cli.example")
    assert.notStrictEqual(twice.code, 0)
    assert.include(twice.stderr, "already a member")
  }, 180_000)

  it("issue 24: `member reset` prints a one-time reset link; using it ends the member's sessions; an unknown email exits non-zero", async () => {
    const a = await account(server, 10, "cli-reset")
    const invited = JSON.parse(
      (await run(server, "member", "invite", "--account", a.accountId, "--email", "sole@cli.example", "--json")).stdout
    )
    await form(server, "/dashboard/sign-up", {
      token: new URL(invited.link).searchParams.get("token")!,
      password: "sole owner password"
    })
    const cookie = sessionCookie(
      await form(server, "/dashboard/sign-in", { email: "sole@cli.example", password: "sole owner password" })
    )!
    const out = await run(server, "member", "reset", "--email", "sole@cli.example", "--json")
    assert.strictEqual(out.code, 0, out.stderr)
    const reset = JSON.parse(out.stdout)
    assert.strictEqual(reset.email, "sole@cli.example")
    const token = new URL(reset.link).searchParams.get("token")!
    assert.match(token, /^rst_[0-9A-Za-z]{32}$/)
    const done = await form(server, "/dashboard/reset", { token, password: "a fresh owner password" })
    assert.strictEqual(done.status, 303)
    const old = await fetch(`${server.api}/dashboard`, { headers: { cookie }, redirect: "manual" })
    assert.strictEqual(old.headers.get("location"), "/dashboard/sign-in?reason=expired")
    const signIn = await form(server, "/dashboard/sign-in", {
      email: "sole@cli.example",
      password: "a fresh owner password"
    })
    assert.strictEqual(signIn.status, 303)
    const unknown = await run(server, "member", "reset", "--email", "nobody@cli.example")
    assert.notStrictEqual(unknown.code, 0)
    assert.include(unknown.stderr, "no member")
  }, 180_000)
})
