// D20 over a real socket on the real Postgres server: the separation of API keys and sessions, cross-site forgery,
// sign-in failures that say nothing about the email, the sign-in limit, and no secret in clear in the database or logs.
import { request as httpRequest } from "node:http"
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import * as Testing from "@pdr/store-pg/Testing"
import { Effect } from "effect"
import pg from "pg"
import { csrfOf, form, invite, member, sessionCookie, testScrypt } from "./dashboard.js"
import { account, admin, post, type Running, request, start } from "./harness.js"

const serverUp = await Testing.serverAvailable()

/** A form post sent from another local address (node's `localAddress`), without following redirects. */
const fromAddress = (server: Running, localAddress: string, path: string, fields: Record<string, string>) =>
  new Promise<{ status: number; cookie: string | undefined }>((resolve, reject) => {
    const body = new URLSearchParams(fields).toString()
    const req = httpRequest(
      `${server.api}${path}`,
      {
        method: "POST",
        localAddress,
        headers: { "content-type": "application/x-www-form-urlencoded", "content-length": Buffer.byteLength(body) }
      },
      (res) => {
        res.resume()
        const set = res.headers["set-cookie"]?.find((c) => c.startsWith("pdr_session="))
        res.on("end", () => resolve({ status: res.statusCode ?? 0, cookie: set?.split(";")[0] }))
      }
    )
    req.on("error", reject)
    req.end(body)
  })
const password = "a long enough password"
const withoutId = (body: any) => JSON.stringify({ ...body, error: { ...body.error, requestId: "-" } })

// everything the process writes while the tests run, to scan for secrets
const written: Array<string> = []
const capture = () => {
  const restore: Array<() => void> = []
  for (const stream of [process.stdout, process.stderr]) {
    const original = stream.write.bind(stream)
    stream.write = ((chunk: unknown, ...rest: Array<any>) => {
      written.push(String(chunk))
      return original(chunk as never, ...rest)
    }) as typeof stream.write
    restore.push(() => {
      stream.write = original
    })
  }
  for (const level of ["log", "info", "warn", "error", "debug"] as const) {
    const original = console[level]
    console[level] = (...args: Array<unknown>) => {
      written.push(args.map((a) => (typeof a === "string" ? a : JSON.stringify(a))).join(" "))
      original(...args)
    }
    restore.push(() => {
      console[level] = original
    })
  }
  return () => restore.forEach((r) => r())
}

