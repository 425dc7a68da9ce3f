/**
 * Provider adapter: a hosted scraper provider's actor-run HTTP API. A unit starts a run (`POST /v2/acts/{actor}/runs`
 * with `maxItems` and a charge limit derived from our quote), keeps the run id, waits (`waitForFinish`) and polls the
 * run until it ends, then reads the run's dataset items. The synchronous endpoint is never used (it answers 408 after
 * 300 s while the run goes on). A per-op mapping (configuration) turns our request into the actor's input and its
 * items into our rows; it also serves explore `run` (source = actor id) and its sources.
 */
import { HttpClientRequest } from "@effect/platform"
import { Catalogue, type Measurements as M, Pricing, Upstream as U } from "@pdr/domain"
import { Config, Effect, Exit, Option, Redacted, Schema } from "effect"
import * as Delivered from "./Delivered.js"
import * as Policy from "./Policy.js"

/** The name this adapter reports as `source` (explore rows report the actor id). */
export const source = "provider"

/** How one op is served by an actor. */
export const OpMapping = Schema.Struct({
  /** The actor id (`user~name`). */
  actor: Schema.String,
  /** The actor input; strings `$subject`, `$query`, `$rows`, `$request.<field>` are replaced from our request. */
  input: Schema.optionalWith(Schema.Unknown, { default: () => ({}) }),
  /** Row field -> dotted path in a dataset item (the rows must decode with the op's row Schema). */
  rows: Schema.Record({ key: Schema.String, value: Schema.String })
})

/** An explore source served by an actor. */
export const ExploreSource = Schema.Struct({
  actor: Schema.String,
  price: Schema.Struct({ credits: Schema.Int, rows: Schema.Int })
})

/** The provider's settings. */
export interface Settings {
  readonly url: string
  readonly token: Redacted.Redacted<string>
  /** `platform.op` -> mapping. */
  readonly ops: Readonly<Record<string, typeof OpMapping.Type>>
  readonly explore: ReadonlyArray<typeof ExploreSource.Type>
  /** What one credit of our quote lets a run spend at the provider (the run's charge limit). */
  readonly usdPerCredit: number
  /** Seconds each wait on the run may last (`waitForFinish`, at most 60). */
  readonly waitSeconds: number
}

/** Settings from PROVIDER_URL, PROVIDER_TOKEN, PROVIDER_OPS (JSON), PROVIDER_EXPLORE (JSON), PROVIDER_USD_PER_CREDIT, PROVIDER_WAIT_S. */
export const settingsConfig: Config.Config<Settings> = Config.all({
  url: Config.string("PROVIDER_URL").pipe(Config.withDefault("https://api.apify.com")),
  token: Config.redacted("PROVIDER_TOKEN"),
  ops: Schema.Config("PROVIDER_OPS", Schema.parseJson(Schema.Record({ key: Schema.String, value: OpMapping }))).pipe(
    Config.withDefault({})
  ),
  explore: Schema.Config("PROVIDER_EXPLORE", Schema.parseJson(Schema.Array(ExploreSource))).pipe(
    Config.withDefault([])
  ),
  usdPerCredit: Config.number("PROVIDER_USD_PER_CREDIT").pipe(Config.withDefault(0.001)),
  waitSeconds: Config.integer("PROVIDER_WAIT_S").pipe(Config.withDefault(10))
})

const Run = Schema.Struct({
  data: Schema.Struct({ id: Schema.String, status: Schema.String, defaultDatasetId: Schema.String })
})

const Items = Schema.Array(Schema.Record({ key: Schema.String, value: Schema.Unknown }))

const terminal = new Set(["SUCCEEDED", "FAILED", "ABORTED", "TIMED-OUT"])

/** The value at a dotted path (`a.b.0.c`), null when absent. */
export const at = (item: unknown, path: string): unknown => {
  let v: unknown = item
  for (const key of path.split(".")) {
    if (v === null || typeof v !== "object") return null
    v = (v as Record<string, unknown>)[key]
  }
  return v === undefined ? null : v
}

/** The actor input of a unit: the template with `$subject`, `$query`, `$rows`, `$request.<field>` replaced. */
export const input = (template: unknown, unit: U.UnitRequest): unknown => {
  if (typeof template === "string") {
    if (template === "$subject") return unit.subject ?? null
    if (template === "$query") return unit.request["query"] ?? null
    if (template === "$rows") return unit.rows
    if (template.startsWith("$request.")) return unit.request[template.slice("$request.".length)] ?? null
    return template
  }
  if (Array.isArray(template)) return template.map((t) => input(t, unit))
  if (template !== null && typeof template === "object")
    return Object.fromEntries(Object.entries(template).map(([k, v]) => [k, input(v, unit)]))
  return template
}

