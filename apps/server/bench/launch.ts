/**
 * The node options `pnpm start` runs the server with and `pnpm runner` the runner (the root package.json's `start` and
 * `runner` scripts, the one place each is written): the bench servers and runners run with the same ones unless
 * BENCH_NODE_OPTIONS (BENCH_RUNNER_NODE_OPTIONS adds to the runner's) says otherwise.
 */
import { readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"

const rootPackage = fileURLToPath(new URL("../../../package.json", import.meta.url))

/** The options between `node` and `entry` in a script. */
export const nodeOptionsOf = (script: string, entry = "apps/server/dist/main.js"): ReadonlyArray<string> => {
  const escaped = entry.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")
  const m = new RegExp(`(?:^|&&\\s*)node\\s+((?:--[\\w-]+(?:=\\S+)?\\s+)*)${escaped}`).exec(script)
  if (m === null) throw new Error(`no \`node ... ${entry}\` in the script: ${script}`)
  return m[1]!.split(/\s+/).filter((a) => a.length > 0)
}

const scripts = () => (JSON.parse(readFileSync(rootPackage, "utf8")) as { scripts: Record<string, string> }).scripts

/** `pnpm start`'s node options. */
export const startNodeOptions = (): ReadonlyArray<string> => nodeOptionsOf(scripts()["start"]!)

/** `pnpm runner`'s V8 options: its node options but the loader's (`--import=tsx`, `--conditions=...`). */
export const runnerNodeOptions = (): ReadonlyArray<string> =>
  nodeOptionsOf(scripts()["runner"]!, "apps/runner/src/main.ts").filter(
    (o) => !o.startsWith("--import") && !o.startsWith("--conditions")
  )

/** A bench server's node options: BENCH_NODE_OPTIONS when set, else `pnpm start`'s. */
export const benchNodeOptions = (): Array<string> => {
  const env = process.env["BENCH_NODE_OPTIONS"]
  return env === undefined ? [...startNodeOptions()] : env.split(" ").filter((a) => a.length > 0)
}
