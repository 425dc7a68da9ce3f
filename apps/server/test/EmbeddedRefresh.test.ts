// On the embedded default the server runs the nightly refresh in its own process, on the same schedule as
// `pnpm runner` (here every 2 s), and a second process on its DATA_DIR is refused while it runs.
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { spawnServer } from "./processes.js"

const operator = async (server: { admin: string; token: string }, method: string, path: string, body?: unknown) => {
  const res = await fetch(`${server.admin}${path}`, {
    method,
    headers: { authorization: `Bearer ${server.token}`, "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) })
  })
  return (await res.json()) as any
}

describe("the embedded server's in-process refresh", () => {
  it("refreshes a pinned entity on its schedule; a second process on the DATA_DIR is refused", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "pdr-embedded-refresh-"))
    const first = await spawnServer({ DATA_DIR: dataDir })
    let account: any
    try {
      account = await operator(first, "POST", "/admin/accounts", { name: "refresh", credits: 100 })
      const pinned = await operator(first, "POST", "/admin/tracked", {
        platform: "short_video",
        request: { op: "profiles", subjects: ["jane.doe"] }
      })
      expect(pinned.tracked).toHaveLength(1)
      // a second server on the same DATA_DIR: refused at start, naming the owner
      await expect(spawnServer({ DATA_DIR: dataDir })).rejects.toThrow(`is in use by process ${first.child.pid}`)
    } finally {
      // never leave the server running when an assertion fails
      first.child.kill("SIGTERM")
      await first.exited
    }

    const second = await spawnServer({
      DATA_DIR: dataDir,
      REFRESH_ACCOUNT_ID: account.accountId,
      REFRESH_CRON: "*/2 * * * * *"
    })
    try {
      let shown: any
      for (let i = 0; i < 150; i++) {
        shown = await operator(second, "GET", `/admin/accounts/${account.accountId}`)
        if (shown.balance < 100) break
        await new Promise((r) => setTimeout(r, 200))
      }
      expect(shown.balance).toBe(98) // one profile, 2 credits, billed to the refresh account
      expect(shown.ledger[0]).toMatchObject({ kind: "capture", credits: -2 })
      expect(shown.ledger[0].keyId).toMatch(/^refresh:\d{4}-\d{2}-\d{2}:.+$/) // refresh:<pass>:<runner>
    } finally {
      second.child.kill("SIGTERM")
      await second.exited
    }
  }, 120_000)
})
