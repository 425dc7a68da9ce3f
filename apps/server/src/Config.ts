/** The server's configuration, read in one place. */
import { Calls, Members, RateLimits } from "@pdr/domain"
import { Config, Duration } from "effect"

// the defaults are the domain's (D12 limits, call settings); the environment only overrides them
const limits = RateLimits.RateLimits.defaults
const calls = Calls.CallSettings.defaultValue()
const members = Members.MemberSettings.defaultValue()

/** Listeners, data location and operator token. */
export const server = Config.all({
  port: Config.port("PORT").pipe(Config.withDefault(8080)),
  host: Config.string("HOST").pipe(Config.withDefault("0.0.0.0")),
  adminPort: Config.port("ADMIN_PORT").pipe(Config.withDefault(8081)),
  adminHost: Config.string("ADMIN_HOST").pipe(Config.withDefault("127.0.0.1")),
  adminToken: Config.option(Config.redacted("ADMIN_TOKEN")),
  dataDir: Config.string("DATA_DIR").pipe(Config.withDefault(".data")),
  demo: Config.boolean("DEMO").pipe(Config.withDefault(true)),
  rateLimit: Config.all({
    perSecond: Config.number("RATE_LIMIT_RPS").pipe(Config.withDefault(limits.perKey.perSecond)),
    burst: Config.integer("RATE_LIMIT_BURST").pipe(Config.withDefault(limits.perKey.burst))
  }),
  authFailureLimit: Config.all({
    perSecond: Config.number("AUTH_FAILURE_RPS").pipe(Config.withDefault(limits.failedAuth.perSecond)),
    burst: Config.integer("AUTH_FAILURE_BURST").pipe(Config.withDefault(limits.failedAuth.burst))
  }),
  holdTtlMs: Config.integer("HOLD_TTL_MS").pipe(Config.withDefault(Duration.toMillis(calls.holdTtl))),
  unitTimeoutMs: Config.integer("UPSTREAM_TIMEOUT_MS").pipe(Config.withDefault(Duration.toMillis(calls.unitTimeout))),
  sweepEveryMs: Config.integer("HOLD_SWEEP_MS").pipe(Config.withDefault(15_000)),
  shutdownTimeoutMs: Config.integer("SHUTDOWN_TIMEOUT_MS").pipe(Config.withDefault(25_000)),
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
    scryptLogN: Config.integer("SCRYPT_LOG_N").pipe(Config.withDefault(17))
  })
})

/** The server's configuration. */
export type Server = Config.Config.Success<typeof server>
