// biome-ignore-all lint/performance/useDomNodeTextContent: these are Playwright locators, not DOM nodes
// D13 in a real browser: the interactive docs at /docs render the served OpenAPI document offline (every asset from
// our own server; any other host is refused and recorded), with one operation per platform and an example body per
// op, and "Try it out" sends a quote that the server answers.
import { existsSync } from "node:fs"
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { Catalogue } from "@pdr/domain"
import * as Testing from "@pdr/store-pg/Testing"
import { type Browser, chromium } from "playwright-core"
import { account, type Running, start } from "./harness.js"

const chromiumPath = "/usr/bin/chromium"
const ready = (await Testing.serverAvailable()) && existsSync(chromiumPath)

describe.skipIf(!ready)("/docs in a browser", () => {
  let server: Running
  let browser: Browser
  beforeAll(async () => {
    server = await start()
    browser = await chromium.launch({
      executablePath: chromiumPath,
      args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update"]
    })
  }, 60_000)
  afterAll(async () => {
    await browser?.close()
    await server?.close()
  })

  // a long walk through every platform's section on a shared machine: a time limit for the whole flow
  it("renders every platform's operation with its op examples, offline, and Try it out answers a quote", async () => {
    const a = await account(server, 100, "docs")
    const context = await browser.newContext()
    context.setDefaultTimeout(15_000)
    const elsewhere: Array<string> = []
    const origin = new URL(server.api).origin
    await context.route("**/*", (route) => {
      const url = route.request().url()
      if (url.startsWith(origin) || url.startsWith("data:")) return route.continue()
      elsewhere.push(url)
      return route.abort()
    })
    const page = await context.newPage()
    const errors: Array<string> = []
    page.on("pageerror", (e) => errors.push(e.message))
    await page.goto(`${server.api}/docs`)
    const operations = page.locator(".opblock")
    await operations.first().waitFor()
    const expected = Catalogue.platforms.length + 2
    await operations.nth(expected - 1).waitFor()
    const paths = await page.locator(".opblock-summary-path").allInnerTexts()
    for (const p of Catalogue.platforms)
      assert.include(
        paths.map((t) => t.replace(/\u200b/g, "")),
        `/api/v1/platforms/${p.id}`
      )

    // the maps operation: its examples are its ops, and Try it out sends the chosen one
    const maps = page.locator(".opblock", { has: page.locator('[data-path="/api/v1/platforms/maps"]') })
    await maps.locator(".opblock-summary").click()
    const select = maps.locator(".examples-select select").first()
    await select.waitFor()
    const options = await select.locator("option").allInnerTexts()
    const ops = Catalogue.findPlatform("maps")!
      .ops.filter((o) => o.available)
      .map((o) => o.name)
    for (const op of ops)
      assert.isTrue(
        options.some((o) => o.startsWith(`${op}:`) || o === op),
        `example ${op}`
      )

    await page.locator(".btn.authorize").first().click()
    const dialog = page.locator(".dialog-ux")
    await dialog.locator("input").first().fill(a.key)
    await dialog.locator(".btn.modal-btn.auth.authorize").first().click()
    await dialog.locator(".btn-done").first().click()
    await maps.locator(".try-out__btn").click()
    const body = maps.locator("textarea.body-param__text")
    const example = JSON.parse(await body.inputValue()) as { request: Record<string, unknown> }
    await body.fill(JSON.stringify({ ...example, estimateOnly: true }))
    await maps.locator(".execute").click()
    const status = maps.locator(".live-responses-table tbody .response-col_status").first()
    await status.waitFor()
    assert.strictEqual((await status.innerText()).trim(), "200")
    const answer = await maps.locator(".live-responses-table tbody .response-col_description pre").first().innerText()
    assert.match(answer, /"estimate"/, "the quote came back")

    assert.deepStrictEqual(elsewhere, [], "no request left our server")
    assert.deepStrictEqual(errors, [], "no script error")
    await context.close()
  }, 120_000)
})
