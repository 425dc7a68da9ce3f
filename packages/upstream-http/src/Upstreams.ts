/**
 * The upstream router as one layer: which adapter serves each platform (or op) is configuration, every adapter
 * named there is built (synthetic, storefront, forum, provider), and the HTTP ones share one failure policy.
 */
import { FetchHttpClient } from "@effect/platform"
import { Catalogue, Upstream as U } from "@pdr/domain"
import { SyntheticUpstream } from "@pdr/upstream-synthetic"
import { Config, ConfigError, Effect, Either, Layer } from "effect"
import * as ForumUpstream from "./ForumUpstream.js"
import * as Policy from "./Policy.js"
import * as ProviderUpstream from "./ProviderUpstream.js"
import * as StorefrontUpstream from "./StorefrontUpstream.js"

/** Everything the router needs; adapters without settings cannot be routed to. */
export interface Spec {
  readonly routes: U.Routes
  readonly knobs: SyntheticUpstream.Knobs
  readonly policy: Policy.Settings
  readonly storefront?: StorefrontUpstream.Settings
  readonly forum?: ForumUpstream.Settings
  readonly provider?: ProviderUpstream.Settings
}

/** The routed Upstream of a spec (the HttpClient is the platform's fetch client). */
export const make = (spec: Spec) =>
  Effect.gen(function* () {
    const policy = yield* Policy.make(spec.policy)
    const adapters: Array<U.Adapter> = [yield* SyntheticUpstream.make(spec.knobs)]
    if (spec.storefront) adapters.push(StorefrontUpstream.make(policy, spec.storefront))
    if (spec.forum) adapters.push(yield* ForumUpstream.make(policy, spec.forum))
    if (spec.provider) adapters.push(ProviderUpstream.make(policy, spec.provider))
    const routes = effectiveRoutes(spec)
    if (spec.provider) {
      const checked = ProviderUpstream.checkRouted(spec.provider, routedTo(routes, ProviderUpstream.source))
      if (Either.isLeft(checked))
        return yield* Effect.fail(ConfigError.InvalidData(["PROVIDER_MAPPINGS"], checked.left))
      // the operator is told which served ops cost more at the provider than they earn (not refused: each run pays
      // for what it asks), in one line: the op, what a unit of its most rows earns and what its run costs, in USD
      const rate = spec.provider.usdPerCredit
      const losses = ProviderUpstream.belowCost(spec.provider, routedTo(routes, ProviderUpstream.source), rate)
      if (losses.length > 0)
        yield* Effect.logWarning(
          `${losses.length} ops served by the provider sell below their actors' prices at PROVIDER_USD_PER_CREDIT=${rate} (a unit of the op's most rows earns / its run costs, USD): ${losses.map((l) => `${l.op} ${l.earnsUsd.toFixed(4)} / ${l.costsUsd.toFixed(4)}`).join(", ")}`
        )
    }
    return yield* Either.match(U.route(adapters, routes), {
      onLeft: (message) => Effect.fail(ConfigError.InvalidData(["UPSTREAMS"], message)),
      onRight: Effect.succeed
    })
  }).pipe(Effect.provide(FetchHttpClient.layer))

/** The adapter name serving an op under routes (the op's route, its platform's, else the default). */
export const adapterOf = (routes: U.Routes, platform: string, op: string) =>
  routes.routes[`${platform}.${op}`] ?? routes.routes[platform] ?? routes.fallback

/** The ops an adapter serves under routes. */
export const routedTo = (routes: U.Routes, name: string): ReadonlyArray<Catalogue.OpDef> =>
  Catalogue.platforms.flatMap((p) => p.ops.filter((o) => adapterOf(routes, p.id, o.name) === name))

/**
 * The routes as served: with the provider as the default, each op the provider has a mapping for (and explore `run`)
 * goes to it, every other op keeps the synthetic upstream (an op with no suitable actor stays on its default route);
 * ops and platforms routed by name keep their route (a provider route without a mapping stops the start). On a
 * store-scoped platform each op's store is resolved by the adapter serving it (D3, per op), so a mapped search goes to
 * the provider alone; a history op goes with the ops writing its points (U.storeSharers: products), to the provider
 * when each of them has a mapping.
 */
export const effectiveRoutes = (spec: Spec): U.Routes => {
  if (spec.routes.fallback !== ProviderUpstream.source || spec.provider === undefined) return spec.routes
  const provider = spec.provider
  const named = (p: string, o: string) =>
    spec.routes.routes[p] !== undefined || spec.routes.routes[`${p}.${o}`] !== undefined
  const routes: Record<string, string> = {}
  for (const p of Catalogue.platforms) {
    for (const o of p.ops) {
      if (named(p.id, o.name)) continue
      const writers =
        p.historyScope === "store" && o.kind._tag === "Series"
          ? U.storeSharers(o).filter((w) => w.kind._tag === "Measure")
          : [o]
      const mapped = writers.every((w) => !named(p.id, w.name) && provider.ops[`${p.id}.${w.name}`] !== undefined)
      if ((writers.length > 0 && mapped) || Catalogue.runsSource(o))
        routes[`${p.id}.${o.name}`] = ProviderUpstream.source
    }
  }
  return { fallback: SyntheticUpstream.source, routes: { ...routes, ...spec.routes.routes } }
}

/** The router of a spec. */
export const layer = (spec: Spec) => Layer.effect(U.Upstream, make(spec))

const named = (routes: U.Routes, name: string) =>
  routes.fallback === name || Object.values(routes.routes).includes(name)

/**
 * The spec from the environment: UPSTREAMS (`platform[.op]=adapter,...`, default none), UPSTREAM_DEFAULT (default
 * `synthetic`), the policy's UPSTREAM_* settings, each routed adapter's own settings and the synthetic knobs.
 */
export const specConfig = (knobs?: SyntheticUpstream.Knobs) =>
  Effect.gen(function* () {
    const text = yield* Config.string("UPSTREAMS").pipe(Config.withDefault(""))
    const fallback = yield* Config.string("UPSTREAM_DEFAULT").pipe(Config.withDefault(SyntheticUpstream.source))
    const routes = yield* Either.match(U.parseRoutes(text, fallback), {
      onLeft: (m) => Effect.fail(ConfigError.InvalidData(["UPSTREAMS"], m)),
      onRight: Effect.succeed
    })
    const spec: Spec = {
      routes,
      knobs: knobs ?? (yield* SyntheticUpstream.knobsConfig),
      policy: yield* Policy.settingsConfig,
      ...(named(routes, StorefrontUpstream.source) ? { storefront: yield* StorefrontUpstream.settingsConfig } : {}),
      ...(named(routes, ForumUpstream.source) ? { forum: yield* ForumUpstream.settingsConfig } : {}),
      ...(named(routes, ProviderUpstream.source) ? { provider: yield* ProviderUpstream.settingsConfig } : {})
    }
    return spec
  })

/** The router from the environment (synthetic knobs given, or read too). Default: synthetic everywhere, offline. */
export const layerConfig = (knobs?: SyntheticUpstream.Knobs) => Layer.unwrapEffect(Effect.map(specConfig(knobs), layer))
