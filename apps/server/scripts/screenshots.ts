// The README's dashboard screenshots at 390 px (issue 24): a real server on a fresh schema of the local PostgreSQL,
// an owner who creates a key and makes a few calls, Debian's chromium through playwright-core.
// Run: node --import tsx --conditions=@pdr/source apps/server/scripts/screenshots.ts
// biome-ignore-all lint/performance/useDomNodeTextContent: these are Playwright locators, not DOM nodes
import { fileURLToPath } from "node:url"
import { chromium } from "playwright-core"
import { invite, testScrypt } from "../test/dashboard.js"
import { admin, post, start } from "../test/harness.js"

const docs = (name: string) => fileURLToPath(new URL(`../../../docs/${name}`, import.meta.url))
const server = await start({ options: { dashboard: testScrypt } })
const browser = await chromium.launch({
  executablePath: "/usr/bin/chromium",
  args: [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync"
  ]
})
try {
  const created = await admin(server, "POST", "/admin/accounts", { name: "Acme", credits: 5000 })
  const { link } = await invite(server, created.accountId, "ana@acme.example", "owner")
  const page = await (
    await browser.newContext({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 2 })
  ).newPage()
  await page.goto(link)
  await page.getByLabel("Password").fill("a long owner password")
  await page.getByRole("button", { name: "Create account access" }).click()
  await page.waitForURL(/sign-in/)
  await page.getByLabel("Email").fill("ana@acme.example")
  await page.getByLabel("Password").fill("a long owner password")
  await page.getByRole("button", { name: "Sign in" }).click()
  await page.waitForURL(/\/dashboard$/)
  const keys: Array<string> = []
  for (const [name, limit] of [
    ["production", "2000"],
    ["staging", ""]
  ] as const) {
    await page.goto(`${server.api}/dashboard/keys`)
    await page.getByLabel("Name").fill(name)
    await page.getByLabel("Monthly credit limit (optional)").fill(limit)
    await page.getByRole("button", { name: "Create key" }).click()
    await page.waitForURL(/created/)
    keys.push((await page.locator("#new-key").innerText()).trim())
  }
  const calls = [
    ["maps", { op: "places", subjects: ["ChIJacme00001", "ChIJacme00002"] }],
    ["short_video", { op: "profiles", subjects: ["acme.brand"] }],
    ["maps", { op: "places", subjects: ["ChIJacme00003"] }]
  ] as const
  for (const [i, [platform, request]] of calls.entries()) {
    const r = await post(server, `/api/v1/platforms/${platform}`, { request }, keys[i % 2]!)
    if (r.status !== 200) throw new Error(`call ${platform}: ${r.status} ${r.text}`)
  }
  await page.goto(`${server.api}/dashboard`)
  await page.screenshot({ path: docs("dashboard-overview-390.png"), fullPage: true })
  await page.goto(`${server.api}/dashboard/keys`)
  await page.screenshot({ path: docs("dashboard-keys-390.png"), fullPage: true })
  console.log("wrote docs/dashboard-overview-390.png and docs/dashboard-keys-390.png")
} finally {
  await browser.close()
  await server.close()
}
