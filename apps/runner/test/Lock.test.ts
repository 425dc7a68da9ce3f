// The embedded database is one process's: while this process has a DATA_DIR open, a runner (or a server) started on
// it is refused with a clear message instead of writing beside it; a lock left by a dead process is taken over, and
// the lock is released when the database closes.
import { spawnSync } from "node:child_process"
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Embedded } from "@pdr/store-pg"
import { Effect, Exit, Scope } from "effect"
import { describe, expect, it } from "vitest"
import { spawnRunner } from "./fixtures.js"

describe("the embedded DATA_DIR lock", () => {
  it("refuses a second process on the same DATA_DIR, takes over a dead owner's lock, and releases at close", async () => {
    const dir = mkdtempSync(join(tmpdir(), "pdr-lock-"))
    // a dead process's lock: taken over
    const dead = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"]).stdout.toString()
    writeFileSync(Embedded.lockPath(dir), dead)
    const scope = Effect.runSync(Scope.make())
    await Effect.runPromise(Scope.extend(Embedded.start(dir), scope))
    expect(readFileSync(Embedded.lockPath(dir), "utf8")).toBe(String(process.pid))
    try {
      // no DATABASE_URL (an empty value removes it): the runner opens the embedded database of DATA_DIR
      const second = spawnRunner(["once"], { DATA_DIR: dir, REFRESH_ACCOUNT_ID: "acct_x", DATABASE_URL: "" })
      expect(await second.exited).toBe(1)
      expect(second.output()).toContain(`DATA_DIR ${dir} is in use by process ${process.pid}`)
      // in this process too, a second open is refused while the first is open
      const again = await Effect.runPromiseExit(Effect.scoped(Embedded.start(dir)))
      expect(Exit.isFailure(again) && String(again.cause)).toContain("is in use by process")
    } finally {
      await Effect.runPromise(Scope.close(scope, Exit.void))
    }
    expect(existsSync(Embedded.lockPath(dir))).toBe(false)
  }, 60_000)
})
