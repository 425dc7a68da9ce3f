// Bundles the server, the operator CLI (apps/server/dist) and the runner (apps/runner/dist) for plain `node` (no loader at run time):
// one file each, tree-shaken, with the workspace packages taken from their sources.

import { fileURLToPath } from "node:url"
import { build } from "esbuild"

const root = fileURLToPath(new URL("../..", import.meta.url))

const bundle = (entryPoints, outdir) =>
  build({
    entryPoints,
    outdir,
    bundle: true,
    platform: "node",
    target: "node20",
    format: "esm",
    conditions: ["@pdr/source"],
    // PGlite loads its WebAssembly and data files next to its own module; pg's native binding is optional
    external: ["@electric-sql/pglite", "@electric-sql/pglite-socket", "pg-native"],
    banner: {
      js: "import { createRequire as __pdrRequire } from 'node:module'; const require = __pdrRequire(import.meta.url);"
    },
    sourcemap: true,
    logLevel: "warning"
  })

await bundle(
  { main: `${root}/apps/server/src/main.ts`, cli: `${root}/apps/server/src/cli.ts` },
  `${root}/apps/server/dist`
)
await bundle({ main: `${root}/apps/runner/src/main.ts` }, `${root}/apps/runner/dist`)
