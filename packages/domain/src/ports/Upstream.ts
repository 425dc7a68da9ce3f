/** Port: where a platform's data comes from (D15). Adapters: synthetic (the embedded default), native, provider. */
import { Context, Effect, Either, Option, Schema } from "effect"
import { type OpDef, type OpRequest, platforms, runsSource } from "../Catalogue.js"
import { type StoreForm, storeFormNames } from "../Fields.js"
import type { Row } from "./Measurements.js"

/** One unit of work to fetch: a subject of an op, or the query of a list op. */
export interface UnitRequest {
  readonly platform: string
  readonly op: string
  /** The decoded request (for subject units, the fields other than the subjects apply to this one subject). */
  readonly request: OpRequest
  /** The canonical subject, for subject units. */
  readonly subject: string | undefined
  /** Rows (or pages) asked for. */
  readonly rows: number
  /** The resolved store, for quick-commerce ops. */
  readonly store: string | undefined
  /** contacts: the parts to buy. */
  readonly parts: ReadonlyArray<"email" | "phone"> | undefined
  /**
   * A long call's run of this unit (issue 21): `resume` is the run an earlier attempt started (a process that died):
   * a run adapter polls it rather than starting another; `started` records a run this attempt starts.
   */
  readonly run?: {
    readonly resume: string | undefined
    readonly started: (runId: string) => void
    /** The unit's whole budget (PROVIDER_RUN_TIMEOUT_S): a run adapter's own time limit for the unit. */
    readonly budgetMs: number
  }
}

/** A history point as the upstream reports it; the domain normalizes `subject` with the platform's forms. */
export interface PointReport {
  readonly subject: string
  readonly metrics: Readonly<Record<string, number>>
}

/** What fetching one unit gave. */
export type UnitOutcome =
  | {
      readonly _tag: "Delivered"
      readonly rows: ReadonlyArray<Row>
      /**
       * The upstream said there are no more rows (a last page, a run that ended short of its item limit without
       * stopping on its charge limit). False when cut short by a limit, a budget or an unexpanded stub: a unit with
       * fewer rows than asked that is not exhaustive is stored as incomplete (Completeness.ts) and fetched again.
       */
      readonly exhaustive: boolean
      /** Rows the upstream announced but that could not be fetched within the unit's budget (unexpanded stubs). */
      readonly missing?: number
      readonly points: ReadonlyArray<PointReport>
      readonly source: string
    }
  | { readonly _tag: "NotFound"; readonly source: string; readonly detail: string }
  | { readonly _tag: "InvalidSubject"; readonly source: string; readonly detail: string }

/** The upstream failed for this unit (or for a resolution): the unit is omitted and not billed. */
export class UpstreamFailed extends Schema.TaggedError<UpstreamFailed>()("UpstreamFailed", {
  source: Schema.String,
  detail: Schema.String,
  /** The host is not tried again for this many ms (its circuit is open): a retry sooner fails the same way. */
  retryInMs: Schema.optional(Schema.Number)
}) {}

/** An explore source and its per-row price. */
export interface ExploreSource {
  readonly name: string
  readonly price: { readonly credits: number; readonly rows: number }
}

/** One adapter: fetches the units of the platforms routed to it; the other capabilities only where they serve. */
export interface Adapter {
  /** The adapter's name in the routing configuration and, unless `sourceFor` says otherwise, as `source`. */
  readonly name: string
  readonly fetch: (unit: UnitRequest) => Effect.Effect<UnitOutcome, UpstreamFailed>
  /** The provider actor serving an op, for adapters that run actors (the catalogue says it, issue 20). */
  readonly actorFor?: (platform: string, op: string) => string | undefined
  /**
   * Whether a unit of this adapter is a run that takes minutes (a provider actor): a long call then gives it the run
   * budget (PROVIDER_RUN_TIMEOUT_S) instead of the per-request timeout (issue 21). Per-request adapters: absent.
   */
  readonly runs?: boolean
  /** The `source` this adapter reports for an op (default: its name). */
  readonly sourceFor?: (platform: string, op: string) => string
  /**
   * Quick-commerce store resolution (D3), per op: required of an adapter that serves an op of a store-scoped
   * platform. None: the locator is of a form this op's upstream does not take (`storeForms`), or names no store.
   */
  readonly resolveStore?: (
    platform: string,
    op: string,
    locator: Readonly<Record<string, unknown>>
  ) => Effect.Effect<Option.Option<string>, UpstreamFailed>
  /** The store locator forms an op served by this adapter takes (absent: every form). */
  readonly storeForms?: (platform: string, op: string) => ReadonlyArray<StoreForm>
  /**
   * Optional request fields this adapter cannot serve an op without, each with why (absent: none): a request without
   * one is refused 400 naming it before anything is spent (Plan), and the catalogue says so (`servedBy.requires`).
   */
  readonly requires?: (platform: string, op: string) => Readonly<Record<string, string>> | undefined
  /**
   * Optional request fields this adapter cannot serve an op with, each with why (absent: none): a request giving one
   * is refused 400 naming it before anything is spent (Plan), and the catalogue says so (`servedBy.refuses`).
   */
  readonly refuses?: (platform: string, op: string) => Readonly<Record<string, string>> | undefined
  /**
   * The most rows one fetch of an op serves here, when fewer than a request may ask (absent: as many as asked): a unit
   * asking more is delivered with what came and never complete; the catalogue says so (`servedBy.maxRows`).
   */
  readonly maxRows?: (platform: string, op: string) => number | undefined
  /** Explore sources: required of an adapter that serves explore `run`. */
  readonly exploreSource?: (name: string) => Effect.Effect<Option.Option<ExploreSource>, UpstreamFailed>
  /** Every explore source it serves, when it can list them (D19). */
  readonly exploreSources?: () => Effect.Effect<ReadonlyArray<ExploreSource>, UpstreamFailed>
}

