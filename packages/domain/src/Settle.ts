/**
 * The settle of a call (D8 steps 3-4, D9, D10, D16): the exact price of what was delivered, the records its
 * transaction writes, and the answer an idempotent call keeps with it.
 */

import { Cause, Clock, Context, Deferred, Duration, Effect, Exit, Option } from "effect"
import * as Answers from "./Answers.js"
import { InsufficientCredits } from "./CallErrors.js"
import { CallSettings } from "./CallSettings.js"
import type * as Catalogue from "./Catalogue.js"
import type { CoverageItem } from "./Coverage.js"
import { type Ends, Fence, lostAgain } from "./Ends.js"
import * as Ids from "./Ids.js"
import * as KeyLimits from "./KeyLimits.js"
import type { Caller } from "./Keys.js"
import { CallControl } from "./LongCalls.js"
import * as OpKind from "./OpKind.js"
import type { Fetched, Plan } from "./Plan.js"
import * as Pricing from "./Pricing.js"
import type { Crypto } from "./ports/Crypto.js"
import type { KeySpend } from "./ports/KeySpend.js"
import type { Ledger } from "./ports/Ledger.js"
import type { Row } from "./ports/Measurements.js"

/** What an idempotent call keeps with its settle: the key, and the members the HTTP layer adds after `coverage`. */
export interface Keep {
  readonly key: string
  readonly envelope: Readonly<Record<string, unknown>>
}

/**
 * The kept answer of a paid call: the answer without its cost, which the settle keeps with the cost it computes; with
 * the call's fence, its claim's claimant (D115).
 */
export const keptAnswer = (
  keep: Keep,
  data: ReadonlyArray<Row>,
  coverage: ReadonlyArray<CoverageItem>,
  fence: Option.Option<Context.Tag.Service<typeof Fence>> = Option.none()
) => ({
  key: keep.key,
  status: 200,
  answer: Answers.withoutCost(data, coverage, keep.envelope),
  ...(Option.isSome(fence) ? { claimant: fence.value.claimant } : {})
})

/** Billable quantity a delivery carries, as its op's kind counts it: pages or rows. */
export const deliveredQuantity = (op: Catalogue.OpDef, rows: ReadonlyArray<Row>): number =>
  OpKind.fetching(op).quantity(rows)

/** The exact price of what a fetch delivered. */
export const deliveredPrice = (p: Plan, f: Fetched): Pricing.Exact =>
  "omitted" in f ? Pricing.zero : OpKind.fetching(p.op).delivered(p, f)

/** Records the settle transaction writes for delivered units, as their op's kind records them (D8, D9, D10). */
export const records = (caller: Caller, p: Plan, fetched: ReadonlyArray<Fetched>): OpKind.Records => {
  const steps = OpKind.fetching(p.op)
  const into: OpKind.Records = { measurements: [], points: [], reveals: [] }
  for (const f of fetched) if (!("omitted" in f)) steps.record(caller, p, f, into)
  return into
}

/** What the ledger's entry of a call is about. */
export const reason = (p: Plan) => `${p.op.platform} ${p.op.name}`

/**
 * The hold lifecycle of a call (D8 step 2, issue 14) over the Ledger: `holding` places the hold for the quote, runs
 * what follows it, and releases the hold on any end but a success.
 */
export const holdsOf = (
  ledger: Context.Tag.Service<Ledger>,
  crypto: Context.Tag.Service<Crypto>,
  ends: Ends,
  spend?: Context.Tag.Service<KeySpend>
) => {
  // issue 24: a key's monthly credit limit, checked with its hold (only a key that has one asks the KeySpend port)
  const limited = spend === undefined ? undefined : KeyLimits.gate(spend)
  /**
   * D8 step 2: the hold for the quote, or null for a call that costs nothing; a long call is told of its hold (issue
   * 21). The settings, the clock and the call's control are read in the step that places it (issue 22).
   */
  const placeHold = (
    caller: Caller,
    p: Plan
  ): Effect.Effect<string | null, InsufficientCredits | KeyLimits.KeyCreditLimitReached> =>
    p.quote <= 0
      ? Effect.succeed(null)
      : Effect.withFiberRuntime((fiber) => {
          const settings = Context.get(fiber.currentContext, CallSettings)
          const control = Context.get(fiber.currentContext, CallControl)
          const now = Context.get(fiber.currentDefaultServices, Clock.Clock).unsafeCurrentTimeMillis()
          return Effect.flatMap(Ids.make(crypto, "hold"), (id) => {
            const place = ledger
              .placeHold({
                id,
                accountId: caller.accountId,
                keyId: caller.keyId,
                amount: p.quote,
                expiresAt: new Date(now + Duration.toMillis(settings.holdTtl))
              })
              .pipe(
                Effect.catchTag(
                  "HoldRefused",
                  (e) => new InsufficientCredits({ required: e.required, available: e.available })
                ),
                // a hold whose placing lost its answer (the connection cut) may have been placed, or may still be: it
                // is released by its id now (tried again until it is) and again 1 s and 5 s later, so its credits
                // are not held until the expiry sweep (a refusal placed nothing)
                Effect.onError((cause) => {
                  if (!Cause.isDie(cause)) return Effect.void
                  const what = "the release of a hold whose placing lost its answer"
                  return Effect.zipRight(
                    ends.end(what, ledger.release(id), settings.holdTtl),
                    ends.again(what, ledger.release(id), lostAgain)
                  )
                })
              )
            // a call run under an idempotency claim learns that its hold will fence it (Ends.Fence)
            const fence = Context.getOption(fiber.currentContext, Fence)
            return Effect.map(limited === undefined ? place : limited(caller, p.quote, place), (hold) => {
              control.held(hold.id)
              if (Option.isSome(fence)) fence.value.ownHold = true
              return hold.id
            })
          })
        })

  // ---- issue 14: an error never leaves a hold behind (D8) ----
  /**
   * The hold, then what follows it: any end of `use` but a success (a failure, a defect, an interruption: the store
   * refusing the settle, an adapter defect) releases the hold, exactly once, before the answer is written. Placing
   * the hold is uninterruptible, so no exit between the hold and `use` escapes this. The expiry sweep is left only
   * for a process that died.
   */
  const holding = <A, E, R>(
    caller: Caller,
    p: Plan,
    use: (holdId: string | null) => Effect.Effect<A, E, R>
  ): Effect.Effect<A, E | InsufficientCredits | KeyLimits.KeyCreditLimitReached, R> =>
    Effect.acquireUseRelease(
      // issue 21: a long call records its hold (`placeHold`), so a process that takes it over can release it at once
      placeHold(caller, p),
      use,
      // a release that did not reach the store is tried again until the hold's expiry (Ends), then swept; once
      // released, the call's fence is done (a settle of it can no longer commit: its claim may be dropped)
      (holdId, exit) =>
        holdId === null || Exit.isSuccess(exit)
          ? Effect.void
          : Effect.flatMap(Effect.serviceOption(Fence), (fence) =>
              Effect.flatMap(CallSettings, (settings) =>
                ends.end(
                  "the release of a failed call's hold",
                  Option.isSome(fence)
                    ? Effect.zipRight(ledger.release(holdId), Deferred.succeed(fence.value.released, undefined))
                    : ledger.release(holdId),
                  settings.holdTtl
                )
              )
            )
    )
  // ---- end issue 14 ----

  return { placeHold, holding } as const
}
