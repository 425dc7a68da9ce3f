/**
 * Idempotency (D16): the first completed answer to an `Idempotency-Key` (scoped to the account) is kept 24 hours and
 * replayed to a retry with the same body; another body is refused (422), a retry while the first is running too
 * (409). Answers of 5xx and calls that never completed are not kept, so a retry runs again. A paid answer is kept
 * by the settle itself, in the transaction that charges it (`Calls.Keep`), so a crash keeps both or neither.
 */
import { Cause, Clock, Context, Deferred, Duration, Effect, Exit, Schema } from "effect"
import { CallSettings } from "./CallSettings.js"
import { Ends, Fence, lostAgain } from "./Ends.js"
import { WireId, wire } from "./ErrorCodes.js"
import * as Ids from "./Ids.js"
import { Crypto } from "./ports/Crypto.js"
import { IdempotencyStore } from "./ports/IdempotencyStore.js"

/** How long a completed answer is kept. */
export const retention = Duration.hours(24)

/** 400: the `Idempotency-Key` header is not 1 to 255 visible ASCII characters. */
export class IdempotencyKeyInvalid extends Schema.TaggedError<IdempotencyKeyInvalid>()("IdempotencyKeyInvalid", {}) {
  override get message() {
    return "Idempotency-Key must be 1 to 255 visible ASCII characters"
  }
  get [WireId]() {
    return wire("invalid_request", [{ path: "Idempotency-Key", message: this.message }])
  }
}

/** 422 `idempotency_mismatch`: the key was used with another body. */
export class IdempotencyMismatch extends Schema.TaggedError<IdempotencyMismatch>()("IdempotencyMismatch", {}) {
  override get message() {
    return "this Idempotency-Key was used with another request body; nothing was billed"
  }
  get [WireId]() {
    return wire("idempotency_mismatch")
  }
}

/** 409 `idempotency_in_flight`: the first request with this key is still being answered. */
export class IdempotencyInFlight extends Schema.TaggedError<IdempotencyInFlight>()("IdempotencyInFlight", {}) {
  override get message() {
    return "a request with this Idempotency-Key is still being answered; retry shortly"
  }
  get [WireId]() {
    return wire("idempotency_in_flight")
  }
}

/** An answer as kept and replayed: status and body. */
export interface Kept {
  readonly status: number
  readonly body: unknown
  /** The answer was already kept by the settle, in its transaction: nothing to write after it. */
  readonly keptBySettle?: boolean
}

const keyPattern = /^[\x21-\x7e]{1,255}$/

/** Idempotent execution over the IdempotencyStore port. */
export class Idempotency extends Effect.Service<Idempotency>()("@pdr/domain/Idempotency", {
  dependencies: [Ends.Default],
  effect: Effect.gen(function* () {
    const store = yield* IdempotencyStore
    const crypto = yield* Crypto
    // a claim's end that did not reach the store is tried again until its stale bound (Ends): a retry with the same
    // key after a 5xx runs again once the database answers, and a kept answer is replayed once it is written
    const ends = yield* Ends

    /** The answer kept for a retry with the same key and body, or replayed to it (issue 22: a chain, not a generator). */
    const run = <E, R>(
      input: { readonly accountId: string; readonly key: string; readonly fingerprint: string },
      answer: Effect.Effect<Kept, E, R>
    ): Effect.Effect<
      Kept & { readonly replayed: boolean },
      E | IdempotencyKeyInvalid | IdempotencyMismatch | IdempotencyInFlight,
      R
    > =>
      // the clock and the call's settings read in the step that checks the key
      Effect.withFiberRuntime((fiber) => {
        if (!keyPattern.test(input.key)) return Effect.fail(new IdempotencyKeyInvalid())
        const now = new Date(Context.get(fiber.currentDefaultServices, Clock.Clock).unsafeCurrentTimeMillis())
        const settings = Context.get(fiber.currentContext, CallSettings)
        // this run's claim: its end acts only while the claim is still this run's (a run that stalled past the stale
        // bound, whose key another request took over meanwhile, wakes and drops or overwrites nothing)
        return Effect.flatMap(Ids.make(crypto, "clm"), (claimant) =>
          Effect.flatMap(
            store
              .begin({
                ...input,
                claimant,
                now,
                staleBefore: new Date(now.getTime() - Duration.toMillis(settings.holdTtl)),
                expiresAt: new Date(now.getTime() + Duration.toMillis(retention))
              })
              .pipe(
                // a claim whose answer was lost may have been written, or may still be (the statement already at the
                // database when the connection was cut): it is this run's (its claimant) and nothing ran under it, so
                // it is dropped now (tried again until it is) and again 1 s and 5 s later, lest the key wait for its
                // stale bound
                Effect.onError((cause) => {
                  if (Cause.isInterruptedOnly(cause)) return Effect.void
                  const what = "the drop of an idempotency key's claim whose answer was lost"
                  const drop = store.abandon({ accountId: input.accountId, key: input.key, claimant })
                  return Effect.zipRight(ends.end(what, drop, settings.holdTtl), ends.again(what, drop, lostAgain))
                })
              ),
            (
              begin
            ): Effect.Effect<
              Kept & { readonly replayed: boolean },
              E | IdempotencyMismatch | IdempotencyInFlight,
              R
            > => {
              switch (begin._tag) {
                case "Mismatch":
                  return Effect.fail(new IdempotencyMismatch())
                case "InFlight":
                  return Effect.fail(new IdempotencyInFlight())
                case "Replay":
                  return Effect.succeed({ status: begin.status, body: begin.body, replayed: true })
                case "Started": {
                  const claim = { accountId: input.accountId, key: input.key, claimant }
                  const fence = { ownHold: false, released: Deferred.unsafeMake<void>(fiber.id()), claimant }
                  return answer.pipe(
                    Effect.provideService(Fence, fence),
                    Effect.onExit((exit) =>
                      Exit.isSuccess(exit) && exit.value.status < 500
                        ? exit.value.keptBySettle === true
                          ? Effect.void
                          : ends.end(
                              "the answer kept for an idempotency key",
                              store.complete({ ...claim, status: exit.value.status, body: exit.value.body }),
                              settings.holdTtl
                            )
                        : fence.ownHold
                          ? // a call that placed a hold of its own and did not answer: a settle of it may still commit
                            // (its statement sent and its answer lost, or cut under it while at the database), and a
                            // settle needs its hold held, so the claim is dropped once the hold is released (its
                            // fence), however late: a retry then runs the call again only when nothing of the first
                            // can be charged; one that was charged was kept by its settle, and the retry replays it
                            ends.endAfter(
                              "the drop of an idempotency key's claim",
                              fence.released,
                              store.abandon(claim),
                              settings.holdTtl
                            )
                          : // a draw from a shared hold has no such fence: it is fenced by its claim instead (D115:
                            // it keeps its answer only while the claim is this run's and in flight), so its claim is
                            // dropped now, whatever its settle's outcome (one committed first made the claim done,
                            // and the drop then leaves it: the retry replays it)
                            ends.end("the drop of an idempotency key's claim", store.abandon(claim), settings.holdTtl)
                    ),
                    Effect.map((kept) => ({ ...kept, replayed: false }))
                  )
                }
              }
            }
          )
        )
      })

    return { run } as const
  })
}) {}
