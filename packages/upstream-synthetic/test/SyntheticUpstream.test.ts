// D15: the synthetic upstream serves every op, is deterministic per entity, request and day, drifts day to day,
// says `source: "synthetic"` on everything, and its knobs (latency, failure rate, hang, not found) work.
import { assert, describe, it } from "@effect/vitest"
import { Catalogue, Examples, Requests, type Upstream } from "@pdr/domain"
import { Duration, Effect, Either, Fiber, TestClock } from "effect"
import { SyntheticUpstream } from "../src/index.js"

const day = 86_400_000
const start = Date.parse("2026-11-21T00:00:00Z")

const unitFor = (op: Catalogue.OpDef): Upstream.UnitRequest => {
  const request = Effect.runSync(
    Requests.decode(op.platform, { request: Examples.minimal(op, "synthetic/app-charts") })
  ).request
  const subject =
    op.units === "subjects"
      ? (request["subjects"] as Array<string>)[0]
      : op.units === "subject"
        ? String(request["subject"])
        : undefined
  return {
    platform: op.platform,
    op: op.name,
    request,
    subject,
    rows: op.rowsField ? Number(request[op.rowsField]) : 1,
    store: request["store"] ? "store:blr-001" : undefined,
    parts: op.platform === "contacts" ? ["email", "phone"] : undefined
  }
}

const fetchWith = (knobs: Partial<SyntheticUpstream.Knobs>, unit: Upstream.UnitRequest) =>
  Effect.flatMap(SyntheticUpstream.make({ ...SyntheticUpstream.defaults, ...knobs }), (u) => u.fetch(unit))

const served = Catalogue.platforms.flatMap((p) => p.ops).filter((o) => o.name !== "history" && o.available)

describe("SyntheticUpstream", () => {
  it.effect(
    "serves every fetching op with rows marked synthetic, the same rows for the same entity, request and day",
    () =>
      Effect.gen(function* () {
        yield* TestClock.setTime(start)
        for (const op of served) {
          const unit = unitFor(op)
          const a = yield* fetchWith({ shortLists: false }, unit)
          const b = yield* fetchWith({ shortLists: false }, unit)
          assert.strictEqual(a._tag, "Delivered", `${op.platform} ${op.name}`)
          if (a._tag !== "Delivered") continue
          assert.strictEqual(a.source, "synthetic")
          assert.isAbove(a.rows.length, 0, `${op.platform} ${op.name} has rows`)
          assert.deepStrictEqual(a, b, `${op.platform} ${op.name} is deterministic`)
          const expected =
            op.platform === "web_search" && op.name === "search" ? unit.rows * 10 : op.rowsField ? unit.rows : 1
          assert.strictEqual(a.rows.length, expected, `${op.platform} ${op.name} delivers what was asked`)
        }
      })
  )

  it.effect("metrics drift plausibly from day to day (history looks real)", () =>
    Effect.gen(function* () {
      const op = Catalogue.findOp("short_video", "profiles")!
      const followers: Array<number> = []
      for (let d = 0; d < 30; d++) {
        yield* TestClock.setTime(start + d * day)
        const o = yield* fetchWith({}, unitFor(op))
        assert.strictEqual(o._tag, "Delivered")
        if (o._tag === "Delivered") followers.push(o.points[0]!.metrics["followers"]!)
      }
      assert.isAbove(new Set(followers).size, 20, "values change from day to day")
      for (let i = 1; i < followers.length; i++) {
        const change = Math.abs(followers[i]! - followers[i - 1]!) / followers[i - 1]!
        assert.isBelow(change, 0.1, "no implausible jumps")
      }
    })
  )

  it.effect("knobs: a not-found pattern, a failure rate, latency and hang", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(start)
      const op = Catalogue.findOp("maps", "places")!
      const unit = unitFor(op)
      const missing = yield* fetchWith({}, { ...unit, subject: "ChIJnot-found-000" })
      assert.strictEqual(missing._tag, "NotFound")
      const always = yield* Effect.either(fetchWith({ failureRate: 1 }, unit))
      assert.isTrue(Either.isLeft(always) && always.left._tag === "UpstreamFailed")
      const never = yield* Effect.either(fetchWith({ failureRate: 0 }, unit))
      assert.isTrue(Either.isRight(never))
      const slow = yield* Effect.fork(fetchWith({ latency: Duration.seconds(2) }, unit))
      yield* TestClock.adjust("1999 millis")
      assert.isTrue((yield* Fiber.poll(slow))._tag === "None")
      yield* TestClock.adjust("1 millis")
      assert.strictEqual((yield* Fiber.join(slow))._tag, "Delivered")
      const hang = yield* Effect.fork(fetchWith({ hang: true }, unit))
      yield* TestClock.adjust("1 hour")
      assert.isTrue((yield* Fiber.poll(hang))._tag === "None")
      yield* Fiber.interrupt(hang)
    })
  )

  it.effect("short lists are exhaustive and say so", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(start)
      const op = Catalogue.findOp("maps", "search")!
      let short = 0
      for (let i = 0; i < 60; i++) {
        const unit = unitFor(op)
        const o = yield* fetchWith({}, { ...unit, request: { ...unit.request, query: `q${i}` } })
        if (o._tag === "Delivered" && o.rows.length < unit.rows) {
          short++
          assert.isTrue(o.exhaustive)
        }
      }
      assert.isAbove(short, 0)
    })
  )
})
