// Tracked entities through the operator API and `pnpm admin track`: a paid call over HTTP notes its subjects' demand;
// the operator pins (canonical subjects, the replay request kept), lists and unpins; an op without a freshness
// window cannot be tracked (400 naming the op).
import { spawn } from "node:child_process"
import * as Testing from "@pdr/store-pg/Testing"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { account, admin, post, type Running, request, start } from "./harness.js"
import { cliBundle } from "./processes.js"

const serverUp = await Testing.serverAvailable()

/** `pnpm admin ...` against the in-process test server (asynchronous: the server answers on this event loop). */
const run = (server: Running, ...args: Array<string>) =>
  new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn(process.execPath, [cliBundle, ...args], {
      env: { ...process.env, ADMIN_URL: server.admin, ADMIN_TOKEN: server.token }
    })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (d) => {
      stdout += d
    })
    child.stderr.on("data", (d) => {
      stderr += d
    })
    child.once("close", (code) => resolve({ code, stdout, stderr }))
  })

describe.skipIf(!serverUp)("tracked entities", () => {
  let server: Running
  beforeAll(async () => {
    server = await start()
  }, 60_000)
  afterAll(() => server?.close())

  it("demand from calls, pins from the operator", async () => {
    const { key } = await account(server, 100)
    const paid = await post(
      server,
      "/api/v1/platforms/short_video",
      { request: { op: "profiles", subjects: ["@Jane.Doe"] } },
      key
    )
    expect(paid.status).toBe(200)
    await new Promise((r) => setTimeout(r, 1500)) // demand is written in batches, every second
    const all = await admin(server, "GET", "/admin/tracked")
    expect(all.tracked).toEqual([
      expect.objectContaining({ platform: "short_video", op: "profiles", subject: "jane.doe", pinned: false })
    ])
    expect(all.tracked[0].request).toEqual({ op: "profiles", subjects: ["jane.doe"] })

    const added = await run(
      server,
      "track",
      "add",
      "--platform",
      "maps",
      "--request",
      '{"op":"places","subjects":["ChIJN1t_tDeuEmsRUsoyG83frY4"]}',
      "--json"
    )
    expect(added.code, added.stderr).toBe(0)
    expect(JSON.parse(added.stdout).tracked[0]).toMatchObject({
      platform: "maps",
      subject: "ChIJN1t_tDeuEmsRUsoyG83frY4",
      pinned: true
    })
    const listed = JSON.parse((await run(server, "track", "list", "--pinned", "--json")).stdout)
    expect(listed.tracked.map((e: { subject: string }) => e.subject)).toEqual(["ChIJN1t_tDeuEmsRUsoyG83frY4"])

    const refused = await request(`${server.admin}/admin/tracked`, {
      method: "POST",
      headers: { authorization: `Bearer ${server.token}`, "content-type": "application/json" },
      body: JSON.stringify({ platform: "short_video", request: { op: "history", subjects: ["jane.doe"] } })
    })
    expect(refused.status).toBe(400)
    expect(refused.body.error.message).toContain("short_video history")

    const removed = await run(
      server,
      "track",
      "remove",
      "--platform",
      "maps",
      "--subject",
      "ChIJN1t_tDeuEmsRUsoyG83frY4"
    )
    expect(removed.stdout.trim()).toBe("unpinned 1")
    expect((await admin(server, "GET", "/admin/tracked?pinned=true")).tracked).toEqual([])
  }, 60_000)
})