/** Port: upstream fetches, each platform (and op) served by the adapter routed to it. */
export class Upstream extends Context.Tag("@pdr/domain/Upstream")<
  Upstream,
  {
    /** The name of the adapter serving this op, reported as `source` of what it measures (also on failures). */
    readonly sourceFor: (platform: string, op: string) => string
    readonly fetch: (unit: UnitRequest) => Effect.Effect<UnitOutcome, UpstreamFailed>
    /**
     * Resolves a quick-commerce store locator to one store identity (D3), through the adapter serving the op: None
     * when that adapter does not take the locator's form or finds no store.
     */
    readonly resolveStore: (
      platform: string,
      op: string,
      locator: Readonly<Record<string, unknown>>
    ) => Effect.Effect<Option.Option<string>, UpstreamFailed>
    /** The explore source of this name, if the upstream knows it. */
    readonly exploreSource: (name: string) => Effect.Effect<Option.Option<ExploreSource>, UpstreamFailed>
    /** The explore sources served now, as far as the adapter serving explore `run` can list them (D19). */
    readonly exploreSources: () => Effect.Effect<ReadonlyArray<ExploreSource>, UpstreamFailed>
    /** Whether the adapter serving an op runs jobs that take minutes (issue 21: their units get the run budget). */
    readonly runs?: (platform: string, op: string) => boolean
    /** Which adapter serves an op in this deployment, and the provider actor when one does (issue 20). */
    readonly servedBy?: (platform: string, op: string) => ServedBy
  }
>() {}

/** Who serves an op here: the adapter, for the provider the actor, and for a store-scoped op the locator forms taken. */
export interface ServedBy {
  readonly adapter: string
  readonly actor?: string
  readonly store?: ReadonlyArray<StoreForm>
  /** Optional request fields the upstream serving the op here cannot do without, each with why. */
  readonly requires?: Readonly<Record<string, string>>
  /** Optional request fields the upstream serving the op here cannot serve, each with why. */
  readonly refuses?: Readonly<Record<string, string>>
  /** The most rows one fetch serves here, when fewer than a request may ask. */
  readonly maxRows?: number
}

/**
 * The ops whose store identities must come from one adapter with an op's (D3): a store-scoped platform's history op
 * reads the points written by the ops that measure its subjects (same subject forms), so they and it share an
 * adapter; any other op stands alone. A platform's search or category listing may be served by another adapter.
 */
export const storeSharers = (op: OpDef): ReadonlyArray<OpDef> => {
  if (op.scope !== "store") return [op]
  const platform = platforms.find((p) => p.id === op.platform)
  const history = platform?.ops.find((o) => o.kind._tag === "Series")
  if (history === undefined || history.subjectSpec === undefined) return [op]
  const measuring = platform!.ops.filter((o) => o.kind._tag === "Measure" && o.subjectSpec === history.subjectSpec)
  return op === history || measuring.includes(op) ? [history, ...measuring] : [op]
}

/** Which adapter serves what: by `platform` or `platform.op` (the op wins), else the default. */
export interface Routes {
  readonly fallback: string
  readonly routes: Readonly<Record<string, string>>
}

/** Parses `platform=adapter,platform.op=adapter` (empty: no routes). */
export const parseRoutes = (text: string, fallback: string): Either.Either<Routes, string> => {
  const routes: Record<string, string> = {}
  for (const part of text.split(",").map((p) => p.trim())) {
    if (part === "") continue
    const [key, adapter, ...rest] = part.split("=").map((p) => p.trim())
    if (!key || !adapter || rest.length > 0) return Either.left(`"${part}" is not platform[.op]=adapter`)
    routes[key] = adapter
  }
  return Either.right({ fallback, routes })
}

