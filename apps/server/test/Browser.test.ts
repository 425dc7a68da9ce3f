// biome-ignore-all lint/performance/useDomNodeTextContent: these are Playwright locators, not DOM nodes
// D20 in a real browser: Debian's chromium driven by playwright-core against the real server on PostgreSQL. An owner
// accepts the operator's invitation, signs in, creates a key (shown once), calls an op with it, sees the call and its
// credits on the keys and usage pages, revokes it (the next call gets 401), invites a member who cannot manage
// members, removes them, signs out, and a session past its expiry is sent back to sign-in. axe-core checks every page.
import { existsSync } from "node:fs"
import { createRequire } from "node:module"
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import * as Testing from "@pdr/store-pg/Testing"
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core"
import { invite, testScrypt } from "./dashboard.js"
import { account, admin, post, type Running, start } from "./harness.js"

const chromiumPath = "/usr/bin/chromium"
if (!existsSync(chromiumPath) && process.env["CI"] === "true")
  throw new Error(
    `CI=true and ${chromiumPath} is missing: the browser tests need Debian's chromium (.ci/run installs it)`
  )
const ready = (await Testing.serverAvailable()) && existsSync(chromiumPath)
const axeSource = createRequire(import.meta.url).resolve("axe-core/axe.min.js")
const password = "owner password 123"

/** Serious or critical accessibility violations of the page (axe-core, injected from node_modules). */
const violations = async (page: Page) => {
  await page.addScriptTag({ path: axeSource })
  const result = await page.evaluate(async () => {
    const axe = (globalThis as any).axe
    const r = await axe.run((globalThis as any).document)
    return r.violations.map((v: any) => ({ id: v.id, impact: v.impact, nodes: v.nodes.length }))
  })
  return (result as Array<{ id: string; impact: string; nodes: number }>).filter(
    (v) => v.impact === "serious" || v.impact === "critical"
  )
}

const accessible = async (page: Page, label: string) => assert.deepStrictEqual(await violations(page), [], label)