describe.skipIf(!serverUp)("dashboard over HTTP", () => {
  let server: Running
  let url = ""
  let release = () => {}
  beforeAll(async () => {
    release = capture()
    server = await start({
      target: Effect.tap(Testing.freshServerSchema(), (t) =>
        Effect.sync(() => (url = t._tag === "Server" ? t.url : ""))
      ),
      options: { dashboard: testScrypt }
    })
  }, 60_000)
  afterAll(async () => {
    await server?.close()
    release()
  })

  it("D20: an API key sent to a dashboard route gets the same 401 as any bad key on an op", async () => {
    const a = await account(server, 100, "sep")
    const bad = await post(
      server,
      "/api/v1/platforms/maps",
      { request: { op: "places", subjects: ["x"] } },
      "key_live_nope"
    )
    assert.strictEqual(bad.status, 401)
    for (const headers of [{ "x-api-key": a.key }, { authorization: `Bearer ${a.key}` }]) {
      for (const path of ["/dashboard", "/dashboard/keys", "/dashboard/usage.csv", "/dashboard/members"]) {
        const r = await request(`${server.api}${path}`, { headers })
        assert.strictEqual(r.status, 401, path)
        assert.strictEqual(withoutId(r.body), withoutId(bad.body), path)
      }
      const created = await form(server, "/dashboard/keys", { csrf: "x", name: "via key" }, headers)
      assert.strictEqual(created.status, 401)
    }
    const keys = await admin(server, "GET", `/admin/accounts/${a.accountId}/keys`)
    assert.strictEqual(keys.keys.length, 1)
  })

  it("D20: the dashboard is not part of the public OpenAPI document; its assets are served by us", async () => {
    const doc = await request(`${server.api}/openapi.json`)
    assert.strictEqual(doc.status, 200)
    const paths = Object.keys(doc.body.paths)
    assert.include(paths, "/api/v1/platforms/maps") // one path per platform (exact OpenAPI)
    assert.deepStrictEqual(
      paths.filter((p) => p.startsWith("/dashboard")),
      []
    )
    const htmx = await fetch(`${server.api}/dashboard/assets/htmx.min.js`)
    assert.strictEqual(htmx.status, 200)
    assert.match(htmx.headers.get("content-type") ?? "", /javascript/)
    assert.include(await htmx.text(), "htmx")
    assert.strictEqual((await fetch(`${server.api}/dashboard/assets/../../etc/passwd`)).status, 404)
    const signIn = await fetch(`${server.api}/dashboard/sign-in`)
    assert.include(signIn.headers.get("content-security-policy") ?? "", "script-src 'self'")
    assert.notMatch(await signIn.text(), /https?:\/\/(?!127\.0\.0\.1)/)
  })

  it("D20: a session cookie runs no op and reads no balance (401)", async () => {
    const a = await account(server, 100, "cookie")
    const cookie = await member(server, a.accountId, "cookie@example.com", password)
    const page = await request(`${server.api}/dashboard`, { headers: { cookie } })
    assert.strictEqual(page.status, 200)
    const op = await request(`${server.api}/api/v1/platforms/maps`, {
      method: "POST",
      headers: { cookie, "content-type": "application/json" },
      body: JSON.stringify({ request: { op: "places", subjects: ["ChIJcookie0001"] } })
    })
    assert.deepStrictEqual([op.status, op.body.error.code], [401, "unauthorized"])
    const balance = await request(`${server.api}/api/v1/balance`, { headers: { cookie } })
    assert.strictEqual(balance.status, 401)
  })

  it("D20: forged cross-site requests are refused (Origin, Sec-Fetch-Site, missing or wrong CSRF token)", async () => {
    const a = await account(server, 100, "csrf")
    const cookie = await member(server, a.accountId, "csrf@example.com", password)
    const csrf = await csrfOf(server, cookie)
    const forged = [
      [
        { csrf, name: "f1" },
        { cookie, origin: "http://evil.example" }
      ],
      [
        { csrf, name: "f2" },
        { cookie, "sec-fetch-site": "cross-site" }
      ],
      [{ csrf: "0".repeat(64), name: "f3" }, { cookie }],
      [{ csrf: "", name: "f4" }, { cookie }]
    ] as const
    for (const [fields, headers] of forged) {
      const r = await form(server, "/dashboard/keys", fields, headers)
      assert.strictEqual(r.status, 403, fields.name)
    }
    const signOut = await form(server, "/dashboard/sign-out", { csrf }, { cookie, origin: "http://evil.example" })
    assert.strictEqual(signOut.status, 403)
    assert.strictEqual((await admin(server, "GET", `/admin/accounts/${a.accountId}/keys`)).keys.length, 1)
    const genuine = await form(
      server,
      "/dashboard/keys",
      { csrf, name: "ok" },
      {
        cookie,
        origin: new URL(server.api).origin,
        "sec-fetch-site": "same-origin"
      }
    )
    // post/redirect/get: the key waits behind a one-time ticket
    assert.strictEqual(genuine.status, 303)
    assert.match(genuine.headers.get("location")!, /^\/dashboard\/keys\/created\?ticket=[\w-]+$/)
    assert.strictEqual((await admin(server, "GET", `/admin/accounts/${a.accountId}/keys`)).keys.length, 2)
    // a wrong CSRF token from our own origin is a stale form: a page saying so, with the dashboard's headers
    const stale = await form(server, "/dashboard/keys", { csrf: "0".repeat(64), name: "stale" }, { cookie })
    const body = await stale.text()
    assert.strictEqual(stale.status, 403)
    assert.include(body, "This form is out of date")
    assert.include(body, 'href="/dashboard/keys"')
    assert.strictEqual(stale.headers.get("x-frame-options"), "DENY")
  })

  it("D20: a password change ends every session of the member; the new password signs in", async () => {
    const a = await account(server, 100, "change")
    const cookie = await member(server, a.accountId, "change@example.com", password)
    const other = sessionCookie(await form(server, "/dashboard/sign-in", { email: "change@example.com", password }))!
    const csrf = await csrfOf(server, cookie)
    const wrong = await form(
      server,
      "/dashboard/password",
      { csrf, current: "not it at all", next: "a brand new password" },
      { cookie }
    )
    assert.strictEqual(wrong.status, 400)
    const changed = await form(
      server,
      "/dashboard/password",
      { csrf, current: password, next: "a brand new password" },
      { cookie }
    )
    assert.deepStrictEqual(
      [changed.status, changed.headers.get("location")],
      [303, "/dashboard/sign-in?reason=password"]
    )
    for (const c of [cookie, other]) {
      const r = await fetch(`${server.api}/dashboard/keys`, { headers: { cookie: c }, redirect: "manual" })
      assert.deepStrictEqual([r.status, r.headers.get("location")], [303, "/dashboard/sign-in?reason=expired"])
    }
    const told = await (await fetch(`${server.api}/dashboard/sign-in?reason=expired`)).text()
    assert.include(told, "Your session ended")
    const old = await form(server, "/dashboard/sign-in", { email: "change@example.com", password })
    assert.strictEqual(old.status, 401)
    const fresh = await form(server, "/dashboard/sign-in", {
      email: "change@example.com",
      password: "a brand new password"
    })
    assert.strictEqual(fresh.status, 303)
  })

  it("D20: a member's posts to manage members get 403; an owner changes a role and removes a member", async () => {
    const a = await account(server, 100, "roles")
    const owner = await member(server, a.accountId, "boss@example.com", password)
    const worker = await member(server, a.accountId, "worker@example.com", password, "member")
    const workerCsrf = await csrfOf(server, worker)
    const ids = async () => {
      const page = await (await fetch(`${server.api}/dashboard/members`, { headers: { cookie: owner } })).text()
      return [...page.matchAll(/action="\/dashboard\/members\/(mem_[0-9A-Za-z]+)\/role"/g)].map((m) => m[1]!)
    }
    const [bossId, workerId] = await ids()
    const refused = [
      await form(
        server,
        "/dashboard/members/invite",
        { csrf: workerCsrf, email: "x@example.com", role: "owner" },
        { cookie: worker }
      ),
      await form(
        server,
        `/dashboard/members/${workerId}/role`,
        { csrf: workerCsrf, role: "owner" },
        { cookie: worker }
      ),
      await form(server, `/dashboard/members/${bossId}/remove`, { csrf: workerCsrf }, { cookie: worker })
    ]
    assert.deepStrictEqual(
      refused.map((r) => r.status),
      [403, 403, 403]
    )
    const ownerCsrf = await csrfOf(server, owner)
    const promoted = await form(
      server,
      `/dashboard/members/${workerId}/role`,
      { csrf: ownerCsrf, role: "owner" },
      { cookie: owner }
    )
    assert.strictEqual(promoted.status, 303)
    assert.include(
      await (await fetch(`${server.api}/dashboard/members`, { headers: { cookie: worker } })).text(),
      "Invite a member"
    )
    const removed = await form(server, `/dashboard/members/${workerId}/remove`, { csrf: ownerCsrf }, { cookie: owner })
    assert.strictEqual(removed.status, 303)
    const after = await fetch(`${server.api}/dashboard`, { headers: { cookie: worker }, redirect: "manual" })
    assert.deepStrictEqual([after.status, after.headers.get("location")], [303, "/dashboard/sign-in?reason=expired"])
    assert.deepStrictEqual(await ids(), [bossId])
  })

  it("D20: an unknown email and a wrong password get the same status and the same page", async () => {
    const a = await account(server, 100, "same")
    await member(server, a.accountId, "known@example.com", password)
    const unknown = await form(server, "/dashboard/sign-in", { email: "unknown@example.com", password })
    const wrong = await form(server, "/dashboard/sign-in", { email: "known@example.com", password: "not the password" })
    assert.strictEqual(unknown.status, 401)
    assert.strictEqual(wrong.status, unknown.status)
    // the same page but for the email typed, which is kept in its field
    assert.strictEqual(
      (await wrong.text()).replace("known@example.com", "EMAIL"),
      (await unknown.text()).replace("unknown@example.com", "EMAIL")
    )
    assert.isUndefined(sessionCookie(unknown))
    assert.isUndefined(sessionCookie(wrong))
  })

  it("D20: the session cookie is HttpOnly, SameSite=Lax, scoped to /dashboard, and Secure behind TLS", async () => {
    const a = await account(server, 100, "flags")
    const { token } = await invite(server, a.accountId, "flags@example.com")
    await form(server, "/dashboard/sign-up", { token, password })
    const plain = await form(server, "/dashboard/sign-in", { email: "flags@example.com", password })
    const cookie = plain.headers.getSetCookie().find((c) => c.startsWith("pdr_session="))!
    assert.match(cookie, /HttpOnly/)
    assert.match(cookie, /SameSite=Lax/)
    assert.match(cookie, /Path=\/dashboard/)
    assert.notMatch(cookie, /Secure/)
    const tls = await form(
      server,
      "/dashboard/sign-in",
      { email: "flags@example.com", password },
      { "x-forwarded-proto": "https" }
    )
    assert.match(tls.headers.getSetCookie().find((c) => c.startsWith("pdr_session="))!, /Secure/)
  })

  it("D20: no password, session token, invitation token or API key is in the database or the logs in clear", async () => {
    const a = await account(server, 100, "secrets")
    const secret = "a secret password 12345"
    const { token } = await invite(server, a.accountId, "secret@example.com")
    await form(server, "/dashboard/sign-up", { token, password: secret })
    const res = await form(server, "/dashboard/sign-in", { email: "secret@example.com", password: secret })
    const cookie = sessionCookie(res)!
    const sessionToken = cookie.split("=")[1]!
    const csrf = await csrfOf(server, cookie)
    const created = await form(server, "/dashboard/keys", { csrf, name: "scan" }, { cookie })
    const shown = await fetch(`${server.api}${created.headers.get("location")}`, { headers: { cookie } })
    const key = /key_live_[0-9A-Za-z]{32}/.exec(await shown.text())![0]
    await form(server, "/dashboard/sign-in", { email: "secret@example.com", password: "wrong password!!" })
    const client = new pg.Client({ connectionString: url })
    await client.connect()
    try {
      const tables = await client.query(
        "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'"
      )
      assert.includeMembers(
        tables.rows.map((r) => r.table_name),
        ["members", "sessions", "invitations", "api_keys"]
      )
      let dump = ""
      for (const { table_name } of tables.rows) {
        const rows = await client.query(`SELECT row_to_json(t)::text AS j FROM "${table_name}" t`)
        dump += rows.rows.map((r) => r.j).join("\n")
      }
      assert.include(dump, "secret@example.com")
      for (const s of [secret, sessionToken, token, key, "wrong password!!"]) assert.notInclude(dump, s)
    } finally {
      await client.end()
    }
    const logs = written.join("\n")
    for (const s of [secret, sessionToken, token, key, "wrong password!!"]) assert.notInclude(logs, s)
  })
})