/** One Upstream over adapters and routes; Left names what is wrong (an unknown adapter, platform or op, a missing capability). */
export const route = (
  adapters: ReadonlyArray<Adapter>,
  routes: Routes
): Either.Either<Context.Tag.Service<Upstream>, string> => {
  const byName = new Map(adapters.map((a) => [a.name, a]))
  const known = new Map(platforms.map((p) => [p.id, p]))
  for (const [key, name] of [["default", routes.fallback] as const, ...Object.entries(routes.routes)]) {
    if (!byName.has(name))
      return Either.left(`${key}: no adapter named "${name}" (known: ${[...byName.keys()].join(", ")})`)
    if (key === "default") continue
    const [platform, op] = key.split(".")
    const def = known.get(platform ?? "")
    if (def === undefined) return Either.left(`${key}: no platform "${platform}"`)
    if (op !== undefined && !def.ops.some((o) => o.name === op))
      return Either.left(`${key}: ${platform} has no op "${op}"`)
  }
  const adapterFor = (platform: string, op?: string): Adapter =>
    byName.get((op && routes.routes[`${platform}.${op}`]) ?? routes.routes[platform] ?? routes.fallback)!
  const table = new Map<string, { readonly adapter: Adapter; readonly source: string }>()
  for (const p of platforms) {
    for (const o of p.ops) {
      const a = adapterFor(p.id, o.name)
      table.set(`${p.id}\u0000${o.name}`, { adapter: a, source: a.sourceFor?.(p.id, o.name) ?? a.name })
      if (p.historyScope === "store" && a.resolveStore === undefined)
        return Either.left(`${p.id}.${o.name}: adapter "${a.name}" cannot resolve stores`)
      // D3: a history's points and the ops writing them keep one store identity, so one adapter resolves them
      const apart = storeSharers(o).find((s) => adapterFor(p.id, s.name) !== a)
      if (apart !== undefined)
        return Either.left(
          `${p.id}.${o.name}: routed to "${a.name}" while ${p.id}.${apart.name} is routed to "${adapterFor(p.id, apart.name).name}" (their store identities must come from one adapter: history reads the points of the ops measuring its subjects, D3)`
        )
      if (runsSource(o) && a.exploreSource === undefined)
        return Either.left(`${p.id}.${o.name}: adapter "${a.name}" has no explore sources`)
    }
  }
  const lookup = (platform: string, op: string) =>
    table.get(`${platform}\u0000${op}`)?.adapter ?? adapterFor(platform, op)
  const sourceFor = (platform: string, op: string) => {
    const routed = table.get(`${platform}\u0000${op}`)
    if (routed !== undefined) return routed.source
    const a = adapterFor(platform, op)
    return a.sourceFor?.(platform, op) ?? a.name
  }
  const explore = platforms.flatMap((p) => p.ops.filter(runsSource))[0]
  return Either.right(
    Upstream.of({
      sourceFor,
      fetch: (unit) => lookup(unit.platform, unit.op).fetch(unit),
      resolveStore: (platform, op, locator) => {
        // the op's own route resolves its store (checked above for every op of a store-scoped platform)
        const a = lookup(platform, op)
        return a.resolveStore
          ? a.resolveStore(platform, op, locator)
          : Effect.fail(new UpstreamFailed({ source: a.name, detail: `${a.name} resolves no stores` }))
      },
      exploreSource: (name) => {
        if (explore === undefined) return Effect.succeed(Option.none())
        const a = lookup(explore.platform, explore.name)
        return a.exploreSource ? a.exploreSource(name) : Effect.succeed(Option.none())
      },
      exploreSources: () => {
        if (explore === undefined) return Effect.succeed([])
        const a = lookup(explore.platform, explore.name)
        return a.exploreSources ? a.exploreSources() : Effect.succeed([])
      },
      runs: (platform, op) => lookup(platform, op).runs === true,
      servedBy: (platform, op) => {
        const a = lookup(platform, op)
        const actor = a.actorFor?.(platform, op)
        const scoped = known.get(platform)?.historyScope === "store"
        const requires = a.requires?.(platform, op)
        const refuses = a.refuses?.(platform, op)
        const maxRows = a.maxRows?.(platform, op)
        return {
          adapter: a.name,
          ...(actor === undefined ? {} : { actor }),
          ...(requires === undefined || Object.keys(requires).length === 0 ? {} : { requires }),
          ...(refuses === undefined || Object.keys(refuses).length === 0 ? {} : { refuses }),
          ...(maxRows === undefined ? {} : { maxRows }),
          ...(scoped ? { store: a.storeForms?.(platform, op) ?? storeFormNames } : {})
        }
      }
    })
  )
}

/** The Upstream of a single adapter serving everything. */
export const single = (adapter: Adapter): Context.Tag.Service<Upstream> =>
  Either.getOrThrow(route([adapter], { fallback: adapter.name, routes: {} }))
