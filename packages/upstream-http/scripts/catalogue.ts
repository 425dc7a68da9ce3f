/** Writes docs/provider-catalogue.md from the shipped provider catalogue (`pnpm --filter @pdr/upstream-http catalogue`). */
import { writeFileSync } from "node:fs"
import { markdown } from "../src/ProviderCatalogue.js"

const target = new URL("../../../docs/provider-catalogue.md", import.meta.url)
writeFileSync(target, markdown())
console.log(`wrote ${target.pathname}`)
