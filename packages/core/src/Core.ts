/**
 * The one core wiring: configuration in, domain services out. The server, the runner and the tests all build their
 * services here, so a setting or an adapter added once reaches each of them.
 */
import { Accounts, Calls, Idempotency, Keys, RateLimits, Setting, type Upstream } from "@pdr/domain"
import {
  Database,
  NodeCrypto,
  PgCallStore,
  PgCircuits,
  PgDemand,
  PgFetchLeases,
  PgIdempotencyStore,
  PgJobQueue,
  PgKeySpend,
  PgKeyStore,
  PgLedger,
  PgMeasurements,
  PgRateLimits
} from "@pdr/store-pg"
import { Circuits, Upstreams } from "@pdr/upstream-http"
import { SyntheticUpstream } from "@pdr/upstream-synthetic"
import { Config, type ConfigError, Duration, Effect, identity, Layer, Option } from "effect"
import * as Observed from "./Observed.js"

/** What the core needs to know. */
export interface Options {
  readonly target: Database.Target
  readonly knobs?: Partial<SyntheticUpstream.Knobs>
  /** Overrides the upstream chosen by `upstream` (tests). */
  readonly upstream?: Layer.Layer<Upstream.Upstream, ConfigError.ConfigError>
  readonly rateLimit?: { readonly perSecond: number; readonly burst: number }
  readonly authFailureLimit?: { readonly perSecond: number; readonly burst: number }
  readonly holdTtlMs?: number
  readonly unitTimeoutMs?: number
  /** Timeout of each upstream fetch of a long call (issue 21, PROVIDER_RUN_TIMEOUT_S). */
  readonly longUnitTimeoutMs?: number
  /** The refresh account: its calls are not demand (the refresh would otherwise track itself forever). */
  readonly refreshAccountId?: string | undefined
  /** Group commit (issue 22): at most this many holds or settles share a statement; 1 runs each call's alone. */
  readonly groupCommitMax?: number
  /** Whether the per-key rate limit is kept in the PostgreSQL server, one limit for every instance (default true). */
  readonly sharedRateLimits?: boolean
  /**
   * Whether identical concurrent fetches are shared across the instances over one PostgreSQL server (a lease per
   * fetch: one upstream fetch and one charge, issue 22; default true). Within one process they always are.
   */
  readonly sharedFetches?: boolean
  /** Spans and metrics around the services and ports (Observed); on unless false (the bench's baseline). */
  readonly observe?: boolean
  /** Spans around the services and ports too (only when traces are exported: else they would cost for nothing). */
  readonly tracing?: boolean
}

/** The upstream selection: the router configured by UPSTREAMS (synthetic everywhere when unset), with these knobs. */
export const upstream = (
  knobs: Partial<SyntheticUpstream.Knobs> = {}
): Layer.Layer<Upstream.Upstream, ConfigError.ConfigError> =>
  Upstreams.layerConfig({ ...SyntheticUpstream.defaults, ...knobs })

// the defaults are the domain's (D12 limits, call settings); the environment only overrides them
const limits = RateLimits.RateLimits.defaults
const callDefaults = Calls.CallSettings.defaultValue()

/** Every core setting, read once from the environment. */
export const config: Config.Config<Options> = Config.all({
  target: Database.targetConfig,
  knobs: SyntheticUpstream.knobsConfig,
  rateLimit: Config.all({
    perSecond: Setting.numberAbove("RATE_LIMIT_RPS", limits.perKey.perSecond, 0),
    burst: Setting.integer("RATE_LIMIT_BURST", limits.perKey.burst, { least: 1 })
  }),
  authFailureLimit: Config.all({
    perSecond: Setting.numberAbove("AUTH_FAILURE_RPS", limits.failedAuth.perSecond, 0),
    burst: Setting.integer("AUTH_FAILURE_BURST", limits.failedAuth.burst, { least: 1 })
  }),
  // a hold lives at least a second (a call's hold swept before its settle would refuse the call)
  holdTtlMs: Setting.integer("HOLD_TTL_MS", Duration.toMillis(callDefaults.holdTtl), { least: 1000 }),
  unitTimeoutMs: Setting.integer("UPSTREAM_TIMEOUT_MS", Duration.toMillis(callDefaults.unitTimeout), { least: 1 }),
  longUnitTimeoutMs: Setting.integer("PROVIDER_RUN_TIMEOUT_S", Duration.toSeconds(callDefaults.longUnitTimeout), {
    least: 1
  }).pipe(Config.map((s) => s * 1000)),
  refreshAccountId: Config.option(Config.string("REFRESH_ACCOUNT_ID")).pipe(Config.map(Option.getOrUndefined)),
  groupCommitMax: Setting.integer("GROUP_COMMIT_MAX", PgLedger.groupCommitDefaults.maxBatch, { least: 1 }),
  sharedRateLimits: Config.boolean("SHARED_RATE_LIMITS").pipe(Config.withDefault(true)),
  sharedFetches: Config.boolean("SHARED_FETCHES").pipe(Config.withDefault(true)),
  observe: Config.boolean("METRICS").pipe(Config.withDefault(true))
})

