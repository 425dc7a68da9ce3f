/** The server's configuration, read in one place. */
import { Members } from "@pdr/domain"
import { NodePasswordHasher } from "@pdr/store-pg"
import { Config, Duration } from "effect"
import { listenerTimeouts } from "./Server.js"

const members = Members.MemberSettings.defaultValue()

const port = Config.port("PORT").pipe(Config.withDefault(8080))

/** Listeners, data location and operator token (the core's settings are read by `Core.config`). */
export const server = Config.all({
  port,
  // the public base of links handed out (the sign-up links of `pnpm admin member invite`)
  publicUrl: Config.string("PUBLIC_URL").pipe(Config.orElse(() => Config.map(port, (p) => `http://localhost:${p}`))),
  host: Config.string("HOST").pipe(Config.withDefault("0.0.0.0")),
  adminPort: Config.port("ADMIN_PORT").pipe(Config.withDefault(8081)),
  adminHost: Config.string("ADMIN_HOST").pipe(Config.withDefault("127.0.0.1")),
  adminToken: Config.option(Config.redacted("ADMIN_TOKEN")),
  dataDir: Config.string("DATA_DIR").pipe(Config.withDefault(".data")),
  demo: Config.boolean("DEMO").pipe(Config.withDefault(true)),
  sweepEveryMs: Config.integer("HOLD_SWEEP_MS").pipe(Config.withDefault(15_000)),
  // issue 21: a long call's lease (renewed every third of it); another process takes over a call whose lease ran out
  callLeaseMs: Config.integer("CALL_LEASE_MS").pipe(Config.withDefault(15_000)),
  shutdownTimeoutMs: Config.integer("SHUTDOWN_TIMEOUT_MS").pipe(Config.withDefault(25_000)),
  timeouts: Config.all({
    headersMs: Config.integer("HEADERS_TIMEOUT_MS").pipe(Config.withDefault(listenerTimeouts.headersMs)),
    requestMs: Config.integer("REQUEST_TIMEOUT_MS").pipe(Config.withDefault(listenerTimeouts.requestMs)),
    keepAliveMs: Config.integer("KEEP_ALIVE_TIMEOUT_MS").pipe(Config.withDefault(listenerTimeouts.keepAliveMs))
  }),
  // the dashboard (D20): session lifetimes, Secure cookies behind a TLS proxy, the scrypt cost (2^17 = OWASP)
  dashboard: Config.all({
    secureCookies: Config.boolean("DASHBOARD_SECURE_COOKIES").pipe(Config.withDefault(false)),
    idleTimeoutMs: Config.integer("SESSION_IDLE_MINUTES").pipe(
      Config.withDefault(Duration.toMinutes(members.idleTimeout)),
      Config.map((m) => m * 60_000)
    ),
    absoluteTimeoutMs: Config.integer("SESSION_MAX_HOURS").pipe(
      Config.withDefault(Duration.toHours(members.absoluteTimeout)),
      Config.map((h) => h * 3_600_000)
    ),
    scryptLogN: Config.integer("SCRYPT_LOG_N").pipe(Config.withDefault(NodePasswordHasher.owasp.logN))
  })
})

/** The server's configuration. */
export type Server = Config.Config.Success<typeof server>