describe.skipIf(!serverUp)("dashboard sign-in limit", () => {
  let server: Running
  beforeAll(async () => {
    server = await start({ options: { dashboard: testScrypt } })
  }, 60_000)
  afterAll(() => server?.close())

  it("issue 24: after 5 failed sign-ins for an email from one address, that address gets 429 with Retry-After; another address still signs in", async () => {
    const a = await account(server, 100, "limit")
    await member(server, a.accountId, "limited@example.com", password)
    for (let i = 0; i < 5; i++) {
      const r = await form(server, "/dashboard/sign-in", {
        email: "limited@example.com",
        password: `wrong ${i} password`
      })
      assert.strictEqual(r.status, 401)
    }
    const limited = await form(server, "/dashboard/sign-in", { email: "limited@example.com", password })
    assert.strictEqual(limited.status, 429)
    assert.isAbove(Number(limited.headers.get("retry-after")), 0)
    assert.match(await limited.text(), /try again in \d+ seconds/)
    assert.isUndefined(sessionCookie(limited))
    // the owner on another address was never failing: not locked out (127.0.0.2 is loopback too)
    const elsewhere = await fromAddress(server, "127.0.0.2", "/dashboard/sign-in", {
      email: "limited@example.com",
      password
    })
    assert.strictEqual(elsewhere.status, 303)
    assert.match(elsewhere.cookie ?? "", /^pdr_session=ses_/)
  })
})
