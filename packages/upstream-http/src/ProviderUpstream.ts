/**
 * Provider adapter: a hosted scraper provider's actor-run HTTP API. A unit starts a run (`POST /v2/acts/{actor}/runs`
 * with `maxItems` and a charge limit derived from our quote), keeps the run id, waits (`waitForFinish`) and polls the
 * run until it ends, then reads the run's dataset items. The synchronous endpoint is never used (it answers 408 after
 * 300 s while the run goes on). A per-op mapping (configuration) turns our request into the actor's input and its
 * items into our rows; it also serves explore `run` (source = actor id) and its sources.
 *
 * Quick-commerce stores (D3), per op: the provider resolves nothing itself. A store locator whose form the op's actor
 * takes directly (its mapping's input names the form's fields; a history op: every op writing its points) is the
 * store identity as given, canonicalised (`storeId` -> `store:<id>`, `pincode` -> `pincode:<pincode>`, `lat`/`lon` ->
 * `geo:<lat>,<lon>` at 4 decimals, about 11 m, and the actor is given those rounded coordinates); the actor finds the
 * dark store serving it. A form the actor does not take resolves to no store (the port's answer for an unresolvable
 * locator: a 400 naming `request.store`), so an actor is never run without a location.
 */
import { readFileSync } from "node:fs"
import { HttpClientRequest } from "@effect/platform"
import { Catalogue, Completeness, Examples, Fields, type Measurements as M, Pricing, Upstream as U } from "@pdr/domain"
import { Config, ConfigError, Effect, Either, Exit, Option, Redacted, Schema } from "effect"
import * as Delivered from "./Delivered.js"
import * as Mapping from "./Mapping.js"
import * as Policy from "./Policy.js"
import * as ProviderCatalogue from "./ProviderCatalogue.js"

/** The name this adapter reports as `source` (explore rows report the actor id). */
export const source = "provider"

/** How one op is served by an actor (the mapping language, Mapping.ts). */
export const OpMapping = Mapping.OpMapping

/** An explore source served by an actor. */
export const ExploreSource = Schema.Struct({
  actor: Schema.String,
  // a source whose price is 0 credits could pay for no item of its run: refused when PROVIDER_EXPLORE is decoded
  price: Schema.Struct({ credits: Schema.Int.pipe(Schema.positive()), rows: Schema.Int.pipe(Schema.positive()) }),
  // the actor's own USD per item, when known: its price in credits must pay for it (checked at start)
  usdPerItem: Schema.optional(Schema.Number.pipe(Schema.positive())),
  docs: Schema.optional(Schema.String)
})

/** The shipped explore sources (provider-catalogue/Explore.ts) as PROVIDER_EXPLORE's default. */
export const shippedExplore: ReadonlyArray<typeof ExploreSource.Type> = ProviderCatalogue.exploreSources.map((s) => ({
  actor: s.actor,
  price: s.price,
  usdPerItem: s.usdPerItem,
  docs: s.docs
}))

/**
 * Issue 20 item 3: an explore source whose price in credits, at `usdPerCredit`, is below its actor's price per item
 * would run with a charge limit that cannot pay for the rows it is asked (a run's charge limit is its quote times
 * `usdPerCredit`). Left: a message naming the source.
 */
export const checkExplore = (
  sources: ReadonlyArray<typeof ExploreSource.Type>,
  usdPerCredit: number
): Either.Either<void, string> => {
  for (const s of sources) {
    if (s.usdPerItem === undefined) continue
    const perRow = (s.price.credits * usdPerCredit) / s.price.rows
    // compared in millionths of a cent so that 0.004 = 4 x 0.001 is not lost to floating point
    if (Math.round(perRow * 1e8) < Math.round(s.usdPerItem * 1e8))
      return Either.left(
        `${s.actor}: ${s.price.credits} credits per ${s.price.rows} rows is ${perRow} USD a row at PROVIDER_USD_PER_CREDIT=${usdPerCredit}, below the actor's ${s.usdPerItem} USD per item: its runs could not pay for their rows`
      )
  }
  return Either.void
}

