// biome-ignore-all lint/performance/useDomNodeTextContent: these are Playwright locators, not DOM nodes
// Issue 24 in a real browser: Debian's chromium driven by playwright-core against the real server on PostgreSQL. The
// first run, pending invitations (resend, cancel), re-inviting a member, common passwords, an owner's reset link,
// key rename / limit / roll with a grace period, the per-key monthly limit enforced at the hold (402
// key_credit_limit), the low-balance banner, the audit log, HTML error pages; every page measured at 390 px (no
// horizontal scroll, readable chart labels) and checked by axe-core.
import { existsSync } from "node:fs"
import { createRequire } from "node:module"
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import * as Testing from "@pdr/store-pg/Testing"
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core"
import { invite, testScrypt } from "./dashboard.js"
import { account, admin, post, type Running, request, start } from "./harness.js"

const chromiumPath = "/usr/bin/chromium"
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

/** How far the page is wider than the viewport (0: no horizontal scroll) and the smallest chart label, in px. */
const fit = (page: Page) =>
  page.evaluate(() => {
    const d = (globalThis as any).document
    const labels = [...d.querySelectorAll(".chart text")].map((t: any) => t.getBoundingClientRect().height)
    const width = d.documentElement.clientWidth
    // the outermost elements that stick out (for the failure message)
    const wide = [...d.querySelectorAll("body *")]
      .filter((e: any) => e.getBoundingClientRect().right > width + 0.5 && !e.parentElement.closest(".table-box"))
      .slice(0, 3)
      .map((e: any) => `${e.tagName.toLowerCase()}${e.id ? `#${e.id}` : ""}.${e.className}`)
    return {
      wide,
      overflow: d.documentElement.scrollWidth - d.documentElement.clientWidth,
      smallestLabel: labels.length === 0 ? null : Math.min(...labels)
    }
  })

describe.skipIf(!ready)("dashboard second pass in a browser (issue 24)", () => {
  let server: Running
  let browser: Browser
  const contexts: Array<BrowserContext> = []
  const measured: Array<string> = []
  const newPage = async (width = 1280) => {
    const context = await browser.newContext({ bypassCSP: true, viewport: { width, height: 844 } })
    context.setDefaultTimeout(10_000)
    contexts.push(context)
    return context.newPage()
  }
  /** No horizontal scroll at 390 px, readable chart labels, nothing serious for axe. */
  const check = async (page: Page, label: string) => {
    const f = await fit(page)
    assert.strictEqual(f.overflow, 0, `${label}: horizontal scroll at 390 px (${f.wide.join(", ")})`)
    if (f.smallestLabel !== null) assert.isAtLeast(f.smallestLabel, 12, `${label}: chart labels`)
    assert.deepStrictEqual(await violations(page), [], label)
    measured.push(label)
  }
  /** Lets a form send what the browser's own checks (min, max, maxlength) would stop, to test the server's. */
  const noValidate = (page: Page) =>
    page.evaluate(() => {
      for (const f of (globalThis as any).document.querySelectorAll("form")) f.noValidate = true
    })
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

  // long flows on a shared machine: a time limit for the whole walk, not for any step
  it("issue 24: first run, keys (create once, rename, limit, roll with grace), the limit at the hold, low balance, audit; every page at 390 px", {
    timeout: 180_000
  }, async () => {
    const created = await admin(server, "POST", "/admin/accounts", { name: "phone", credits: 1000 })
    const accountId = created.accountId as string
    const { link } = await invite(server, accountId, "phone@browser.example", "owner")
    const page = await newPage(390)
    await page.goto(link)
    await check(page, "sign-up")
    // a common password is refused, with why, next to the field; the link still works
    await page.getByLabel("Password").fill("password1234")
    await page.getByRole("button", { name: "Create account access" }).click()
    assert.include(await page.locator("#password-error").innerText(), "common passwords")
    assert.strictEqual(await page.getByLabel("Password").getAttribute("aria-invalid"), "true")
    await check(page, "sign-up refused")
    await signUp(page, link, password)
    await check(page, "sign-in (joined)")
    await page.goto(`${server.api}/dashboard/forgot`)
    await check(page, "forgot password (no mail)")
    await signIn(page, "phone@browser.example", password)

    // first run: nothing leads nowhere
    assert.strictEqual(await page.getByRole("heading", { name: "Get started" }).count(), 1)
    assert.include(await page.locator("#first-call").innerText(), "X-API-Key: key_live_…")
    assert.strictEqual(await page.getByRole("link", { name: "API reference" }).getAttribute("href"), "/docs")
    await check(page, "overview (first run)")
    await page.getByRole("link", { name: "Create an API key" }).click()
    await page.waitForURL(/\/dashboard\/keys#create$/)

    // a name out of bounds: the message next to the field, the other values kept
    await page.getByLabel("Name").fill("x".repeat(101))
    await page.getByLabel("Monthly credit limit (optional)").fill("500")
    await page.evaluate(() => (globalThis as any).document.getElementById("name").removeAttribute("maxlength"))
    await page.getByLabel("Name").fill("y".repeat(101))
    await noValidate(page)
    await page.getByRole("button", { name: "Create key" }).click()
    assert.include(await page.locator("#name-error").innerText(), "must be 1 to 100 characters")
    assert.strictEqual(await page.getByLabel("Monthly credit limit (optional)").inputValue(), "500")
    await check(page, "keys with a refused form")

    await page.getByLabel("Name").fill("phone key")
    await page.getByLabel("Monthly credit limit (optional)").fill("")
    await page.getByRole("button", { name: "Create key" }).click()
    await page.waitForURL(/\/dashboard\/keys\/created\?ticket=/)
    const key = (await page.locator("#new-key").innerText()).trim()
    assert.match(key, /^key_live_[0-9A-Za-z]{32}$/)
    await check(page, "key created")
    await page.reload()
    assert.strictEqual(await page.getByRole("heading", { level: 1 }).innerText(), "Key already shown")
    await check(page, "key already shown")
    assert.strictEqual((await admin(server, "GET", `/admin/accounts/${accountId}/keys`)).keys.length, 1)

    await page.goto(`${server.api}/dashboard`)
    assert.include(await page.locator("#first-call").innerText(), `X-API-Key: ${key.slice(0, 13)}…`)

    // a call, then the overview has a chart
    const call = await post(
      server,
      "/api/v1/platforms/maps",
      { request: { op: "places", subjects: ["ChIJphone0001"] } },
      key
    )
    assert.strictEqual(call.status, 200)
    const price = call.body.cost.creditsCharged as number
    await page.reload()
    assert.strictEqual(await page.getByRole("heading", { name: "Get started" }).count(), 0)
    await check(page, "overview with usage")

    // the key page: rename (out of bounds first), a limit, spend this month
    await page.goto(`${server.api}/dashboard/keys`)
    await check(page, "keys")
    await page.getByRole("link", { name: "phone key" }).click()
    await page.waitForURL(/\/dashboard\/keys\/kid_/)
    const keyUrl = page.url()
    await page.getByLabel("Name").fill("   ")
    await page.getByRole("button", { name: "Rename key" }).click()
    assert.include(await page.locator("#name-error").innerText(), "must be 1 to 100 characters")
    await page.getByLabel("Name").fill("phone key renamed")
    await page.getByRole("button", { name: "Rename key" }).click()
    await page.waitForURL(keyUrl)
    assert.strictEqual(await page.getByRole("heading", { level: 1 }).innerText(), 'Key "phone key renamed"')
    await noValidate(page)
    await page.getByLabel("Limit in credits (empty for none)").fill("0")
    await page.getByRole("button", { name: "Save limit" }).click()
    assert.include(await page.locator("#limit-error").innerText(), "whole number")
    await page.getByLabel("Limit in credits (empty for none)").fill(String(price + 2))
    await page.getByRole("button", { name: "Save limit" }).click()
    await page.waitForURL(keyUrl)
    assert.match(
      await page.locator(".stats").innerText(),
      new RegExp(`${price}\\s+credits this month of a ${price + 2} limit`)
    )
    await check(page, "key page")

    // the limit at the hold: a call that would pass it is 402 key_credit_limit, nothing billed
    const before = (await request(`${server.api}/api/v1/balance`, { headers: { "x-api-key": key } })).body
    const refused = await post(
      server,
      "/api/v1/platforms/maps",
      { request: { op: "places", subjects: ["ChIJphone0002"] } },
      key
    )
    assert.strictEqual(refused.status, 402)
    assert.strictEqual(refused.body.error.code, "key_credit_limit")
    assert.deepInclude(refused.body.error.details, { required: price, limit: price + 2, spentThisMonth: price })
    const afterRefusal = (await request(`${server.api}/api/v1/balance`, { headers: { "x-api-key": key } })).body
    assert.strictEqual(afterRefusal.creditsRemaining, before.creditsRemaining)

    // roll with a one-hour grace: both keys work, then only the new one
    await noValidate(page)
    await page.getByLabel("Grace period (hours, 0 to 24)").fill("25")
    await page.getByRole("button", { name: "Roll key" }).click()
    assert.include(await page.locator("#grace-error").innerText(), "must be 0 to 24 hours")
    await page.getByLabel("Grace period (hours, 0 to 24)").fill("1")
    await page.getByRole("button", { name: "Roll key" }).click()
    await page.waitForURL(/\/dashboard\/keys\/created\?ticket=/)
    const rolled = (await page.locator("#new-key").innerText()).trim()
    assert.notStrictEqual(rolled, key)
    assert.include(await page.getByRole("main").innerText(), `replaces ${key.slice(0, 13)}…`)
    for (const k of [key, rolled]) {
      assert.strictEqual((await request(`${server.api}/api/v1/balance`, { headers: { "x-api-key": k } })).status, 200)
    }
    server.offset.ms += 61 * 60_000
    try {
      assert.strictEqual((await request(`${server.api}/api/v1/balance`, { headers: { "x-api-key": key } })).status, 401)
      assert.strictEqual(
        (await request(`${server.api}/api/v1/balance`, { headers: { "x-api-key": rolled } })).status,
        200
      )
    } finally {
      server.offset.ms -= 61 * 60_000
    }

    // the low-balance warning: a banner on every page while spendable credits are below it
    await page.goto(`${server.api}/dashboard`)
    await noValidate(page)
    await page.getByLabel("Warn below (credits; empty for no warning)").fill("-3")
    await page.getByRole("button", { name: "Save warning" }).click()
    assert.include(await page.locator("#threshold-error").innerText(), "whole number")
    await page.getByLabel("Warn below (credits; empty for no warning)").fill("5000")
    await page.getByRole("button", { name: "Save warning" }).click()
    await page.waitForURL(/\/dashboard#alerts$/)
    for (const path of ["/dashboard", "/dashboard/usage", "/dashboard/catalogue"]) {
      await page.goto(`${server.api}${path}`)
      assert.include(await page.locator(".banner").innerText(), "below your warning level of 5000")
    }

    for (const path of ["/dashboard/usage", "/dashboard/ledger", "/dashboard/catalogue"]) {
      await page.goto(`${server.api}${path}`)
      await check(page, path)
    }
    await page.goto(`${server.api}/dashboard/catalogue`)
    const places = page.getByRole("row").filter({ hasText: "places" }).first()
    const placesCells = await places.getByRole("cell").allInnerTexts()
    assert.match(placesCells[2]!, /^\d+ credits? per subject found$/)
    assert.notInclude(await page.getByRole("main").innerText(), "per_subject")
    assert.notMatch(await page.getByRole("main").innerText(), /\d+ s\b/)
    assert.strictEqual(await places.getByRole("link").first().getAttribute("href"), "/docs#/ops/maps")

    // the revoke confirmation, then the audit log says who did what from where
    const rolledRow = await admin(server, "GET", `/admin/accounts/${accountId}/keys`)
    const newest = (rolledRow.keys as Array<{ keyId: string; prefix: string }>).find((k) =>
      rolled.startsWith(k.prefix)
    )!
    await page.goto(`${server.api}/dashboard/keys/${newest.keyId}/revoke`)
    await check(page, "revoke confirmation")
    await page.getByRole("button", { name: "Revoke key" }).click()
    await page.waitForURL(/\/dashboard\/keys$/)
    await page.goto(`${server.api}/dashboard/audit`)
    const log = await page.getByRole("table").innerText()
    for (const action of [
      "signed in",
      "key created",
      "key renamed",
      "key limit set",
      "key rolled",
      "key revoked",
      "low-balance threshold set",
      "member joined"
    ]) {
      assert.include(log, action)
    }
    assert.include(log, "phone@browser.example")
    assert.include(log, "127.0.0.1")
    assert.include(log, "UTC")
    await check(page, "audit log")

    // HTML error pages: an unknown address, a stale form
    const missing = await page.goto(`${server.api}/dashboard/no-such-page`)
    assert.strictEqual(missing?.status(), 404)
    assert.strictEqual(await page.getByRole("heading", { level: 1 }).innerText(), "Page not found")
    assert.strictEqual((await missing?.allHeaders())?.["x-frame-options"], "DENY")
    await check(page, "404")
  })

  it("issue 24: pending invitations (resend, cancel), re-inviting a member, an owner's reset link ending every session; every page at 390 px", {
    timeout: 180_000
  }, async () => {
    const a = await account(server, 100, "team2")
    const { link } = await invite(server, a.accountId, "lead@browser.example", "owner")
    const owner = await newPage(390)
    await signUp(owner, link, password)
    await signIn(owner, "lead@browser.example", password)
    await owner.goto(`${server.api}/dashboard/members`)
    await owner.getByLabel("Email").fill("helper@browser.example")
    await owner.getByRole("button", { name: "Create invitation link" }).click()
    await owner.waitForURL(/\/dashboard\/members\?ticket=/)
    const first = (await owner.locator("#invite-link").innerText()).trim()
    assert.include(await owner.getByRole("main").innerText(), "this server sends no email")
    await check(owner, "members with a new invitation")
    await owner.reload()
    assert.strictEqual(await owner.locator("#invite-link").count(), 0)
    const pending = owner.getByRole("table", { name: "Pending invitations (times in UTC)" })
    assert.include(await pending.innerText(), "helper@browser.example")

    // resend: a new link, the old one dead; an unknown, used or expired link: one identical page
    await owner.getByRole("button", { name: "Resend the invitation of helper@browser.example" }).click()
    await owner.waitForURL(/\/dashboard\/members\?ticket=/)
    const second = (await owner.locator("#invite-link").innerText()).trim()
    assert.notStrictEqual(second, first)
    const visitor = await newPage(390)
    await visitor.goto(first)
    const dead = await visitor.getByRole("main").innerText()
    assert.include(dead, "invalid, used or expired")
    await check(visitor, "invalid sign-up link")
    await visitor.goto(`${server.api}/dashboard/sign-up?token=inv_${"x".repeat(43)}`)
    assert.strictEqual(await visitor.getByRole("main").innerText(), dead)
    await signUp(visitor, second, "helper password 1")
    await visitor.goto(second)
    assert.strictEqual(await visitor.getByRole("main").innerText(), dead)

    // cancel
    await owner.getByLabel("Email").fill("nobody@browser.example")
    await owner.getByRole("button", { name: "Create invitation link" }).click()
    await owner.waitForURL(/\/dashboard\/members\?ticket=/)
    const cancelled = (await owner.locator("#invite-link").innerText()).trim()
    await owner.getByRole("button", { name: "Cancel the invitation of nobody@browser.example" }).click()
    await owner.waitForURL(/\/dashboard\/members$/)
    assert.notInclude(await owner.getByRole("main").innerText(), "nobody@browser.example")
    await visitor.goto(cancelled)
    assert.strictEqual(await visitor.getByRole("main").innerText(), dead)

    // re-inviting a member says so, next to the field, the email kept
    await owner.getByLabel("Email").fill("helper@browser.example")
    await owner.getByRole("button", { name: "Create invitation link" }).click()
    assert.include(await owner.locator("#invite-email-error").innerText(), "already a member")
    assert.strictEqual(await owner.getByLabel("Email").inputValue(), "helper@browser.example")
    await check(owner, "members with a refused invitation")

    // an owner's reset link for the helper: using it ends every session of theirs
    const helper = await newPage(390)
    await signIn(helper, "helper@browser.example", "helper password 1")
    assert.match(helper.url(), /\/dashboard$/)
    await owner.goto(`${server.api}/dashboard/members`)
    await owner.getByRole("button", { name: "Password reset link for helper@browser.example" }).click()
    await owner.waitForURL(/\/dashboard\/members\?ticket=/)
    const resetLink = (await owner.locator("#invite-link").innerText()).trim()
    assert.match(resetLink, /\/dashboard\/reset\?token=rst_/)
    await visitor.goto(resetLink)
    await check(visitor, "reset form")
    await visitor.getByLabel("New password").fill("qwertyuiop")
    await visitor.getByRole("button", { name: "Set the new password" }).click()
    assert.include(await visitor.locator("#password-error").innerText(), "common passwords")
    await visitor.getByLabel("New password").fill("helper password 2")
    await visitor.getByRole("button", { name: "Set the new password" }).click()
    await visitor.waitForURL(/\/dashboard\/sign-in\?reason=reset$/)
    await check(visitor, "sign-in after reset")
    await helper.goto(`${server.api}/dashboard/keys`)
    assert.match(helper.url(), /\/dashboard\/sign-in\?reason=expired$/)
    await signIn(helper, "helper@browser.example", "helper password 2")
    assert.match(helper.url(), /\/dashboard$/)
    await visitor.goto(resetLink)
    const usedReset = await visitor.getByRole("main").innerText()
    await visitor.goto(`${server.api}/dashboard/reset?token=rst_${"a".repeat(32)}`)
    assert.strictEqual(await visitor.getByRole("main").innerText(), usedReset)
    await check(visitor, "invalid reset link")

    // removal asks first
    await owner.goto(`${server.api}/dashboard/members`)
    await check(owner, "members")
    await owner.getByRole("link", { name: "Remove helper@browser.example" }).click()
    await check(owner, "remove confirmation")
    await owner.getByRole("button", { name: "Remove member" }).click()
    await owner.waitForURL(/\/dashboard\/members$/)

    await owner.goto(`${server.api}/dashboard/audit`)
    const log = await owner.getByRole("table").innerText()
    for (const action of [
      "member invited",
      "invitation resent",
      "invitation cancelled",
      "password reset issued",
      "password reset used",
      "member removed"
    ]) {
      assert.include(log, action)
    }

    // a stale form (another tab, before the latest sign-in): a page saying so, not JSON
    const tab = await newPage(390)
    await signIn(tab, "lead@browser.example", password)
    await tab.goto(`${server.api}/dashboard/keys`)
    // a second tab of the same browser signs out and in again: the first tab's form carries the old session's token
    const otherTab = await tab.context().newPage()
    await otherTab.goto(`${server.api}/dashboard`)
    await otherTab.getByRole("button", { name: "Sign out" }).click()
    await otherTab.waitForURL(/\/dashboard\/sign-in$/)
    await signIn(otherTab, "lead@browser.example", password)
    await tab.getByLabel("Name").fill("stale")
    await tab.getByRole("button", { name: "Create key" }).click()
    await tab.waitForLoadState("load")
    assert.strictEqual(await tab.getByRole("heading", { level: 1 }).innerText(), "This form is out of date")
    await check(tab, "stale form")
  })
})
