/** Port: where a platform's data comes from (D15). Adapters: synthetic (the embedded default), native, provider. */
import { Context, type Effect, type Option, Schema } from "effect"
import type { OpRequest } from "../Catalogue.js"
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
      /** Fewer rows than asked because there are no more. */
      readonly exhaustive: boolean
      readonly points: ReadonlyArray<PointReport>
      readonly source: string
    }
  | { readonly _tag: "NotFound"; readonly source: string; readonly detail: string }
  | { readonly _tag: "InvalidSubject"; readonly source: string; readonly detail: string }

/** The upstream failed for this unit (or for a resolution): the unit is omitted and not billed. */
export class UpstreamFailed extends Schema.TaggedError<UpstreamFailed>()("UpstreamFailed", {
  source: Schema.String,
  detail: Schema.String
}) {}

/** An explore source and its per-row price. */
export interface ExploreSource {
  readonly name: string
  readonly price: { readonly credits: number; readonly rows: number }
}

/** Port: upstream fetches. */
export class Upstream extends Context.Tag("@pdr/domain/Upstream")<
  Upstream,
  {
    /** The adapter's name, reported as `source` of what it measures. */
    readonly name: string
    readonly fetch: (unit: UnitRequest) => Effect.Effect<UnitOutcome, UpstreamFailed>
    /** Resolves a quick-commerce store locator to one store identity (D3). */
    readonly resolveStore: (
      platform: string,
      locator: Readonly<Record<string, unknown>>
    ) => Effect.Effect<Option.Option<string>, UpstreamFailed>
    /** The explore sources served now, each with its per-row price (D19). */
    readonly exploreSources: Effect.Effect<ReadonlyArray<ExploreSource>, UpstreamFailed>
    /** The explore source of this name, if the upstream knows it. */
    readonly exploreSource: (name: string) => Effect.Effect<Option.Option<ExploreSource>, UpstreamFailed>
  }
>() {}