/**
 * A run's charge limit as the provider takes it (dollars with 4 decimals), rounded up: a limit rounded down could pay
 * for less than the one item it was computed for (0.00012 would be 0.0001).
 */
export const chargeLimit = (usd: number) => (Math.ceil(Math.round(usd * 1e8) / 1e4) / 1e4).toFixed(4)

/** The provider's settings. */
export interface Settings {
  readonly url: string
  readonly token: Redacted.Redacted<string>
  /** `platform.op` -> mapping: the shipped catalogue, overridden by PROVIDER_MAPPINGS then PROVIDER_OPS. */
  readonly ops: Readonly<Record<string, Mapping.OpMapping>>
  readonly explore: ReadonlyArray<typeof ExploreSource.Type>
  /**
   * What one credit of our quote is worth at the provider: the charge limit of an explore source's run (its price in
   * credits for the rows asked); an op's mapping pays with its own price per item.
   */
  readonly usdPerCredit: number
  /** Seconds each wait on the run may last (`waitForFinish`, at most 60). */
  readonly waitSeconds: number
}

const mappingsFrom = (name: string, text: string) =>
  Effect.flatMap(
    Effect.try({
      try: () => JSON.parse(text) as unknown,
      catch: (e) => ConfigError.InvalidData([name], `is not JSON: ${String(e)}`)
    }),
    (json) =>
      Either.match(Mapping.decodeMappings(json, name), {
        onLeft: (m) => Effect.fail(ConfigError.InvalidData([name], m)),
        onRight: Effect.succeed
      })
  )

/**
 * Settings from PROVIDER_URL, PROVIDER_TOKEN, PROVIDER_MAPPINGS (a JSON file of mappings), PROVIDER_OPS (JSON
 * mappings), PROVIDER_EXPLORE (JSON), PROVIDER_USD_PER_CREDIT, PROVIDER_WAIT_S; the shipped catalogue underneath.
 */
export const settingsConfig: Config.Config<Settings> = Config.all({
  url: Config.string("PROVIDER_URL").pipe(Config.withDefault("https://api.apify.com")),
  token: Config.redacted("PROVIDER_TOKEN"),
  file: Config.string("PROVIDER_MAPPINGS").pipe(Config.withDefault("")),
  env: Config.string("PROVIDER_OPS").pipe(Config.withDefault("")),
  // the shipped explore sources unless PROVIDER_EXPLORE names the sources (then exactly those; `[]` serves none)
  explore: Schema.Config("PROVIDER_EXPLORE", Schema.parseJson(Schema.Array(ExploreSource))).pipe(
    Config.withDefault(shippedExplore)
  ),
  usdPerCredit: Config.number("PROVIDER_USD_PER_CREDIT").pipe(Config.withDefault(0.001)),
  waitSeconds: Config.integer("PROVIDER_WAIT_S").pipe(Config.withDefault(10))
}).pipe(
  Config.mapOrFail(({ file, env, ...rest }) =>
    Effect.runSync(
      Effect.either(
        Effect.gen(function* () {
          const fromFile =
            file === ""
              ? {}
              : yield* Effect.flatMap(
                  Effect.try({
                    try: () => readFileSync(file, "utf8"),
                    catch: (e) => ConfigError.InvalidData(["PROVIDER_MAPPINGS"], `cannot read ${file}: ${String(e)}`)
                  }),
                  (text) => mappingsFrom("PROVIDER_MAPPINGS", text)
                )
          const fromEnv = env === "" ? {} : yield* mappingsFrom("PROVIDER_OPS", env)
          yield* Either.mapLeft(checkExplore(rest.explore, rest.usdPerCredit), (m) =>
            ConfigError.InvalidData(["PROVIDER_EXPLORE"], m)
          )
          return { ...rest, ops: { ...ProviderCatalogue.mappings, ...fromFile, ...fromEnv } }
        })
      )
    )
  )
)

