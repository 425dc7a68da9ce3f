import { FetchHttpClient } from "@effect/platform"
import { Catalogue, Examples, Requests, type Upstream } from "@pdr/domain"
import { Duration, Effect, Either, Schema } from "effect"
import * as Policy from "../../src/Policy.js"

/**
 * A policy for tests: 6 s per unit (room for a loaded CI machine: at load 13 a fresh-clone CI ran a 3-page listing and
 * a 4-attempt retry past a 1.5 s budget), 3 retries from 20 ms, open after 3 failures for 400 ms. A test that waits for
 * a hang to run into the budget uses `tight` instead.
 */
export const settings: Policy.Settings = {
  unitBudget: Duration.millis(6000),
  perHost: 4,
  retries: 3,
  backoff: Duration.millis(20),
  breakerFailures: 3,
  breakerPause: Duration.millis(400)
}

/** The unit budget of the tests that wait for a hang to run into it. */
export const tight = { unitBudget: Duration.millis(1500) } as const

/** A policy over the real fetch HttpClient. */
export const policy = (s: Partial<Policy.Settings> = {}) =>
  Effect.runPromise(Policy.make({ ...settings, ...s }).pipe(Effect.provide(FetchHttpClient.layer)))

/** A decoded unit of an op. */
export const unit = (
  platform: string,
  op: string,
  request: Record<string, unknown>,
  subject?: string
): Upstream.UnitRequest => {
  const decoded = Effect.runSync(Requests.decode(platform, { request: { op, ...request } })).request
  return {
    platform,
    op,
    request: decoded,
    subject,
    rows: Number(decoded["limit"] ?? decoded["pages"] ?? 1),
    store: undefined,
    parts: undefined
  }
}

/** Runs a fetch, with its outcome or failure and how long it took. */
export const run = async (effect: Effect.Effect<Upstream.UnitOutcome, Upstream.UpstreamFailed>) => {
  const started = performance.now()
  const result = await Effect.runPromise(Effect.either(effect))
  return { result, ms: performance.now() - started }
}

/** The delivered outcome, or a test failure naming what came instead. */
export const delivered = (result: Either.Either<Upstream.UnitOutcome, Upstream.UpstreamFailed>) => {
  if (Either.isLeft(result)) throw new Error(`expected rows, got failure: ${result.left.detail}`)
  if (result.right._tag !== "Delivered")
    throw new Error(`expected rows, got ${result.right._tag}: ${result.right.detail}`)
  return result.right
}

/** The failure detail, or a test failure. */
export const failed = (result: Either.Either<Upstream.UnitOutcome, Upstream.UpstreamFailed>) => {
  if (Either.isRight(result)) throw new Error(`expected a failure, got ${result.right._tag}`)
  return result.left
}

export { Examples }

/** Decodes a delivered row with the catalogue's row Schema of the op (the shapes of rows.md), or throws. */
export const decodeRow = (platform: string, op: string, row: unknown) =>
  Schema.decodeUnknownSync(Catalogue.findOp(platform, op)!.delivered!)(row)
