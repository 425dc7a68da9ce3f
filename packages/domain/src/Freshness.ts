/**
 * Freshness (D2): the key of a stored result (platform + op + canonical subject + every answer-changing field)
 * and the window test.
 */
import type { OpDef, OpRequest } from "./Catalogue.js"

/** Fields that name the unit or how many rows it asks for; every other field changes the answer. */
const notAnswerChanging = new Set(["op", "subjects", "subject", "limit", "pages"])

/** JSON with object keys sorted, so equal values have one spelling. */
export const canonicalJson = (value: unknown): string => {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`
  }
  return JSON.stringify(value)
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

/** Whether a result measured at `measuredAt` is still fresh at `now` under a window in seconds. */
export const isFresh = (measuredAt: Date, now: Date, windowSeconds: number): boolean =>
  now.getTime() < measuredAt.getTime() + windowSeconds * 1000
