/** The server's configuration, read in one place. */

import { Telemetry } from "@pdr/core"
import { Members, Setting } from "@pdr/domain"
import { NodePasswordHasher } from "@pdr/store-pg"
import { Config, Duration, Option } from "effect"
import { listenerTimeouts } from "./Server.js"

const members = Members.MemberSettings.defaultValue()

const port = Config.port("PORT").pipe(Config.withDefault(8080))

/** Listeners, data location and operator token (the core's settings are read by `Core.config`). */
export const server = Config.all({
  port,
  // the public base of links handed out (the sign-up links of `pnpm admin member invite`)
  publicUrl: Config.string("PUBLIC_URL").pipe(Config.orElse(() => Config.map(port, (p) => `http://localhost:${p}`))),
  host: Config.string("HOST").pipe(Config.withDefault("0.0.0.0")),
  // issue 23: browser origins that may call /mcp besides loopback's and PUBLIC_URL's (comma-separated origins)
  mcpAllowedOrigins: Config.all({
    listed: Config.string("MCP_ALLOWED_ORIGINS").pipe(Config.withDefault("")),
    publicUrl: Config.option(Config.string("PUBLIC_URL"))
  }).pipe(
    Config.map(({ listed, publicUrl }) => [
      ...Option.toArray(publicUrl),
      ...listed
        .split(",")
        .map((o) => o.trim())
        .filter((o) => o.length > 0)
    ])
  ),
  adminPort: Config.port("ADMIN_PORT").pipe(Config.withDefault(8081)),
  adminHost: Config.string("ADMIN_HOST").pipe(Config.withDefault("127.0.0.1")),
  adminToken: Config.option(Config.redacted("ADMIN_TOKEN")),
  dataDir: Config.string("DATA_DIR").pipe(Config.withDefault(".data")),
  demo: Config.boolean("DEMO").pipe(Config.withDefault(true)),
  sweepEveryMs: Setting.integer("HOLD_SWEEP_MS", 15_000, { least: 100 }),
  // issue 21: a long call's lease (renewed every third of it); another process takes over a call whose lease ran out
  callLeaseMs: Setting.integer("CALL_LEASE_MS", 15_000, { least: 300 }),
  shutdownTimeoutMs: Setting.integer("SHUTDOWN_TIMEOUT_MS", 25_000, { least: 0 }),
  // issue 25: /readyz answers 503 this long at shutdown before the listeners stop accepting; a log line per request
  drainMs: Setting.integer("SHUTDOWN_DRAIN_MS", 0, { least: 0 }),
  logRequests: Config.boolean("LOG_REQUESTS").pipe(Config.withDefault(true)),
  telemetry: Telemetry.settingsConfig("pdr-server"),
  timeouts: Config.all({
    headersMs: Setting.integer("HEADERS_TIMEOUT_MS", listenerTimeouts.headersMs, { least: 0 }),
    requestMs: Setting.integer("REQUEST_TIMEOUT_MS", listenerTimeouts.requestMs, { least: 0 }),
    keepAliveMs: Setting.integer("KEEP_ALIVE_TIMEOUT_MS", listenerTimeouts.keepAliveMs, { least: 0 })
  }),
  // email (issue 24): invitations and password resets are sent when SMTP_URL is set
  mail: Config.all({
    url: Config.option(Config.redacted("SMTP_URL")),
    from: Config.string("MAIL_FROM").pipe(Config.withDefault("Platform Data API <no-reply@localhost>"))
  }).pipe(Config.map(({ url, from }) => (Option.isSome(url) ? { url: url.value, from } : undefined))),
  // the dashboard (D20): session lifetimes, Secure cookies behind a TLS proxy, the scrypt cost (2^17 = OWASP)
  dashboard: Config.all({
    secureCookies: Config.boolean("DASHBOARD_SECURE_COOKIES").pipe(Config.withDefault(false)),
    idleTimeoutMs: Setting.integer("SESSION_IDLE_MINUTES", Duration.toMinutes(members.idleTimeout), {
      least: 1
    }).pipe(Config.map((m) => m * 60_000)),
    absoluteTimeoutMs: Setting.integer("SESSION_MAX_HOURS", Duration.toHours(members.absoluteTimeout), {
      least: 1
    }).pipe(Config.map((h) => h * 3_600_000)),
    // 2^10 (the tests) to 2^20 (1 GiB per hash): below, a hash an attacker cracks cheaply; above, one that stops the host
    scryptLogN: Setting.integer("SCRYPT_LOG_N", NodePasswordHasher.owasp.logN, { least: 10, most: 20 })
  })
})

/** The server's configuration. */
export type Server = Config.Config.Success<typeof server>