describe.skipIf(!ready)("dashboard in a browser", () => {
  let server: Running
  let browser: Browser
  const contexts: Array<BrowserContext> = []
  // the page CSP allows only our own scripts: the test context bypasses it to inject axe-core
  const newPage = async () => {
    const context = await browser.newContext({ bypassCSP: true })
    context.setDefaultTimeout(10_000)
    contexts.push(context)
    return context.newPage()
  }
  const signIn = async (page: Page, email: string, secret: string) => {
    await page.goto(`${server.api}/dashboard/sign-in`)
    await page.getByLabel("Email").fill(email)
    await page.getByLabel("Password").fill(secret)
    await page.getByRole("button", { name: "Sign in" }).click()
    await page.waitForLoadState("load")
  }
  const signUp = async (page: Page, link: string, secret: string) => {
    await page.goto(link)
    await page.getByLabel("Password").fill(secret)
    await page.getByRole("button", { name: "Create account access" }).click()
    await page.waitForURL(/\/dashboard\/sign-in\?reason=joined$/)
  }

  beforeAll(async () => {
    server = await start({ options: { dashboard: testScrypt } })
    browser = await chromium.launch({
      executablePath: chromiumPath,
      args: [
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync"
      ]
    })
  }, 60_000)
  afterAll(async () => {
    for (const c of contexts) await c.close().catch(() => {})
    await browser?.close()
    await server?.close()
  })

  // a long walk on a shared machine: a time limit for the whole flow, not for any step
  it("D20: invitation, sign-in, a key shown once, a call and its credits, revocation effective on the next call", {
    timeout: 120_000
  }, async () => {
    const a = await account(server, 1000, "browser")
    const { link } = await invite(server, a.accountId, "owner@browser.example", "owner")
    const page = await newPage()
    await page.goto(link)
    await accessible(page, "sign-up")
    await signUp(page, link, password)
    await accessible(page, "sign-in")

    await signIn(page, "owner@browser.example", "not the password")
    assert.strictEqual(await page.getByRole("alert").innerText(), "The email or the password is wrong.")
    assert.match(page.url(), /\/dashboard\/sign-in$/)
    await accessible(page, "sign-in with an error")

    await signIn(page, "owner@browser.example", password)
    assert.match(page.url(), /\/dashboard$/)
    assert.strictEqual(await page.getByRole("heading", { level: 1 }).innerText(), "Overview")
    await accessible(page, "overview")

    await page.getByRole("link", { name: "API keys" }).click()
    await page.waitForURL(/\/dashboard\/keys$/)
    await page.getByLabel("Name").fill("dashboard key")
    await page.getByRole("button", { name: "Create key" }).click()
    await page.waitForURL(/\/dashboard\/keys\/created\?ticket=/)
    const key = (await page.locator("#new-key").innerText()).trim()
    assert.match(key, /^key_live_[0-9A-Za-z]{32}$/)
    assert.isTrue(await page.getByRole("button", { name: "Copy key" }).isVisible())
    assert.include(await page.locator("#new-key-title + p").innerText(), "shown only this once")
    assert.include(await page.locator("#first-call").innerText(), key)
    await accessible(page, "keys with a new key")

    // a reload shows it gone and mints nothing
    await page.reload()
    assert.strictEqual(await page.getByRole("heading", { level: 1 }).innerText(), "Key already shown")
    assert.notInclude(await page.content(), key)
    // the account's operator key and this one: the reload minted none
    assert.strictEqual((await admin(server, "GET", `/admin/accounts/${a.accountId}/keys`)).keys.length, 2)

    // never again: the keys page shows only the prefix
    await page.goto(`${server.api}/dashboard/keys`)
    assert.notInclude(await page.content(), key)
    assert.include(await page.content(), key.slice(0, 13))

    const call = await post(
      server,
      "/api/v1/platforms/short_video",
      { request: { op: "profiles", subjects: ["browser.entity"] } },
      key
    )
    assert.strictEqual(call.status, 200)
    const charged = call.body.cost.creditsCharged as number
    assert.isAbove(charged, 0)

    await page.reload()
    const row = page.getByRole("row").filter({ hasText: "dashboard key" })
    const cells = await row.getByRole("cell").allInnerTexts()
    // name, prefix, state, credits this month, last used; the key's page has the calls and the total
    assert.deepStrictEqual([cells[0], cells[2], cells[3]], ["dashboard key", "active", `${charged} (no limit)`])
    assert.notStrictEqual(cells[4], "never")
    await page.getByRole("link", { name: "dashboard key" }).click()
    await page.waitForURL(/\/dashboard\/keys\/kid_/)
    const stats = await page.locator(".stats").innerText()
    assert.match(stats, new RegExp(`${charged}\\s+credits in all`))
    assert.match(stats, /1\s+calls/)
    await accessible(page, "key page")
    await page.goto(`${server.api}/dashboard/keys`)
    await accessible(page, "keys")

    await page.getByRole("link", { name: "Usage" }).click()
    await page.waitForURL(/\/dashboard\/usage$/)
    const byOp = page
      .getByRole("table", { name: "By platform and op" })
      .getByRole("row")
      .filter({ hasText: "profiles" })
    assert.deepStrictEqual(await byOp.getByRole("cell").allInnerTexts(), [
      "short_video",
      "profiles",
      "1",
      String(charged)
    ])
    const byKey = page.getByRole("table", { name: "By key" }).getByRole("row").filter({ hasText: "dashboard key" })
    assert.deepStrictEqual(await byKey.getByRole("cell").allInnerTexts(), ["dashboard key", "1", String(charged)])
    await accessible(page, "usage")
    const csv = await page.evaluate(async () => (await fetch("/dashboard/usage.csv")).text())
    assert.include(csv, `short_video,profiles,1,${charged}`)

    await page.getByRole("link", { name: "Ledger" }).click()
    await page.waitForURL(/\/dashboard\/ledger$/)
    assert.include(await page.getByRole("table").innerText(), "short_video profiles")
    // keys by name, not by id
    assert.include(await page.getByRole("table").innerText(), "dashboard key")
    assert.notInclude(await page.getByRole("table").innerText(), "kid_")
    await accessible(page, "ledger")

    await page.getByRole("link", { name: "Catalogue" }).click()
    await page.waitForURL(/\/dashboard\/catalogue$/)
    assert.isAbove(await page.getByRole("table").count(), 10)
    await accessible(page, "catalogue")

    await page.getByRole("link", { name: "Overview" }).click()
    await page.waitForURL(/\/dashboard$/)
    assert.include(await page.locator(".stats").innerText(), String(1000 - charged))
    await accessible(page, "overview with usage")

    await page.goto(`${server.api}/dashboard/keys`)
    await page.getByRole("link", { name: "dashboard key" }).click()
    await page.getByRole("link", { name: "Revoke dashboard key" }).click()
    await page.waitForURL(/\/revoke$/)
    await accessible(page, "revoke confirmation")
    await page.getByRole("button", { name: "Revoke key" }).click()
    await page.waitForURL(/\/dashboard\/keys$/)
    const revoked = await page.getByRole("row").filter({ hasText: "dashboard key" }).getByRole("cell").allInnerTexts()
    assert.strictEqual(revoked[2], "revoked")
    const after = await post(
      server,
      "/api/v1/platforms/short_video",
      { request: { op: "profiles", subjects: ["browser.other"] } },
      key
    )
    assert.strictEqual(after.status, 401)
  })

  it("D20: a member cannot manage members; a removed member loses their session at once", {
    timeout: 120_000
  }, async () => {
    const a = await account(server, 100, "team")
    const { link } = await invite(server, a.accountId, "boss@browser.example", "owner")
    const owner = await newPage()
    await signUp(owner, link, password)
    await signIn(owner, "boss@browser.example", password)
    await owner.goto(`${server.api}/dashboard/members`)
    await owner.getByLabel("Email").fill("worker@browser.example")
    await owner.getByRole("button", { name: "Create invitation link" }).click()
    const memberLink = (await owner.locator("#invite-link").innerText()).trim()
    assert.match(memberLink, /\/dashboard\/sign-up\?token=inv_/)
    await accessible(owner, "members (owner)")

    const worker = await newPage()
    await signUp(worker, memberLink, "worker password 1")
    await signIn(worker, "worker@browser.example", "worker password 1")
    await worker.goto(`${server.api}/dashboard/members`)
    assert.include(await worker.locator("main").innerText(), "Only owners manage members.")
    assert.strictEqual(await worker.getByRole("button", { name: "Create invitation link" }).count(), 0)
    assert.strictEqual(await worker.getByRole("button", { name: /Remove/ }).count(), 0)
    await accessible(worker, "members (member)")
    // a member can still manage keys
    await worker.goto(`${server.api}/dashboard/keys`)
    await worker.getByLabel("Name").fill("worker key")
    await worker.getByRole("button", { name: "Create key" }).click()
    assert.match((await worker.locator("#new-key").innerText()).trim(), /^key_live_/)

    await owner.goto(`${server.api}/dashboard/members`)
    await owner.getByRole("link", { name: "Remove worker@browser.example" }).click()
    await owner.waitForURL(/\/remove$/)
    await accessible(owner, "remove confirmation")
    assert.include(await owner.getByRole("main").innerText(), "Remove worker@browser.example (member)")
    await owner.getByRole("button", { name: "Remove member" }).click()
    await owner.waitForURL(/\/dashboard\/members$/)
    assert.notInclude(
      await owner.getByRole("table", { name: "Members of this account" }).innerText(),
      "worker@browser.example"
    )
    await worker.goto(`${server.api}/dashboard/keys`)
    assert.match(worker.url(), /\/dashboard\/sign-in\?reason=expired$/)
  })

  it("D20: sign-out ends the session; a session past its expiry is sent back to sign-in", {
    timeout: 120_000
  }, async () => {
    const a = await account(server, 100, "expiry")
    const { link } = await invite(server, a.accountId, "late@browser.example", "owner")
    const page = await newPage()
    await signUp(page, link, password)
    await signIn(page, "late@browser.example", password)
    assert.match(page.url(), /\/dashboard$/)
    await page.getByRole("button", { name: "Sign out" }).click()
    await page.waitForURL(/\/dashboard\/sign-in$/)
    await page.goto(`${server.api}/dashboard/usage`)
    assert.match(page.url(), /\/dashboard\/sign-in(\?reason=expired)?$/)

    await signIn(page, "late@browser.example", password)
    await page.goto(`${server.api}/dashboard/usage`)
    assert.match(page.url(), /\/dashboard\/usage$/)
    server.offset.ms += 13 * 3_600_000
    try {
      await page.goto(`${server.api}/dashboard/usage`)
      assert.match(page.url(), /\/dashboard\/sign-in\?reason=expired$/)
      assert.include(await page.getByRole("main").innerText(), "Your session ended")
      await accessible(page, "sign-in after expiry")
    } finally {
      server.offset.ms -= 13 * 3_600_000
    }
  })
})
