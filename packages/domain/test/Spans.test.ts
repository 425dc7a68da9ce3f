import { assert, describe, it } from "@effect/vitest"
import { Effect, Option } from "effect"
import * as Spans from "../src/Spans.js"

const parentName = Effect.currentParentSpan.pipe(
  Effect.map((span) => (span._tag === "Span" ? span.name : "external")),
  Effect.option
)

describe("Spans.traced", () => {
  it.effect("makes the named span when the tracer is on", () =>
    Effect.gen(function* () {
      const name = yield* parentName.pipe(Spans.traced("Test.on"))
      assert.deepStrictEqual(name, Option.some("Test.on"))
    })
  )

  it.effect("makes no span at all (not even a no-op one) when the tracer is off", () =>
    Effect.gen(function* () {
      const name = yield* parentName.pipe(Spans.traced("Test.off"), Effect.withTracerEnabled(false))
      assert.deepStrictEqual(name, Option.none())
      // Effect.withSpan, for contrast, still puts a (no-op) span in the context
      const plain = yield* parentName.pipe(Effect.withSpan("Test.plain"), Effect.withTracerEnabled(false))
      assert.deepStrictEqual(plain, Option.some("Test.plain"))
    })
  )

  it.effect("keeps the effect's value and failure", () =>
    Effect.gen(function* () {
      assert.strictEqual(yield* Effect.succeed(3).pipe(Spans.traced("Test.value"), Effect.withTracerEnabled(false)), 3)
      const failed = yield* Effect.fail("no").pipe(Spans.traced("Test.failure"), Effect.flip)
      assert.strictEqual(failed, "no")
    })
  )
})
