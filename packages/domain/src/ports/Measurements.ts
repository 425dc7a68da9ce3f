/** Port: measured results, history points and contact reveals. */
import { Context, type Effect } from "effect"
import type { JsonText } from "../Answers.js"

/** One row of measured data, as the upstream produced it (the envelope adds `subject` and `measuredAt`). */
export type Row = Readonly<Record<string, unknown>>

/** A stored result of one unit of work under one freshness key (D2). */
export interface Measurement {
  readonly platform: string
  readonly op: string
  /** Canonical subject, or the query's key for list ops. */
  readonly entity: string
  /** Platform + op + entity + every answer-changing field (D2). */
  readonly freshnessKey: string
  readonly measuredAt: Date
  readonly rows: ReadonlyArray<Row>
  /** Rows asked for when it was fetched; a stored result answers requests that ask for no more (or exhaustive). */
  readonly rowsAsked: number
  readonly exhaustive: boolean
  readonly found: boolean
  readonly source: string
  /** The hold of the call that paid for it (links a capture to its stored data, D8). */
  readonly holdId?: string | null
}

/** A point of an entity's history series (D9). */
export interface HistoryPoint {
  readonly platform: string
  readonly entity: string
  /** The resolved store for quick-commerce points, "" otherwise. */
  readonly store: string
  /** The stay a priced lodging or rental point was measured for, or null. */
  readonly stay: Readonly<Record<string, unknown>> | null
  readonly measuredAt: Date
  readonly metrics: Readonly<Record<string, number>>
  readonly source: string
}

/** One point of a series: when, the value, and the stay or store it was measured for (when there is one). */
export interface SeriesPoint {
  readonly measuredAt: string
  readonly value: number
  readonly stay?: Readonly<Record<string, unknown>>
  readonly store?: string
}

/** The series of one metric of one entity from one source, oldest first, as `history` reads it. */
export interface Series {
  readonly entity: string
  readonly source: string
  /** How many points it has (at least one). */
  readonly count: number
  /** The newest point's `measuredAt`. */
  readonly latest: string
  /** The points, oldest first, carried as their JSON text (the store writes it: issue 22, d). */
  readonly points: JsonText<ReadonlyArray<SeriesPoint>>
}

/** A contact part as known to one org (D10). */
export interface Reveal {
  readonly accountId: string
  readonly person: string
  readonly part: "email" | "phone"
  readonly status: "revealed" | "nothing_on_file"
  readonly value: string | null
  readonly at: Date
  readonly source: string
  /** When written: what buying this part costs (0 for nothing on file), charged only if the org did not hold it. */
  readonly credits?: number
}

/** What the settle transaction writes beside the capture (D8: data and money together). */
export interface SettleRecords {
  readonly measurements: ReadonlyArray<Measurement>
  readonly points: ReadonlyArray<HistoryPoint>
  readonly reveals: ReadonlyArray<Reveal>
}

/** Port: reads of measured data (writes happen in the settle transaction of the Ledger). */
export class Measurements extends Context.Tag("@pdr/domain/Measurements")<
  Measurements,
  {
    /**
     * For each freshness key, the newest result measured after `since` that asked for at least `minRows` rows
     * (or was exhaustive).
     */
    readonly fresh: (input: {
      readonly keys: ReadonlyArray<string>
      readonly since: Date
      readonly minRows: number
    }) => Effect.Effect<ReadonlyMap<string, Measurement>>
    /**
     * The points of one metric of these entities measured after `since`, by entity then oldest first; `store`
     * filters quick-commerce points. Points that do not carry the metric are left out.
     */
    readonly history: (input: {
      readonly platform: string
      readonly entities: ReadonlyArray<string>
      readonly metric: string
      readonly store: string | null
      readonly since: Date
    }) => Effect.Effect<ReadonlyArray<Series>>
    /**
     * Told of results a settle of this process just stored (issue 21: a forced fetch replaces the stored copy): a
     * cache in front of `fresh` serves them instead of what it held. Optional: a port without a cache has none.
     */
    readonly stored?: (measurements: ReadonlyArray<Measurement>) => Effect.Effect<void>
    /** What this org already holds for these persons. */
    readonly reveals: (input: {
      readonly accountId: string
      readonly persons: ReadonlyArray<string>
    }) => Effect.Effect<ReadonlyArray<Reveal>>
  }
>() {}
