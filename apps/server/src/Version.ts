/** The engine version reported in every envelope: this package's version. */
import pkg from "../package.json" with { type: "json" }

/** `engineVersion` (D4). */
export const engineVersion: string = pkg.version
