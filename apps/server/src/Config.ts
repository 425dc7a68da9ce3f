/** The server's configuration, read in one place. */
import { Config } from "effect"
import { listenerTimeouts } from "./Server.js"

/** Listeners, data location and operator token (the core's settings are read by `Core.config`). */
export const server = Config.all({
  port: Config.port("PORT").pipe(Config.withDefault(8080)),
  host: Config.string("HOST").pipe(Config.withDefault("0.0.0.0")),
  adminPort: Config.port("ADMIN_PORT").pipe(Config.withDefault(8081)),
  adminHost: Config.string("ADMIN_HOST").pipe(Config.withDefault("127.0.0.1")),
  adminToken: Config.option(Config.redacted("ADMIN_TOKEN")),
  dataDir: Config.string("DATA_DIR").pipe(Config.withDefault(".data")),
  demo: Config.boolean("DEMO").pipe(Config.withDefault(true)),
  sweepEveryMs: Config.integer("HOLD_SWEEP_MS").pipe(Config.withDefault(15_000)),
  shutdownTimeoutMs: Config.integer("SHUTDOWN_TIMEOUT_MS").pipe(Config.withDefault(25_000)),
  timeouts: Config.all({
    headersMs: Config.integer("HEADERS_TIMEOUT_MS").pipe(Config.withDefault(listenerTimeouts.headersMs)),
    requestMs: Config.integer("REQUEST_TIMEOUT_MS").pipe(Config.withDefault(listenerTimeouts.requestMs)),
    keepAliveMs: Config.integer("KEEP_ALIVE_TIMEOUT_MS").pipe(Config.withDefault(listenerTimeouts.keepAliveMs))
  })
})

/** The server's configuration. */
export type Server = Config.Config.Success<typeof server>
