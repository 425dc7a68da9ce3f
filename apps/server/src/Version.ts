/** The engine version reported in every envelope: this package's version. */
import { createRequire } from "node:module"

/** `engineVersion` (D4). */
export const engineVersion: string = (createRequire(import.meta.url)("../package.json") as { version: string }).version
