// Bundles the server, the operator CLI (apps/server/dist) and the runner (apps/runner/dist) for plain `node` (no loader at run time):
// one file each (and, in dist/chunks, the modules they load only when first needed), tree-shaken, with the workspace
// packages taken from their sources.
//
// Issue 22 (the embedded default's memory): V8 keeps a script's whole source in the heap, as one byte per character
// only when every character is Latin-1, else two. The bundle is written without whitespace or comments (about 6.7
// instead of 8.3 MB) and in ASCII only: esbuild escapes every string and regular expression itself (its default
// charset), all but the text of tagged templates (the dashboard's html`...`), which it must keep as written; the
// workspace's own sources are therefore read with every non-ASCII character written as its \u escape (the same value
// everywhere: no source of ours reads a template's `raw` text). 15.9 MB of source in the heap become 6.4 MB.

import { readFile, rm } from "node:fs/promises"
import { resolve } from "node:path"
import { fileURLToPath } from "node:url"
import { build } from "esbuild"

const root = fileURLToPath(new URL("../..", import.meta.url))

/** The workspace's own TypeScript sources, with non-ASCII characters written as \u escapes. */
const asciiSources = {
  name: "ascii-sources",
  setup(b) {
    b.onLoad({ filter: /\/(apps|packages)\/[^/]+\/src\/.*\.ts$/ }, async (args) => {
      if (args.path.includes("/node_modules/")) return undefined
      const text = await readFile(args.path, "utf8")
      return {
        contents: text.replace(/[^\p{ASCII}]/gu, (c) =>
          // each UTF-16 unit of the character (two for one past U+FFFF), as JavaScript writes it
          Array.from({ length: c.length }, (_, i) => `\\u${c.charCodeAt(i).toString(16).padStart(4, "0")}`).join("")
        ),
        loader: "ts"
      }
    })
  }
}

const bundle = async (entryPoints, outdir) => {
  // a module the server loads only when it is first needed (`import()`: the MCP SDK, nodemailer, the common-password
  // list) is a chunk of its own, read then rather than parsed and kept at start (issue 22)
  await rm(`${outdir}/chunks`, { recursive: true, force: true })
  const result = await build({
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
    splitting: true,
    chunkNames: "chunks/[name]-[hash]",
    minifyWhitespace: true,
    plugins: [asciiSources],
    sourcemap: true,
    write: true,
    metafile: true,
    logLevel: "warning"
  })
  // a single character past Latin-1 would double the source's memory: say so rather than ship it silently (the
  // legal comments esbuild keeps at the end may hold Latin-1 letters)
  for (const file of Object.keys(result.metafile.outputs).filter((f) => f.endsWith(".js"))) {
    // metafile paths are relative to the working directory (esbuild's absWorkingDir)
    const text = await readFile(resolve(file), "utf8")
    const at = text.search(/[\u0100-\uffff]/)
    if (at >= 0)
      console.warn(`build.mjs: ${file} is not Latin-1 (at ${at}: ${JSON.stringify(text.slice(at - 40, at + 10))})`)
  }
}

await bundle(
  { main: `${root}/apps/server/src/main.ts`, cli: `${root}/apps/server/src/cli.ts` },
  `${root}/apps/server/dist`
)
await bundle({ main: `${root}/apps/runner/src/main.ts` }, `${root}/apps/runner/dist`)
