// The spawning helpers of the tests and benches: a process that throws leaves no child behind (issue 22's bench, run
// with a bad TEST_DATABASE_URL, died and left its bare server running, holding its port and the caller's pipe).
import { spawn } from "node:child_process"
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "vitest"

const processes = fileURLToPath(new URL("./processes.ts", import.meta.url))

/** Whether a process runs: it exists and is not a zombie (killed, not yet reaped by whoever adopted it). */
const alive = (pid: number) => {
  try {
    return readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ")[0] !== "Z"
  } catch {
    return false
  }
}

describe("tracked child processes", () => {
  it("are killed when the process that spawned them exits on an error", async () => {
    const dir = mkdtempSync(join(tmpdir(), "pdr-track-"))
    const script = join(dir, "parent.ts")
    writeFileSync(
      script,
      `import { spawn } from "node:child_process"
import { track } from ${JSON.stringify(processes)}
const child = track(spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], { stdio: "inherit" }))
console.log(String(child.pid))
setTimeout(() => { throw new Error("the bench failed") }, 200)
`
    )
    const parent = spawn(process.execPath, ["--import", "tsx", script], { stdio: ["ignore", "pipe", "pipe"] })
    let out = ""
    parent.stdout.on("data", (d) => (out += d))
    // the pipe ends only once every holder of it (the child inherits it) is gone
    const ended = new Promise<void>((resolve) => parent.stdout.once("end", () => resolve()))
    const code = await new Promise<number | null>((resolve) => parent.once("exit", (c) => resolve(c)))
    expect(code).not.toBe(0)
    // (left behind, the child holds the pipe for good: 5 s is the bound here)
    await Promise.race([ended, new Promise((r) => setTimeout(r, 5000))])
    const pid = Number(out.trim())
    expect(pid).toBeGreaterThan(0)
    try {
      await new Promise((r) => setTimeout(r, 100))
      expect(alive(pid)).toBe(false)
    } finally {
      if (alive(pid)) process.kill(pid, "SIGKILL")
    }
  }, 30_000)
})
