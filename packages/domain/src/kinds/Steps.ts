/**
 * The steps an op kind owns (see `OpKind`): how its units are planned (what is held, what is bought, whether a unit
 * needs a fetch), how a fetch is made and shared, what a delivery keeps and costs, what the settle records, and how
 * the answer shows its units. `Calls`, `Plan`, `Fetch`, `Coverage` and `Settle` drive these steps and never look at
 * the op's name or its price rule.
 */
import type { Context, Effect } from "effect"
import type { EveryUnitFailed } from "../CallErrors.js"
import type * as Catalogue from "../Catalogue.js"
import type { CoverageItem } from "../Coverage.js"
import type { Caller } from "../Keys.js"
import type { Fetched, Plan, Unit } from "../Plan.js"
import type * as Pricing from "../Pricing.js"
import type { HistoryPoint, Measurement, Measurements, Reveal, Row } from "../ports/Measurements.js"
import type { Upstream } from "../ports/Upstream.js"
import type { InvalidRequest } from "../Requests.js"
import type { Part } from "./Reveal.js"

/** A unit delivered by its upstream. */
export type Delivered = Extract<Fetched, { readonly outcome: unknown }>

/** The per-row price of the source an op runs, when it names one (D19). */
export type SourcePrice = { readonly credits: number; readonly rows: number } | undefined

/** What a settle transaction writes (D8, D9, D10), filled by each delivered unit's kind. */
export interface Records {
  readonly measurements: Array<Measurement>
  readonly points: Array<HistoryPoint>
  readonly reveals: Array<Reveal>
}

/** How an answer shows its units (D4). */
export interface Shaping {
  /** A unit served from what is held: its rows and its coverage item. */
  readonly stored: (p: Plan, u: Unit) => { readonly rows: ReadonlyArray<Row>; readonly item: CoverageItem }
  /** The rows an omitted unit still shows. */
  readonly omitted: (u: Unit) => ReadonlyArray<Row>
  /** A delivered unit's rows. */
  readonly fetched: (p: Plan, u: Unit, f: Delivered) => ReadonlyArray<Row>
  /** How many rows a delivered unit's coverage item counts. */
  readonly counted: (f: Delivered) => number
}

/** The steps of a kind whose calls are planned, quoted, held, fetched and settled. */
export interface Fetches {
  readonly _tag: "Fetches"
  /** Before the units: the price of the source the request names (explore's runs), else undefined. */
  readonly prepare: (
    upstream: Context.Tag.Service<Upstream>,
    op: Catalogue.OpDef,
    request: Catalogue.OpRequest
  ) => Effect.Effect<SourcePrice, InvalidRequest | EveryUnitFailed>
  /** What the caller's org already holds for these persons (contact parts), else nothing. */
  readonly held: (
    measurements: Context.Tag.Service<Measurements>,
    caller: Caller,
    persons: ReadonlyArray<string>
  ) => Effect.Effect<ReadonlyArray<Reveal>>
  /** The parts a unit buys, given what its person's parts held. */
  readonly buy: (op: Catalogue.OpDef, request: Catalogue.OpRequest, held: ReadonlyArray<Reveal>) => ReadonlyArray<Part>
  /** Whether a unit is fetched (else it is served from what is held). */
  readonly fetches: (u: Pick<Unit, "stored" | "buy">) => boolean
  /** The parts a unit's fetch asks the upstream for, when the kind buys parts. */
  readonly fetchParts: (u: Unit) => ReadonlyArray<Part> | undefined
  /** Whether identical concurrent fetches may share one upstream call (results kept for everyone, D2). */
  readonly shares: boolean
  /** The part of a delivery a unit keeps, for `asked` rows (or pages). */
  readonly kept: (rows: ReadonlyArray<Row>, asked: number) => ReadonlyArray<Row>
  /** The billable quantity of a delivery: rows, or pages. */
  readonly quantity: (rows: ReadonlyArray<Row>) => number
  /** The exact price of what a fetch delivered. */
  readonly delivered: (p: Plan, f: Delivered) => Pricing.Exact
  /** Adds what the settle writes for one delivered unit. */
  readonly record: (caller: Caller, p: Plan, f: Delivered, into: Records) => void
  /** What the settle captures for the call's charge (contact parts are charged by the settle per part, D10). */
  readonly capture: (charge: number) => number
  /** How the answer shows the units. */
  readonly shaping: Shaping
}

/** The steps of a kind whose calls read what is stored: never quoted, held, fetched or billed. */
export interface Reads {
  readonly _tag: "Reads"
  /** The answer's rows and coverage, from what is stored. */
  readonly answer: (
    measurements: Context.Tag.Service<Measurements>,
    op: Catalogue.OpDef,
    request: Catalogue.OpRequest,
    store: string | undefined
  ) => Effect.Effect<{ readonly data: ReadonlyArray<Row>; readonly coverage: ReadonlyArray<CoverageItem> }>
}

/** The steps of a kind. */
export type Steps = Fetches | Reads
