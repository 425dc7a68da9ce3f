/**
 * A span only when the tracer is on (issue 22): with no OTLP endpoint the server turns the tracer off, and
 * `Effect.withSpan` would still make a no-op span, add it to the fiber's context (a copy of every service) and restore
 * it after (an acquire-use-release and two fiber-ref writes), per call, for nothing.
 */
import { Effect, FiberRef } from "effect"

const noStack = { captureStackTrace: false } as const

/** `Effect.withSpan(name)` (no stack capture) when the fiber's tracer is enabled, else the effect itself. */
export const traced =
  (name: string) =>
  <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
    // the span's effect is made only when it is used (about 1 KB per call made for nothing with the tracer off)
    Effect.withFiberRuntime((fiber) =>
      fiber.getFiberRef(FiberRef.currentTracerEnabled) ? Effect.withSpan(self, name, noStack) : self
    )
