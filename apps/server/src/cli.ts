/** `pnpm admin`: the operator CLI (its commands are in admin/Cli.ts). */
import { Effect } from "effect"
import * as Cli from "./admin/Cli.js"

// exits at once: the HTTP client's idle keep-alive connection would hold the process for seconds
Effect.runPromise(Cli.run(process.argv.filter((a) => a !== "--"))).then((code) => process.exit(code))