/**
 * Checks the mappings at start: each covers its op's row and names only request fields of its op, a quick-commerce
 * one takes a store locator form, and every op routed to the provider has one. Left: a message naming the op and the field. (A mapping's price per item is the actor's:
 * a run's charge limit is that price for the items asked, so it always pays for what it asks.)
 */
export const checkRouted = (
  settings: Settings,
  routed: ReadonlyArray<Catalogue.OpDef>
): Either.Either<void, string> => {
  for (const [key, m] of Object.entries(settings.ops)) {
    const checked = Mapping.check(key, m)
    if (Either.isLeft(checked)) return checked
    // D3: a quick-commerce op's actor must be given the store; a mapping taking no locator form would refuse every call
    const [platform = "", name = ""] = key.split(".")
    if (Catalogue.findOp(platform, name)?.scope === "store" && formsOf(m).length === 0)
      return Either.left(
        `${key}: input names no store locator (request.store.storeId, request.store.pincode, or request.store.lat with request.store.lon): its actor would run without a location`
      )
  }
  for (const op of routed) {
    if (op.kind._tag !== "Measure") continue
    const key = `${op.platform}.${op.name}`
    const m = settings.ops[key]
    if (m === undefined)
      return Either.left(
        `${key}: routed to the provider with no mapping (add one with PROVIDER_MAPPINGS or PROVIDER_OPS, or route it elsewhere)`
      )
  }
  return Either.void
}

/** Items a run is asked for: the rows, or ten a page for ops priced per page (a results page holds about ten). */
export const itemsFor = (op: Catalogue.OpDef, rows: number) => (pages(op) ? rows * 10 : rows)

const pages = (op: Catalogue.OpDef) => op.kind._tag === "Measure" && op.kind.paging === "pages"

/**
 * What one run of a mapping is asked for a unit of `rows` rows (pages, for an op priced per page): its items
 * (`itemsFor`, at most the mapping's `maxItems`, the most one run of its actor gives) and the rows its input's `$rows`
 * names (at most `maxItems` too; for an op priced per page, the whole pages `maxItems` holds).
 */
export const runAsks = (op: Catalogue.OpDef, m: Mapping.OpMapping, rows: number) => {
  if (m.maxItems === undefined) return { items: itemsFor(op, rows), rows }
  // an op priced per page asks pages of about ten items: the cap is on its items, so its pages are the whole pages
  // the cap holds (at least one)
  const asked = Math.min(rows, pages(op) ? Math.max(1, Math.floor(m.maxItems / 10)) : m.maxItems)
  return { items: Math.min(itemsFor(op, asked), m.maxItems), rows: asked }
}

/**
 * The routed mappings that sell below their actor's price at `usdPerCredit` (issue 20 item 3, told to the operator at
 * start, not refused: a run's charge limit is the mapping's price for the items it asks, so each run still pays for what
 * it asks; it is the deployment that loses money): for each, what a unit of the op's most rows earns against what its run
 * costs the provider (its items at the mapping's price per item, and its fee per run), in USD.
 */
export const belowCost = (
  settings: Settings,
  routed: ReadonlyArray<Catalogue.OpDef>,
  usdPerCredit: number
): ReadonlyArray<{
  readonly op: string
  readonly actor: string
  readonly earnsUsd: number
  readonly costsUsd: number
}> =>
  routed.flatMap((op) => {
    const key = `${op.platform}.${op.name}`
    const mapping = settings.ops[key]
    if (mapping === undefined) return []
    const asks = runAsks(op, mapping, Examples.rowsBounds(op)[1])
    const price = Pricing.unitPrice(op.price, { rows: asks.rows, completed: true })
    const earnsUsd = (price.n / price.d) * usdPerCredit
    const costsUsd = mapping.usdPerRun + mapping.usdPerItem * asks.items
    // compared in millionths of a cent, as checkExplore does
    return Math.round(earnsUsd * 1e8) < Math.round(costsUsd * 1e8)
      ? [{ op: key, actor: mapping.actor, earnsUsd, costsUsd }]
      : []
  })

