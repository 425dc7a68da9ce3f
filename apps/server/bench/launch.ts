/**
 * The node options `pnpm start` runs the server with (the root package.json's `start` script, the one place they are
 * written): the bench servers run with the same ones unless BENCH_NODE_OPTIONS says otherwise.
 */
import { readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"

const rootPackage = fileURLToPath(new URL("../../../package.json", import.meta.url))

/** The options between `node` and the server's bundle in a start script. */
export const nodeOptionsOf = (script: string): ReadonlyArray<string> => {
  const m = /(?:^|&&\s*)node\s+((?:--[\w-]+(?:=\S+)?\s+)*)apps\/server\/dist\/main\.js/.exec(script)
  if (m === null) throw new Error(`no \`node ... apps/server/dist/main.js\` in the start script: ${script}`)
  return m[1]!.split(/\s+/).filter((a) => a.length > 0)
}

/** `pnpm start`'s node options. */
export const startNodeOptions = (): ReadonlyArray<string> =>
  nodeOptionsOf((JSON.parse(readFileSync(rootPackage, "utf8")) as { scripts: { start: string } }).scripts.start)

/** A bench server's node options: BENCH_NODE_OPTIONS when set, else `pnpm start`'s. */
export const benchNodeOptions = (): Array<string> => {
  const env = process.env["BENCH_NODE_OPTIONS"]
  return env === undefined ? [...startNodeOptions()] : env.split(" ").filter((a) => a.length > 0)
}
