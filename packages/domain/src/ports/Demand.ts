/**
 * Port: demand for entities, noted at call time, and the tracked set the nightly refresh works from. An entity is
 * tracked when a subject op with a freshness window asked for it within the last `TRACK_DAYS` days, or when the
 * operator pinned it. Each entry keeps the exact request that measured it, so a refresh replays it.
 */
import { Context, Effect } from "effect"
import type { OpDef, OpRequest } from "../Catalogue.js"

/** One tracked entity: a subject of an op with the fields that change its answer (one freshness key). */
export interface Tracked {
  readonly freshnessKey: string
  readonly platform: string
  readonly op: string
  readonly subject: string
  /** The op request to replay for this one subject (its answer-changing fields kept). */
  readonly request: OpRequest
  readonly demandedAt: Date | null
  readonly pinned: boolean
}

/** What a call noted: the tracked entity minus the pin. */
export type Noted = Omit<Tracked, "pinned">

/** The demand store. `note` must be cheap: adapters buffer and write in batches, off the response path. */
export class Demand extends Context.Reference<Demand>()("@pdr/domain/Demand", {
  defaultValue: (): {
    readonly note: (accountId: string, entries: ReadonlyArray<Noted>) => Effect.Effect<void>
    readonly pin: (entries: ReadonlyArray<Omit<Noted, "demandedAt">>) => Effect.Effect<number>
    readonly unpin: (platform: string, subject: string) => Effect.Effect<number>
    readonly list: (options: { readonly pinnedOnly: boolean }) => Effect.Effect<ReadonlyArray<Tracked>>
    /**
     * Tracked entities (pinned, or demanded since `demandedSince` and measured at least once) with no measurement
     * newer than `measuredBefore`, pinned ones first, then the most recently demanded.
     */
    readonly due: (options: {
      readonly demandedSince: Date
      readonly measuredBefore: Date
      readonly platform: string | undefined
    }) => Effect.Effect<ReadonlyArray<Tracked>>
    /** The same entities a page at a time, in freshness-key order after `after` (keyset paging, for big passes). */
    readonly duePage: (options: {
      readonly demandedSince: Date
      readonly measuredBefore: Date
      readonly platform: string | undefined
      readonly after: string | undefined
      readonly limit: number
    }) => Effect.Effect<ReadonlyArray<Tracked>>
  } => ({
    note: () => Effect.void,
    pin: () => Effect.succeed(0),
    unpin: () => Effect.succeed(0),
    list: () => Effect.succeed([]),
    due: () => Effect.succeed([]),
    duePage: () => Effect.succeed([])
  })
}) {}

/** Whether an op's subjects can be tracked: a stored subject op with a freshness window. */
export const trackable = (op: OpDef): boolean =>
  op.stored && op.freshSeconds !== null && (op.units === "subjects" || op.units === "subject")

/**
 * The replays made of a frozen request (a remembered decode, `Requests.decode`), by op and subject: every call that
 * sends the same body notes the same entries, and the Demand adapter keeps an entry noted again as it is (issue 22).
 */
const replays = new WeakMap<OpRequest, { readonly op: OpDef; readonly bySubject: Map<string, OpRequest> }>()

/** The request that measures one subject of a planned request (the other fields unchanged). */
export const replay = (op: OpDef, request: OpRequest, subject: string): OpRequest => {
  if (!Object.isFrozen(request)) return replayOf(op, request, subject)
  let known = replays.get(request)
  if (known === undefined || known.op !== op) {
    known = { op, bySubject: new Map() }
    replays.set(request, known)
  }
  let made = known.bySubject.get(subject)
  if (made === undefined) {
    made = Object.freeze(replayOf(op, request, subject))
    if (known.bySubject.size < 1024) known.bySubject.set(subject, made)
  }
  return made
}

const replayOf = (op: OpDef, request: OpRequest, subject: string): OpRequest =>
  op.units === "subjects" ? { ...request, subjects: [subject] } : { ...request, subject }

/** The entries a planned call notes: one per subject unit. */
export const entriesOf = (
  plan: {
    readonly op: OpDef
    readonly request: OpRequest
    readonly units: ReadonlyArray<{
      readonly label: { readonly subject: string } | { readonly query: string }
      readonly freshnessKey: string
    }>
  },
  at: Date
): ReadonlyArray<Noted> => {
  const out: Array<Noted> = []
  for (const u of plan.units) {
    if (!("subject" in u.label)) continue
    out.push({
      freshnessKey: u.freshnessKey,
      platform: plan.op.platform,
      op: plan.op.name,
      subject: u.label.subject,
      request: replay(plan.op, plan.request, u.label.subject),
      demandedAt: at
    })
  }
  return out
}