const Run = Schema.Struct({
  data: Schema.Struct({
    id: Schema.String,
    status: Schema.String,
    defaultDatasetId: Schema.String,
    statusMessage: Schema.optionalWith(Schema.NullOr(Schema.String), { default: () => null }),
    usageTotalUsd: Schema.optionalWith(Schema.NullOr(Schema.Number), { default: () => null })
  })
})

const Items = Schema.Array(Schema.Unknown)

const terminal = new Set(["SUCCEEDED", "FAILED", "ABORTED", "TIMED-OUT"])

/** The value at a dotted path (`a.b.0.c`), null when absent. */
export const at = Mapping.at

/** The actor input of a unit (Mapping.input). */
export const input = Mapping.input

/**
 * The request fields (`store.<field>`) an actor's input must name to take each locator form (D3): a pincode's city
 * is for our caller, no actor read needs it.
 */
const locatorFields: { readonly [F in Fields.StoreForm]: ReadonlyArray<string> } = {
  storeId: ["storeId"],
  pincode: ["pincode"],
  latLon: ["lat", "lon"]
}

/** Coordinates rounded to 4 decimals (about 11 m): the precision of a `geo:` store identity. */
const round4 = (x: number) => {
  const r = Math.round(x * 1e4) / 1e4
  return r === 0 ? 0 : r
}

/** The identity of a store locator as given, canonicalised, and its form; undefined for no known form. */
export const storeIdentity = (
  locator: Readonly<Record<string, unknown>>
): { readonly form: Fields.StoreForm; readonly id: string } | undefined => {
  const { storeId, pincode, lat, lon } = locator
  if (typeof storeId === "string") return { form: "storeId", id: `store:${storeId}` }
  if (typeof pincode === "string") return { form: "pincode", id: `pincode:${pincode}` }
  if (typeof lat === "number" && typeof lon === "number")
    return { form: "latLon", id: `geo:${round4(lat).toFixed(4)},${round4(lon).toFixed(4)}` }
  return undefined
}

/** The locator forms a mapping's input takes: a form whose fields its input names (`$request.store.pincode`...). */
export const formsOf = (m: Mapping.OpMapping): ReadonlyArray<Fields.StoreForm> => {
  const named = new Set(Mapping.requestPaths(m.input))
  return Fields.storeFormNames.filter((f) => locatorFields[f].every((field) => named.has(`store.${field}`)))
}

/**
 * The locator forms each op of a store-scoped platform takes through the provider, by `platform.op`, per op (D3):
 * a fetching op's are its mapping's; a history op's are those every op writing its points takes (U.storeSharers),
 * so that its store identity is theirs. An op without a mapping (or a history whose writers lack one) is absent.
 */
export const storeForms = (
  ops: Readonly<Record<string, Mapping.OpMapping>>
): ReadonlyMap<string, ReadonlyArray<Fields.StoreForm>> => {
  const forms = new Map<string, ReadonlyArray<Fields.StoreForm>>()
  for (const p of Catalogue.platforms) {
    if (p.historyScope !== "store") continue
    for (const op of p.ops) {
      const writers = op.kind._tag === "Measure" ? [op] : U.storeSharers(op).filter((o) => o.kind._tag === "Measure")
      const mapped = writers.map((o) => ops[`${o.platform}.${o.name}`])
      if (writers.length === 0 || mapped.some((m) => m === undefined)) continue
      const each = mapped.map((m) => formsOf(m!))
      forms.set(
        `${p.id}.${op.name}`,
        Fields.storeFormNames.filter((f) => each.every((taken) => taken.includes(f)))
      )
    }
  }
  return forms
}

/** The request an actor is given for a store-scoped unit: coordinates rounded as the store identity has them. */
const canonicalRequest = (request: Catalogue.OpRequest): Catalogue.OpRequest => {
  const store = request["store"] as Readonly<Record<string, unknown>> | undefined
  if (store === undefined || typeof store["lat"] !== "number" || typeof store["lon"] !== "number") return request
  return { ...request, store: { ...store, lat: round4(store["lat"]), lon: round4(store["lon"]) } }
}

