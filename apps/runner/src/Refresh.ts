/**
 * The nightly history refresh: replays the operator's watch list through the same op-call core as the HTTP API,
 * billed to the refresh account. Entries still fresh are served free; stale ones are fetched, billed and add a
 * history point. One entry failing never stops the run.
 */
import { Calls } from "@pdr/domain"
import { Effect, Schema } from "effect"

/** One watched request: a platform and the op request to replay. */
export const Entry = Schema.Struct({
  platform: Schema.String,
  request: Schema.Record({ key: Schema.String, value: Schema.Unknown })
})

/** The watch list file: a JSON array of entries. */
export const WatchList = Schema.Array(Entry)

/** What one run did. */
export interface Summary {
  readonly entries: number
  readonly failed: number
  readonly fetched: number
  readonly stored: number
  readonly omitted: number
  readonly creditsCharged: number
  readonly creditsRemaining: number | null
  readonly errors: ReadonlyArray<{ readonly entry: number; readonly code: string; readonly message: string }>
}

/** Runs the watch list for an account; the key id names the runner in the ledger. */
export const run = (accountId: string, entries: ReadonlyArray<typeof Entry.Type>) =>
  Effect.gen(function* () {
    const calls = yield* Calls.Calls
    const caller = { accountId, keyId: "runner:refresh", prefix: "runner" }
    let fetched = 0
    let stored = 0
    let omitted = 0
    let charged = 0
    let remaining: number | null = null
    const errors: Array<Summary["errors"][number]> = []
    for (const [i, entry] of entries.entries()) {
      const answer = yield* Effect.either(calls.call(caller, entry.platform, { request: entry.request }))
      if (answer._tag === "Left") {
        errors.push({ entry: i, code: answer.left._tag, message: answer.left.message })
        yield* Effect.logWarning(`watch list entry ${i} (${entry.platform}) failed: ${answer.left.message}`)
        continue
      }
      for (const c of answer.right.coverage) {
        if (c.status === "fetched") fetched++
        else if (c.status === "stored") stored++
        else omitted++
      }
      charged += answer.right.cost.creditsCharged
      remaining = answer.right.cost.creditsRemaining
    }
    return {
      entries: entries.length,
      failed: errors.length,
      fetched,
      stored,
      omitted,
      creditsCharged: charged,
      creditsRemaining: remaining,
      errors
    } satisfies Summary
  })
