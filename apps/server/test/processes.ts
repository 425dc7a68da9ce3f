// A server as a separate process (for crash and shutdown tests): spawned with tsx, killed by signal.
import { type ChildProcess, spawn } from "node:child_process"
import { mkdtempSync } from "node:fs"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"

const main = fileURLToPath(new URL("../src/main.ts", import.meta.url))
const bundled = fileURLToPath(new URL("../dist/main.js", import.meta.url))

export const freePort = () =>
  new Promise<number>((resolve) => {
    const probe = createServer()
    probe.listen(0, "127.0.0.1", () => {
      const port = (probe.address() as { port: number }).port
      probe.close(() => resolve(port))
    })
  })

export interface ServerProcess {
  readonly api: string
  readonly admin: string
  readonly token: string
  readonly child: ChildProcess
  readonly output: () => string
  readonly exited: Promise<number | null>
}

/** Spawns the server and waits until it answers. */
export const spawnServer = async (
  env: Record<string, string>,
  nodeArgs: ReadonlyArray<string> = [],
  options: { readonly bundle?: boolean; readonly entry?: string } = {}
): Promise<ServerProcess> => {
  const port = await freePort()
  const adminPort = await freePort()
  const token = env["ADMIN_TOKEN"] ?? `op_${Math.random().toString(36).slice(2)}`
  let output = ""
  const args = options.entry
    ? [...nodeArgs, options.entry]
    : options.bundle
      ? [...nodeArgs, bundled]
      : [...nodeArgs, "--import", "tsx", "--conditions=@pdr/source", main]
  const child = spawn(process.execPath, args, {
    env: {
      ...process.env,
      PORT: String(port),
      HOST: "127.0.0.1",
      ADMIN_PORT: String(adminPort),
      ADMIN_TOKEN: token,
      DATA_DIR: mkdtempSync(join(tmpdir(), "pdr-")),
      DEMO: "false",
      RATE_LIMIT_RPS: "100000",
      RATE_LIMIT_BURST: "100000",
      ...env
    },
    stdio: ["ignore", "pipe", "pipe"]
  })
  child.stdout!.on("data", (d) => (output += d))
  child.stderr!.on("data", (d) => (output += d))
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)))
  const api = `http://127.0.0.1:${port}`
  for (let i = 0; i < 200; i++) {
    try {
      if ((await fetch(`${api}/api/v1/platforms`)).ok) break
    } catch {}
    if (child.exitCode !== null) throw new Error(`server exited: ${output}`)
    await new Promise((r) => setTimeout(r, 100))
  }
  return { api, admin: `http://127.0.0.1:${adminPort}`, token, child, output: () => output, exited }
}
