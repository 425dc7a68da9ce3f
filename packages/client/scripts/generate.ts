// `pnpm --filter @pdr/client generate`: writes src/generated/openapi.ts from the contract.
import { mkdirSync, writeFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { generate, generateSchemas, schemasTarget, target } from "./openapi.js"

mkdirSync(new URL(".", target), { recursive: true })
writeFileSync(target, await generate())
writeFileSync(schemasTarget, generateSchemas())
process.stdout.write(`wrote ${fileURLToPath(target)} and ${fileURLToPath(schemasTarget)}\n`)
