// A server as a separate process (for crash and shutdown tests): spawned from its bundle (built before the suite by
// the vitest set-up, `tooling/vitest/bundles.js`), killed by signal.
import { type ChildProcess, spawn } from "node:child_process"
import { mkdtempSync } from "node:fs"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"

const main = fileURLToPath(new URL("../src/main.ts", import.meta.url))
const bundled = fileURLToPath(new URL("../dist/main.js", import.meta.url))
/** The operator CLI's bundle (`pnpm admin` runs its source under tsx; the tests run the same code bundled). */
export const cliBundle = fileURLToPath(new URL("../dist/cli.js", import.meta.url))

export const freePort = () =>
  new Promise<number>((resolve) => {
    const probe = createServer()
    probe.listen(0, "127.0.0.1", () => {
      const port = (probe.address() as { port: number }).port
      probe.close(() => resolve(port))
    })
  })

/**
 * Child processes still running when this process exits are killed (a bench that throws, a test worker that ends): a
 * server left behind kept its port and, with inherited output, the caller's pipe open (`pnpm bench | tail` never ended).
 */
const children = new Set<ChildProcess>()
let reaping = false
export const track = <C extends ChildProcess>(child: C): C => {
  children.add(child)
  child.once("exit", () => children.delete(child))
  if (!reaping) {
    reaping = true
    process.once("exit", () => {
      for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL")
    })
  }
  return child
}

export interface ServerProcess {
  readonly api: string
  readonly admin: string
  readonly token: string
  readonly child: ChildProcess
  readonly output: () => string
  readonly exited: Promise<number | null>
}

/**
 * Spawns the server and waits until it answers: its bundle (the suites build it first; a bench builds it once per
 * run), its sources under tsx with `source`, or another `entry`.
 */
export const spawnServer = async (
  env: Record<string, string>,
  nodeArgs: ReadonlyArray<string> = [],
  options: { readonly source?: boolean; readonly entry?: string } = {}
): Promise<ServerProcess> => {
  const port = await freePort()
  const adminPort = await freePort()
  const token = env["ADMIN_TOKEN"] ?? `op_${Math.random().toString(36).slice(2)}`
  let output = ""
  const args = options.entry
    ? [...nodeArgs, options.entry]
    : options.source
      ? [...nodeArgs, "--import", "tsx", "--conditions=@pdr/source", main]
      : [...nodeArgs, bundled]
  const child = track(
    spawn(process.execPath, args, {
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
  )
  child.stdout!.on("data", (d) => (output += d))
  child.stderr!.on("data", (d) => (output += d))
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)))
  const api = `http://127.0.0.1:${port}`
  // both listeners must answer (the admin one opens after the public one: a test's first admin call on a loaded
  // machine met ECONNREFUSED); a server that never does fails here, naming what it printed
  const admin = `http://127.0.0.1:${adminPort}`
  const deadline = Date.now() + 120_000
  const answers = async (url: string) => {
    try {
      await (await fetch(url)).arrayBuffer()
      return true
    } catch {
      return false
    }
  }
  for (let up = false; !up; ) {
    up = (await answers(`${api}/api/v1/platforms`)) && (await answers(`${admin}/`))
    if (up) break
    if (child.exitCode !== null) throw new Error(`server exited: ${output}`)
    if (Date.now() > deadline) {
      child.kill("SIGKILL")
      throw new Error(`server did not answer on both ports within 120 s: ${output.slice(-2000)}`)
    }
    await new Promise((r) => setTimeout(r, 100))
  }
  return { api, admin, token, child, output: () => output, exited }
}