/**
 * The core's settings with the upstreams' checked too: those are otherwise read when the upstream layer is built,
 * after the database is reached, so a process's start would say "database not reached" before a bad
 * `UPSTREAM_PER_HOST` (the server and the runner read this at start).
 */
export const checkedConfig: Effect.Effect<Options, ConfigError.ConfigError> = Effect.zipLeft(
  config,
  Upstreams.specConfig()
)

/**
 * The limits (D12). On a PostgreSQL server the per-key buckets are the database's (PgRateLimits), so every server
 * instance over it enforces one limit per key; unless SHARED_RATE_LIMITS=false. The embedded database belongs to one
 * process, whose buckets stay in memory; so do the per-address buckets of failed authentications everywhere.
 */
const rateLimits = (options: Options) => {
  const perKey = { name: "default", ...(options.rateLimit ?? limits.perKey) }
  const local = RateLimits.RateLimits.make(perKey, { name: "auth", ...(options.authFailureLimit ?? limits.failedAuth) })
  return options.target._tag === "Server" && options.sharedRateLimits !== false
    ? Layer.effect(
        RateLimits.RateLimits,
        Effect.map(PgRateLimits.buckets(perKey), (shared) => ({ ...local, perKey: shared }))
      )
    : Layer.succeed(RateLimits.RateLimits, local)
}

/** The domain services over the store, the upstream and node's crypto; the store's layers stay visible. */
export const layer = (options: Options) => {
  // issue 25: the decorators of Observed, or nothing
  const o =
    options.observe === false
      ? { calls: identity, keys: identity, idempotency: identity, ledger: identity, upstream: identity }
      : Observed.make({ tracing: options.tracing ?? false })
  const sharedCircuits =
    options.target._tag === "Server" ? Layer.scoped(Circuits.Circuits, PgCircuits.make()) : Layer.empty
  return Layer.mergeAll(
    o.calls(Calls.Calls.Default),
    o.keys(Keys.Keys.Default),
    Accounts.Accounts.Default,
    o.idempotency(Idempotency.Idempotency.Default)
  ).pipe(
    Layer.provideMerge(
      Layer.mergeAll(
        o.ledger(
          PgLedger.layerWith({
            maxBatch: options.groupCommitMax ?? PgLedger.groupCommitDefaults.maxBatch,
            // the embedded database has one connection: one batch at a time, the next gathered meanwhile
            maxInFlight: options.target._tag === "Embedded" ? 1 : PgLedger.groupCommitDefaults.maxInFlight
          })
        ),
        PgKeyStore.layer,
        PgKeySpend.layer,
        PgMeasurements.layerCached(),
        PgIdempotencyStore.layer,
        PgJobQueue.layer,
        PgCallStore.layer,
        options.target._tag === "Server" && options.sharedFetches !== false ? PgFetchLeases.layer : Layer.empty,
        PgDemand.layer(options.refreshAccountId === undefined ? {} : { ignoreAccounts: [options.refreshAccountId] }),
        NodeCrypto.layer,
        // issue 22: on a PostgreSQL server every instance hears of the circuits the others opened (one poller: the
        // layer is built once, for the upstream and for the refresh's `--retry-failed`, which closes them)
        o.upstream((options.upstream ?? upstream(options.knobs)).pipe(Layer.provide(sharedCircuits))),
        sharedCircuits,
        rateLimits(options),
        Layer.succeed(Calls.CallSettings, {
          ...callDefaults,
          ...(options.holdTtlMs === undefined ? {} : { holdTtl: Duration.millis(options.holdTtlMs) }),
          ...(options.unitTimeoutMs === undefined ? {} : { unitTimeout: Duration.millis(options.unitTimeoutMs) }),
          ...(options.longUnitTimeoutMs === undefined
            ? {}
            : { longUnitTimeout: Duration.millis(options.longUnitTimeoutMs) })
        })
      )
    ),
    Layer.provideMerge(Database.layer(options.target))
  )
}
