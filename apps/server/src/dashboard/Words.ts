/**
 * The catalogue in words for the dashboard (issue 24): prices and freshness windows read from the catalogue's own
 * op definitions (never restated), timestamps with their zone, and a first call ready to paste.
 */
import { Catalogue, Examples, Pricing } from "@pdr/domain"
import { DateTime } from "effect"

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`

/** The price rule of an op, in words ("4 credits per subject found"): Pricing's own wording. */
export const price = Pricing.inWords

/** A duration in seconds in words, in its largest whole unit ("3 days", "6 hours", "90 minutes"). */
export const duration = (seconds: number): string => {
  const units: ReadonlyArray<readonly [number, string]> = [
    [86_400, "day"],
    [3_600, "hour"],
    [60, "minute"]
  ]
  for (const [size, name] of units) if (seconds >= size && seconds % size === 0) return plural(seconds / size, name)
  return plural(seconds, "second")
}

/** The freshness window of an op in words. */
export const freshness = (seconds: number | null) =>
  seconds === null ? "always fetched fresh" : `a stored result is reused for ${duration(seconds)}`

/** Where an op is documented in the API reference (`/docs`, one operation per platform). */
export const docsLink = (platform: string) => `/docs#/ops/${encodeURIComponent(platform)}`

/** An instant to the minute, saying its zone. */
export const instant = (d: DateTime.Utc | Date) => {
  const utc = d instanceof Date ? DateTime.unsafeMake(d) : d
  return `${DateTime.formatIso(utc).slice(0, 16).replace("T", " ")} UTC`
}

/** The paid op whose smallest request is shortest: the first call shown to a new customer. */
export const firstCall = (() => {
  let best: { readonly op: Catalogue.OpDef; readonly request: string } | undefined
  for (const op of Examples.paidOps) {
    const request = JSON.stringify({ request: Examples.minimal(op) })
    if (best === undefined || request.length < best.request.length) best = { op, request }
  }
  return best!
})()

/** A curl command for the first call, with the key (or its prefix and an ellipsis) as given. */
export const curl = (origin: string, key: string) =>
  [
    `curl -s -X POST ${origin}/api/v1/platforms/${firstCall.op.platform} \\`,
    `  -H "X-API-Key: ${key}" \\`,
    `  -H "Content-Type: application/json" \\`,
    `  -d '${firstCall.request}'`
  ].join("\n")
