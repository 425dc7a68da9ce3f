/**
 * Freshness (D2): the key of a stored result (platform + op + canonical subject + every answer-changing field)
 * and the window test.
 */
import type { OpDef, OpRequest } from "./Catalogue.js"

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
      const entries = Object.entries(v as Record<string, unknown>)
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

/** Whether a result measured at `measuredAt` is still fresh at `now` under a window in seconds. */
export const isFresh = (measuredAt: Date, now: Date, windowSeconds: number): boolean =>
  now.getTime() < measuredAt.getTime() + windowSeconds * 1000
