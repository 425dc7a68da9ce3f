// A vitest global set-up: the apps' bundles (`apps/server/build.mjs`: the server, the operator CLI, the runner) are
// built before the test files run, unless they are newer than every source they are built from. Tests that spawn the
// server, the CLI or the runner as processes run the bundles: a process started under tsx compiles the workspace's
// TypeScript at each start (about 5 s of CPU and 3 s here, measured with the runner's `--help`), the bundle in 0.8 s;
// the suites spawn such processes from some eighty call sites. The bundles are built from the same sources the tests import.
//
// The server's and the runner's suites run side by side (turbo): a build removes dist/chunks before writing it, so
// builds are taken in turn under a lock directory, and the second finds the bundles fresh.
import { execFileSync } from "node:child_process"
import { mkdirSync, readdirSync, rmSync, statSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"

const root = fileURLToPath(new URL("../..", import.meta.url))
const outputs = ["apps/server/dist/main.js", "apps/server/dist/cli.js", "apps/runner/dist/main.js"]
const lock = join(root, "apps/server/.bundles-lock")

/** The newest modification time of the files the bundles are built from (the workspace's sources, the build, the lockfile). */
const newestSource = () => {
  let newest = 0
  const walk = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.name === "node_modules" || entry.name === "dist") continue
      const path = join(dir, entry.name)
      if (entry.isDirectory()) walk(path)
      else newest = Math.max(newest, statSync(path).mtimeMs)
    }
  }
  for (const group of ["apps", "packages"])
    for (const pkg of readdirSync(join(root, group))) {
      const src = join(root, group, pkg, "src")
      try {
        walk(src)
      } catch {
        // a package without sources
      }
      try {
        newest = Math.max(newest, statSync(join(root, group, pkg, "package.json")).mtimeMs)
      } catch {
        // none
      }
    }
  for (const file of ["apps/server/build.mjs", "pnpm-lock.yaml"])
    newest = Math.max(newest, statSync(join(root, file)).mtimeMs)
  return newest
}

const oldestOutput = () => {
  let oldest = Number.POSITIVE_INFINITY
  for (const file of outputs) {
    try {
      oldest = Math.min(oldest, statSync(join(root, file)).mtimeMs)
    } catch {
      return 0
    }
  }
  return oldest
}

const sleep = (ms) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms)

/** Builds the bundles unless they are fresh; returns whether it built. */
export const ensureBundles = () => {
  const deadline = Date.now() + 300_000
  for (;;) {
    try {
      mkdirSync(lock)
      break
    } catch {
      // another suite builds: wait for it (a lock older than two minutes was left by a killed build)
      try {
        if (Date.now() - statSync(lock).mtimeMs > 120_000) rmSync(lock, { recursive: true, force: true })
      } catch {
        // already gone
      }
      if (Date.now() > deadline) throw new Error(`the bundles' build lock ${lock} was held for 5 minutes`)
      sleep(200)
    }
  }
  try {
    if (oldestOutput() > newestSource()) return false
    execFileSync(process.execPath, [join(root, "apps/server/build.mjs")], { cwd: root, stdio: "inherit" })
    return true
  } finally {
    rmSync(lock, { recursive: true, force: true })
  }
}

export default function setup() {
  ensureBundles()
}
