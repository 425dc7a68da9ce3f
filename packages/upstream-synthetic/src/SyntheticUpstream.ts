/**
 * The synthetic upstream (D15), the embedded default for every op of every platform: offline, deterministic for a
 * given entity, request and day, with `source: "synthetic"` on everything it produces. Knobs for tests: latency,
 * failure rate, hang, and a subject pattern that is never found.
 */
import { Catalogue, Setting, Upstream as U } from "@pdr/domain"
import { Config, Duration, Effect, Layer, Option, Random } from "effect"
import * as G from "./Generate.js"

/** The name this adapter reports as `source`. */
export const source = "synthetic"

/** Test knobs. */
export interface Knobs {
  /** Delay before each answer. */
  readonly latency: Duration.Duration
  /** Share of fetches that fail with `upstream_failed` (0 to 1). */
  readonly failureRate: number
  /** Never answer (every unit runs into its timeout). */
  readonly hang: boolean
  /** Subjects matching this pattern are never found. */
  readonly notFound: RegExp
  /** Some lists are shorter than asked (about one in seven, as real searches are); off: every list is full. */
  readonly shortLists: boolean
}

/** Knobs that change nothing: no latency, no failures, subjects containing `not-found` or `notfound` unknown. */
export const defaults: Knobs = {
  latency: Duration.zero,
  failureRate: 0,
  hang: false,
  notFound: /not-?found/i,
  shortLists: true
}

const exploreSources: ReadonlyArray<U.ExploreSource> = [
  { name: "synthetic/app-charts", price: { credits: 1, rows: 10 } },
  { name: "synthetic/podcast-episodes", price: { credits: 2, rows: 10 } },
  { name: "synthetic/product-launches", price: { credits: 1, rows: 5 } }
]

const withoutRows = (request: Readonly<Record<string, unknown>>) => {
  const { limit: _l, pages: _p, subjects: _s, subject: _t, ...rest } = request
  return JSON.stringify(rest)
}

/** The adapter. */
export const make = (knobs: Knobs) =>
  Effect.sync(() => {
    const failed = (detail: string) => new U.UpstreamFailed({ source, detail })

    const produce = (def: Catalogue.OpDef, unit: U.UnitRequest, now: number): U.UnitOutcome => {
      const c: G.Ctx = {
        def,
        platform: unit.platform,
        op: unit.op,
        request: unit.request,
        subject: unit.subject,
        store: unit.store,
        day: Math.floor(now / 86_400_000),
        now
      }
      if (unit.subject !== undefined && knobs.notFound.test(unit.subject)) {
        return { _tag: "NotFound", source, detail: `${unit.platform} has no ${unit.subject}` }
      }
      const kind = def.kind
      // contact parts are revealed per person (D10); ops measured by the page deliver about ten results a page (D1)
      if (kind._tag === "Reveal") {
        return {
          _tag: "Delivered",
          rows: [G.contact(unit.subject ?? "", unit.parts ?? [])],
          exhaustive: true,
          points: [],
          source
        }
      }
      const card = G.cardFor(c)
      if (card !== undefined) {
        return { _tag: "Delivered", rows: [card.row], exhaustive: true, points: card.point ? [card.point] : [], source }
      }
      const key = `${unit.platform}/${unit.op}/${unit.subject ?? ""}/${unit.store ?? ""}/${withoutRows(unit.request)}/${c.day}`
      const perPage = kind._tag === "Measure" && kind.paging === "pages"
      const asked = perPage ? unit.rows * 10 : unit.rows
      const count = knobs.shortLists ? Math.min(asked, G.available(c, key)) : asked
      const generated = G.listFor(c, key, count)
      const subjectPoint = G.subjectPoint(c, generated)
      return {
        _tag: "Delivered",
        rows: generated.map((g) => g.row),
        exhaustive: count < asked,
        points: [...generated.flatMap((g) => (g.point ? [g.point] : [])), ...(subjectPoint ? [subjectPoint] : [])],
        source
      }
    }

    /** The answer, measured now (one step of the fiber's runtime: issue 22). */
    const answer = (unit: U.UnitRequest): Effect.Effect<U.UnitOutcome, U.UpstreamFailed> =>
      Effect.clockWith((clock) => {
        const def = Catalogue.findOp(unit.platform, unit.op)
        if (def === undefined || !G.serves(def)) return failed(`no synthetic data for ${unit.platform} ${unit.op}`)
        return Effect.succeed(produce(def, unit, clock.unsafeCurrentTimeMillis()))
      })
    const neutral = !knobs.hang && Duration.toMillis(knobs.latency) <= 0 && !(knobs.failureRate > 0)

    return {
      name: source,
      fetch: neutral
        ? answer
        : (unit) =>
            Effect.gen(function* () {
              if (knobs.hang) return yield* Effect.never
              if (Duration.toMillis(knobs.latency) > 0) yield* Effect.sleep(knobs.latency)
              if (knobs.failureRate > 0 && (yield* Random.next) < knobs.failureRate) {
                return yield* failed("synthetic failure (the failure-rate knob)")
              }
              return yield* answer(unit)
            }),
      resolveStore: (_platform, _op, locator) =>
        Effect.sync(() => {
          if (typeof locator["storeId"] === "string") return Option.some(`store:${locator["storeId"]}`)
          if (typeof locator["pincode"] === "string") {
            return Option.some(`store:${new G.Rng(locator["pincode"]).id(6, "0123456789")}`)
          }
          const lat = Number(locator["lat"])
          const lon = Number(locator["lon"])
          return Option.some(`store:${new G.Rng(Math.round(lat * 20), Math.round(lon * 20)).id(6, "0123456789")}`)
        }),
      exploreSource: (name) => Effect.succeed(Option.fromNullable(exploreSources.find((s) => s.name === name))),
      exploreSources: () => Effect.succeed(exploreSources)
    } satisfies U.Adapter
  })

/** The adapter with these knobs, serving every platform. */
export const layer = (knobs: Knobs = defaults) => Layer.effect(U.Upstream, Effect.map(make(knobs), U.single))

/** Knobs from SYNTHETIC_LATENCY_MS, SYNTHETIC_FAILURE_RATE, SYNTHETIC_HANG, SYNTHETIC_NOT_FOUND. */
export const knobsConfig = Config.all({
  latency: Setting.integer("SYNTHETIC_LATENCY_MS", 0, { least: 0 }).pipe(Config.map(Duration.millis)),
  failureRate: Setting.number("SYNTHETIC_FAILURE_RATE", 0, { least: 0, most: 1 }),
  hang: Config.boolean("SYNTHETIC_HANG").pipe(Config.withDefault(false)),
  notFound: Config.string("SYNTHETIC_NOT_FOUND").pipe(
    Config.withDefault(defaults.notFound.source),
    Config.map((s) => new RegExp(s, "i"))
  ),
  shortLists: Config.boolean("SYNTHETIC_SHORT_LISTS").pipe(Config.withDefault(true))
})

/** The adapter with knobs from the environment. */
export const layerConfig = Layer.unwrapEffect(Effect.map(knobsConfig, layer))