/** A run that ended and its items; `chargeLimited`: it stopped on (or at) its charge limit. */
interface Ended {
  readonly items: ReadonlyArray<unknown>
  readonly chargeLimited: boolean
}

/** The adapter over a policy. */
export const make = (policy: Policy.Policy, settings: Settings): U.Adapter => {
  const base = settings.url.replace(/\/+$/, "")
  const auth = HttpClientRequest.bearerToken(Redacted.value(settings.token))
  const exploreOp = Catalogue.platforms.flatMap((p) => p.ops).find(Catalogue.runsSource)
  const explore = new Map(settings.explore.map((s) => [s.actor, s]))
  const forms = storeForms(settings.ops)

  /** A refusal of the provider: the mapping (or source) named, never the subject's fault (issue 20). */
  const refused = (reply: Policy.Reply, what: string, owner: string) => {
    if (reply.status >= 200 && reply.status < 300) return Effect.void
    const why =
      reply.status === 404
        ? "the provider has no such actor or run (404)"
        : reply.status === 401 || reply.status === 403
          ? `the provider refused the token (${reply.status})`
          : `the provider answered ${reply.status}`
    return Effect.fail(new Policy.Failure({ reason: "failed", detail: `${owner}: ${why} to ${what}` }))
  }

  /** One run of an actor, to its end, and its dataset items. */
  const run = (
    owner: string,
    actor: string,
    body: unknown,
    maxItems: number,
    chargeUsd: number,
    hidden: boolean,
    kept?: U.UnitRequest["run"]
  ): Effect.Effect<Ended, Policy.Failure> =>
    Effect.gen(function* () {
      // issue 21: a long call taken over from a process that died polls the run that process started (its id kept
      // with the call) instead of starting, and paying for, another; a run the provider no longer knows is started anew
      const resumed =
        kept?.resume === undefined
          ? undefined
          : yield* Effect.flatMap(
              policy.send(
                HttpClientRequest.get(`${base}/v2/actor-runs/${encodeURIComponent(kept.resume)}`, {
                  urlParams: { waitForFinish: String(settings.waitSeconds) }
                }).pipe(auth)
              ),
              (polled) =>
                polled.status === 404
                  ? Effect.succeed(undefined)
                  : Effect.zipRight(
                      refused(polled, `run ${kept.resume}`, owner),
                      Effect.map(Policy.json(Run)(polled), (r) => r.data)
                    )
            )
      let state =
        resumed ??
        (yield* Effect.gen(function* () {
          const started = yield* policy.send(
            HttpClientRequest.post(`${base}/v2/acts/${encodeURIComponent(actor)}/runs`, {
              urlParams: {
                maxItems: String(maxItems),
                maxTotalChargeUsd: chargeLimit(chargeUsd),
                waitForFinish: String(settings.waitSeconds)
              }
            }).pipe(auth, HttpClientRequest.bodyUnsafeJson(body))
          )
          yield* refused(started, `starting ${actor}`, owner)
          const data = (yield* Policy.json(Run)(started)).data
          kept?.started(data.id)
          return data
        }))
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
          yield* refused(polled, `run ${runId}`, owner)
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
          detail: `${owner}: run ${state.id} of ${actor} ended ${state.status}${state.statusMessage ? ` (${state.statusMessage})` : ""}`
        })
      // hidden (`#`) fields arrive only when the dataset is read without `clean` (which skips them)
      const items = yield* policy.send(
        HttpClientRequest.get(`${base}/v2/datasets/${state.defaultDatasetId}/items`, {
          urlParams: {
            format: "json",
            ...(hidden ? { skipEmpty: "true" } : { clean: "true" }),
            limit: String(maxItems)
          }
        }).pipe(auth)
      )
      yield* refused(items, `the dataset of run ${state.id}`, owner)
      const list = (yield* Policy.json(Items)(items)).slice(0, maxItems)
      // a run stopped on its charge limit says so, or has spent (about) all of it: it is never taken as "no more"
      const chargeLimited =
        /charge|spending|cost|budget|limit/i.test(state.statusMessage ?? "") ||
        (state.usageTotalUsd !== null && state.usageTotalUsd >= chargeUsd * 0.95)
      return { items: list, chargeLimited }
    })

  const charge = (rule: Pricing.PriceRule, unit: U.UnitRequest, sourcePrice: { credits: number; rows: number }) => {
    const quote = Pricing.unitPrice(rule, { rows: unit.rows, completed: true, parts: unit.parts ?? [], sourcePrice })
    return (quote.n / quote.d) * settings.usdPerCredit
  }

  const fields = new Map<Catalogue.OpDef, ReturnType<typeof Mapping.rowFields>>()
  const fieldsOf = (op: Catalogue.OpDef) => {
    let f = fields.get(op)
    if (f === undefined) {
      f = Mapping.rowFields(op)
      fields.set(op, f)
    }
    return f
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
        actor,
        Effect.flatMap(
          run(`explore source ${actor}`, actor, input, unit.rows, charge(op.price, unit, known.price), false, unit.run),
          ({ items: list, chargeLimited }) => {
            const rows = list.map((raw, i): M.Row => ({ position: i + 1, raw, input }))
            return Effect.as(Delivered.check(unit, rows), {
              _tag: "Delivered",
              rows,
              exhaustive: list.length < unit.rows && !chargeLimited,
              points: [],
              source: actor
            } satisfies U.UnitOutcome)
          }
        ),
        unit.run?.budgetMs
      )
    }
    const key = `${unit.platform}.${unit.op}`
    const mapping = settings.ops[key]
    if (mapping === undefined)
      return Effect.fail(new U.UpstreamFailed({ source, detail: `no provider mapping for ${key}` }))
    const owner = `mapping ${key} (${mapping.actor})`
    // a request field the actor cannot serve is refused 400 before anything is spent (Plan, servedBy.refuses); a unit
    // that reaches the adapter with one anyway (a call planned before this mapping) starts no run
    const refusedField = Object.keys(mapping.refuses ?? {}).find((f) => unit.request[f] !== undefined)
    if (refusedField !== undefined)
      return Effect.fail(
        new U.UpstreamFailed({
          source,
          detail: `${owner}: refuses request.${refusedField}: ${mapping.refuses![refusedField]}`
        })
      )
    const rowFields = fieldsOf(op)
    const positioned = rowFields.all.includes("position") && !("position" in mapping.rows)
    // D3: a store-scoped row carries the store the unit was resolved to; its actor is given the locator as resolved
    const stored = op.scope === "store" && rowFields.all.includes("store") && !("store" in mapping.rows)
    const request = op.scope === "store" ? canonicalRequest(unit.request) : unit.request
    // items asked: the rows, or for ops priced per page about ten results a page, at most the most one run of the
    // actor gives (`maxItems`: its count input's maximum, `$rows` capped too); the run's charge limit is this
    // mapping's price per item for them, and its fee per run. A unit asking more than the cap whose run gave the cap
    // is delivered short and not complete (the exhaustive rule below: its run did not end short of its item limit)
    const { items, rows: asked } = runAsks(op, mapping, unit.rows)
    const chargeUsd = mapping.usdPerRun + mapping.usdPerItem * items
    return policy.unit(
      source,
      Effect.flatMap(
        run(
          owner,
          mapping.actor,
          Mapping.input(
            mapping.input,
            request === unit.request && asked === unit.rows ? unit : { ...unit, request, rows: asked }
          ),
          items,
          chargeUsd,
          Mapping.readsHidden(mapping),
          unit.run
        ),
        ({ items: list, chargeLimited }): Effect.Effect<U.UnitOutcome, Policy.Failure> => {
          // the actor's error and note items are never rows (nor billed): they are the unit's omission reason
          const notes: Array<{ readonly text: string; readonly notFound: boolean }> = []
          const data: Array<unknown> = []
          for (const item of list) {
            const e = Mapping.errorItem(mapping, item)
            if (e === undefined) data.push(item)
            else notes.push(e)
          }
          const rows = data
            .flatMap((item) => Mapping.rowsOf(mapping, item, rowFields.nullable, unit.request))
            .map((row) => (stored && unit.store !== undefined ? { ...row, store: unit.store } : row))
          if (rows.length === 0) {
            const said = notes.find((n) => n.notFound) ?? notes[0]
            if (said !== undefined && !said.notFound)
              return Effect.fail(
                new Policy.Failure({
                  reason: "failed",
                  detail: `${owner}: the actor said "${said.text.slice(0, 200)}"`
                })
              )
            if (unit.subject !== undefined)
              return Effect.succeed({
                _tag: "NotFound",
                source,
                detail: said
                  ? `${mapping.actor} said "${said.text.slice(0, 200)}"`
                  : `the provider found nothing for ${unit.subject}`
              })
          }
          const kept = pages(op) ? rows : rows.slice(0, unit.rows)
          const numbered = kept.map((row, i) => (positioned ? { ...row, position: i + 1 } : row))
          return Effect.map(Delivered.check(unit, numbered), (): U.UnitOutcome => {
            const point =
              unit.subject === undefined ? undefined : Delivered.point(unit.platform, unit.subject, numbered)
            return {
              _tag: "Delivered",
              rows: numbered,
              // no more only when the run ended short of its item limit without stopping on its charge limit
              exhaustive: list.length < items && Completeness.held(op, rows) < unit.rows && !chargeLimited,
              points: point ? [point] : [],
              source
            }
          })
        }
      ),
      // a long call's run has the run budget (PROVIDER_RUN_TIMEOUT_S), not the per-request one (issue 21)
      unit.run?.budgetMs
    )
  }

  return {
    name: source,
    fetch,
    sourceFor: () => source,
    actorFor: (platform, op) => settings.ops[`${platform}.${op}`]?.actor,
    // a unit is an actor run (start, poll, read its dataset): minutes, not one request (issue 21's run budget)
    runs: true,
    // D3, per op: the locator as given, when this op's actor takes its form; another form resolves to no store (a
    // 400 naming request.store, before anything is spent), never sent to the actor without a location
    resolveStore: (platform, op, locator) => {
      const taken = forms.get(`${platform}.${op}`)
      if (taken === undefined)
        return Effect.fail(
          new U.UpstreamFailed({ source, detail: `the provider has no mapping for ${platform}.${op}` })
        )
      const identity = storeIdentity(locator)
      return Effect.succeed(
        identity !== undefined && taken.includes(identity.form) ? Option.some(identity.id) : Option.none()
      )
    },
    storeForms: (platform, op) => forms.get(`${platform}.${op}`) ?? [],
    requires: (platform, op) => settings.ops[`${platform}.${op}`]?.requires,
    refuses: (platform, op) => settings.ops[`${platform}.${op}`]?.refuses,
    maxRows: (platform, op) => {
      const m = settings.ops[`${platform}.${op}`]
      const def = Catalogue.findOp(platform, op)
      if (m?.maxItems === undefined || def === undefined) return undefined
      // the rows a run of the most items asks (pages of about ten items for an op priced per page), if fewer than a
      // request may ask
      const most = runAsks(def, m, Examples.rowsBounds(def)[1]).rows
      return most < Examples.rowsBounds(def)[1] ? most : undefined
    },
    exploreSource: (name) =>
      Effect.succeed(Option.map(Option.fromNullable(explore.get(name)), (s) => ({ name: s.actor, price: s.price }))),
    exploreSources: () => Effect.succeed(settings.explore.map((s) => ({ name: s.actor, price: s.price })))
  }
}

/** The actor serving an op here, if the provider has a mapping for it. */
export const actorOf = (settings: Settings, platform: string, op: string) => settings.ops[`${platform}.${op}`]