/** The adapter over a policy. */
export const make = (policy: Policy.Policy, settings: Settings): U.Adapter => {
  const base = settings.url.replace(/\/+$/, "")
  const auth = HttpClientRequest.bearerToken(Redacted.value(settings.token))
  const exploreOp = Catalogue.platforms.flatMap((p) => p.ops).find(Catalogue.runsSource)
  const explore = new Map(settings.explore.map((s) => [s.actor, s]))

  const ok = (reply: Policy.Reply, what: string) =>
    reply.status >= 200 && reply.status < 300
      ? Effect.void
      : Effect.fail(
          new Policy.Failure({ reason: "failed", detail: `the provider answered ${reply.status} to ${what}` })
        )

  /** One run of an actor, to its end, and its dataset items. */
  const run = (actor: string, body: unknown, maxItems: number, chargeUsd: number) =>
    Effect.gen(function* () {
      const started = yield* policy.send(
        HttpClientRequest.post(`${base}/v2/acts/${encodeURIComponent(actor)}/runs`, {
          urlParams: {
            maxItems: String(maxItems),
            maxTotalChargeUsd: chargeUsd.toFixed(4),
            waitForFinish: String(settings.waitSeconds)
          }
        }).pipe(auth, HttpClientRequest.bodyUnsafeJson(body))
      )
      if (started.status === 404) return Option.none()
      yield* ok(started, `starting ${actor}`)
      let state = (yield* Policy.json(Run)(started)).data
      const runId = state.id
      // the run id is kept here: a dropped wait is polled again on the same run, never started twice; a unit that
      // gives up (its budget, a failure, an interruption) aborts the run so that it stops spending
      yield* Effect.gen(function* () {
        while (!terminal.has(state.status)) {
          const polled = yield* policy.send(
            HttpClientRequest.get(`${base}/v2/actor-runs/${runId}`, {
              urlParams: { waitForFinish: String(settings.waitSeconds) }
            }).pipe(auth)
          )
          yield* ok(polled, `run ${runId}`)
          state = (yield* Policy.json(Run)(polled)).data
        }
      }).pipe(
        Effect.onExit((exit) =>
          Exit.isFailure(exit) && !terminal.has(state.status)
            ? policy.detached(HttpClientRequest.post(`${base}/v2/actor-runs/${runId}/abort`).pipe(auth))
            : Effect.void
        )
      )
      if (state.status !== "SUCCEEDED")
        return yield* new Policy.Failure({
          reason: "failed",
          detail: `run ${state.id} of ${actor} ended ${state.status}`
        })
      const items = yield* policy.send(
        HttpClientRequest.get(`${base}/v2/datasets/${state.defaultDatasetId}/items`, {
          urlParams: { format: "json", clean: "true", limit: String(maxItems) }
        }).pipe(auth)
      )
      yield* ok(items, `the dataset of run ${state.id}`)
      return Option.some((yield* Policy.json(Items)(items)).slice(0, maxItems))
    })

  const charge = (rule: Pricing.PriceRule, unit: U.UnitRequest, sourcePrice?: { credits: number; rows: number }) => {
    const quote = Pricing.unitPrice(rule, {
      rows: unit.rows,
      completed: true,
      parts: unit.parts ?? [],
      ...(sourcePrice ? { sourcePrice } : {})
    })
    return (quote.n / quote.d) * settings.usdPerCredit
  }

  const fetch = (unit: U.UnitRequest): Effect.Effect<U.UnitOutcome, U.UpstreamFailed> => {
    const op = Catalogue.findOp(unit.platform, unit.op)
    if (op === undefined)
      return Effect.fail(new U.UpstreamFailed({ source, detail: `no op ${unit.platform} ${unit.op}` }))
    if (op === exploreOp) {
      const actor = op.facets.source(unit.request) ?? ""
      const input = op.facets.sourceInput(unit.request)
      const known = explore.get(actor)
      if (known === undefined)
        return Effect.succeed({ _tag: "NotFound", source, detail: `the provider serves no source ${actor}` })
      return policy.unit(
        source,
        Effect.flatMap(run(actor, input, unit.rows, charge(op.price, unit, known.price)), (items) =>
          Option.match(items, {
            onNone: () =>
              Effect.succeed<U.UnitOutcome>({
                _tag: "NotFound",
                source: actor,
                detail: `the provider has no actor ${actor}`
              }),
            onSome: (list) => {
              const rows = list.map((raw, i): M.Row => ({ position: i + 1, raw, input }))
              return Effect.as(Delivered.check(unit, rows), {
                _tag: "Delivered",
                rows,
                exhaustive: list.length < unit.rows,
                points: [],
                source: actor
              } satisfies U.UnitOutcome)
            }
          })
        )
      )
    }
    const mapping = settings.ops[`${unit.platform}.${unit.op}`]
    if (mapping === undefined)
      return Effect.fail(
        new U.UpstreamFailed({ source, detail: `PROVIDER_OPS maps no actor to ${unit.platform}.${unit.op}` })
      )
    return policy.unit(
      source,
      Effect.map(run(mapping.actor, input(mapping.input, unit), unit.rows, charge(op.price, unit)), (items) => {
        if (Option.isNone(items))
          return Effect.succeed<U.UnitOutcome>({
            _tag: "NotFound",
            source,
            detail: `the provider has no actor ${mapping.actor}`
          })
        const list = items.value
        if (list.length === 0 && unit.subject !== undefined)
          return Effect.succeed<U.UnitOutcome>({
            _tag: "NotFound",
            source,
            detail: `the provider found nothing for ${unit.subject}`
          })
        const positioned =
          "position" in (op.delivered && "fields" in op.delivered ? (op.delivered.fields as object) : {})
        const rows = list.map(
          (item, i): M.Row => ({
            ...(positioned ? { position: i + 1 } : {}),
            ...Object.fromEntries(Object.entries(mapping.rows).map(([field, path]) => [field, at(item, path)]))
          })
        )
        return Effect.map(Delivered.check(unit, rows), (): U.UnitOutcome => {
          const point = unit.subject === undefined ? undefined : Delivered.point(unit.platform, unit.subject, rows)
          return { _tag: "Delivered", rows, exhaustive: list.length < unit.rows, points: point ? [point] : [], source }
        })
      }).pipe(Effect.flatten)
    )
  }

  return {
    name: source,
    fetch,
    exploreSource: (name) =>
      Effect.succeed(Option.map(Option.fromNullable(explore.get(name)), (s) => ({ name: s.actor, price: s.price }))),
    exploreSources: () => Effect.succeed(settings.explore.map((s) => ({ name: s.actor, price: s.price })))
  }
}
