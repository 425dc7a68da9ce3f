/**
 * Freshness (D2): the key of a stored result (platform + op + canonical subject + every answer-changing field),
 * the window, and the rule of which stored result serves a call.
 */
import type { OpDef, OpRequest } from "./Catalogue.js"
import type { Measurement } from "./ports/Measurements.js"

/** Fields that name the unit or how many rows it asks for; every other field changes the answer. */
const notAnswerChanging = new Set(["op", "subjects", "subject", "limit", "pages"])

/**
 * JSON with object keys sorted, so equal values have one spelling. Written with an explicit stack, not recursion, so
 * no nesting depth can overflow the call stack.
 */
export const canonicalJson = (value: unknown): string => {
  let out = ""
  // pieces of text, and values still to write, popped in order
  const work: Array<string | { readonly v: unknown }> = [{ v: value }]
  while (work.length > 0) {
    const item = work.pop()!
    if (typeof item === "string") {
      out += item
      continue
    }
    const v = item.v
    if (Array.isArray(v)) {
      work.push("]")
      for (let i = v.length - 1; i >= 0; i--) {
        work.push({ v: v[i] })
        if (i > 0) work.push(",")
      }
      work.push("[")
    } else if (v !== null && typeof v === "object") {
      const entries = Object.entries(v)
        .filter(([, x]) => x !== undefined)
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      work.push("}")
      for (let i = entries.length - 1; i >= 0; i--) {
        work.push({ v: entries[i]![1] })
        work.push(`${JSON.stringify(entries[i]![0])}:`)
        if (i > 0) work.push(",")
      }
      work.push("{")
    } else {
      out += JSON.stringify(v) ?? ""
    }
  }
  return out
}

/** The answer-changing fields of a request, canonical JSON; `store` is the resolved store, not the locator. */
export const answerFields = (request: OpRequest, store: string | undefined): string => {
  const fields: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(request)) if (!notAnswerChanging.has(k)) fields[k] = v
  if (store !== undefined) fields["store"] = store
  return canonicalJson(fields)
}

/** The freshness key of one unit of work. */
export const key = (op: OpDef, entity: string, fields: string): string =>
  `${op.platform}/${op.name}/${entity}/${fields}`

/**
 * The earliest time a result may have been measured at to be fresh at `now` (D2): the op's window, or a shorter one
 * a caller sets (`atMostMillis`, the nightly refresh's staleness).
 */
export const since = (now: Date, windowSeconds: number, atMostMillis: number): Date =>
  new Date(now.getTime() - Math.min(windowSeconds * 1000, atMostMillis))

/** What a fresh lookup asks (the Measurements port's `fresh`): keys, the window's start, the rows the call asks. */
export interface Ask {
  readonly keys: ReadonlyArray<string>
  readonly since: Date
  readonly minRows: number
}

/** What the rule reads of a stored result. */
type Stored = Pick<Measurement, "freshnessKey" | "measuredAt" | "rowsAsked" | "exhaustive">

/**
 * The freshness rule (D2): a stored result serves an ask when it was measured after the window's start and asked for
 * at least the rows asked now, or was exhaustive (it holds every row there is).
 */
export const serves = (m: Stored, ask: Pick<Ask, "since" | "minRows">): boolean =>
  m.measuredAt.getTime() > ask.since.getTime() && (m.rowsAsked >= ask.minRows || m.exhaustive)

/**
 * The rule over a set of stored results: per key asked, the newest result that serves the ask. Store adapters
 * implement it with an index (`pdr_fresh` in PostgreSQL); their tests check them against this.
 */
export const freshest = <M extends Stored>(stored: Iterable<M>, ask: Ask): Map<string, M> => {
  const keys = new Set(ask.keys)
  const out = new Map<string, M>()
  for (const m of stored) {
    if (!keys.has(m.freshnessKey) || !serves(m, ask)) continue
    const prev = out.get(m.freshnessKey)
    if (prev === undefined || prev.measuredAt.getTime() <= m.measuredAt.getTime()) out.set(m.freshnessKey, m)
  }
  return out
}
