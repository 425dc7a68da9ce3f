// D8 step 3, D2, D12: a unit's fetch, its timeout, a failed or crashing adapter as an omitted unit, and identical
// concurrent fetches shared by one upstream call.
import { assert, describe, it } from "@effect/vitest"
import { Deferred, Duration, Effect, Fiber, Option, Supervisor } from "effect"
import { CallSettings } from "../src/CallSettings.js"
import { fetcherOf } from "../src/Fetch.js"
import * as Upstream from "../src/ports/Upstream.js"
import { opOf, planOf, unitOf } from "./helpers-plan.js"

const delivered = (n: number): Upstream.UnitOutcome => ({
  _tag: "Delivered",
  rows: Array.from({ length: n }, (_, i) => ({ i })),
  exhaustive: false,
  points: [],
  source: "fake"
})

/** An adapter serving every platform with this fetch (stores and explore sources are not asked for here). */
const upstreamOf = (fetch: Upstream.Adapter["fetch"]) =>
  Upstream.single({
    name: "fake",
    fetch,
    resolveStore: () => Effect.succeed(Option.none()),
    exploreSource: () => Effect.succeed(Option.none())
  })

const fast = Effect.provideService(CallSettings, { ...CallSettings.defaultValue(), unitTimeout: Duration.millis(50) })

/** Counts the fibers started under it. */
class CountStarts extends Supervisor.AbstractSupervisor<number> {
  started = 0
  get value() {
    return Effect.sync(() => this.started)
  }
  override onStart() {
    this.started++
  }
}

describe("Fetch", () => {
  const op = opOf("maps", "places")
  const u = unitOf({ subject: "p1" }, { asked: 2 })
  const p = planOf(op, [u])

  it.live("a delivery keeps the rows asked; not found and invalid subjects are omitted with the adapter's reason", () =>
    Effect.gen(function* () {
      const f = yield* fetcherOf(upstreamOf(() => Effect.succeed(delivered(5)))).fetchUnit(p, u)
      assert.isTrue("outcome" in f && f.outcome.rows.length === 2)
      const missing = yield* fetcherOf(
        upstreamOf(() => Effect.succeed({ _tag: "NotFound", source: "fake", detail: "gone" }))
      ).fetchUnit(p, u)
      assert.deepInclude(missing, { omitted: "not_found", detail: "gone", source: "fake" })
      const invalid = yield* fetcherOf(
        upstreamOf(() => Effect.succeed({ _tag: "InvalidSubject", source: "fake", detail: "an HTML page" }))
      ).fetchUnit(p, u)
      assert.deepInclude(invalid, { omitted: "invalid_subject", detail: "an HTML page" })
    })
  )

  it.live("D12: a unit over its timeout, a failed adapter and a crashing one are omitted, never a failed call", () =>
    Effect.gen(function* () {
      const slow = yield* fetcherOf(upstreamOf(() => Effect.as(Effect.sleep("1 second"), delivered(1)))).fetchUnit(p, u)
      assert.deepInclude(slow, { omitted: "upstream_timeout", detail: "no answer within 50ms", source: "fake" })
      const failed = yield* fetcherOf(
        upstreamOf(() => Effect.fail(new Upstream.UpstreamFailed({ source: "fake/x", detail: "HTTP 500" })))
      ).fetchUnit(p, u)
      assert.deepInclude(failed, { omitted: "upstream_failed", detail: "HTTP 500", source: "fake/x" })
      const crashed = yield* fetcherOf(upstreamOf(() => Effect.die(new Error("bug")))).fetchUnit(p, u)
      assert.deepInclude(crashed, { omitted: "upstream_failed", detail: "the upstream adapter failed" })
    }).pipe(fast)
  )

  it.live("D2: identical concurrent fetches share one upstream call; contacts never share", () =>
    Effect.gen(function* () {
      let calls = 0
      const gate = yield* Deferred.make<void>()
      const fetcher = fetcherOf(
        upstreamOf(() =>
          Effect.suspend(() => {
            calls++
            return Effect.as(Deferred.await(gate), delivered(2))
          })
        )
      )
      const first = yield* Effect.fork(fetcher.fetchShared(p, u))
      yield* Effect.sleep("10 millis")
      const second = yield* Effect.fork(fetcher.fetchShared(p, unitOf({ subject: "p1" }, { asked: 2 })))
      yield* Effect.sleep("10 millis")
      yield* Deferred.succeed(gate, undefined)
      const [a, b] = [yield* Fiber.join(first), yield* Fiber.join(second)]
      assert.strictEqual(calls, 1)
      assert.isFalse(a.shared)
      assert.isTrue(b.shared)
      // a reveal is bought per org: two concurrent reveals of one person are two fetches
      const contacts = opOf("contacts", "reveal")
      const person = unitOf({ subject: "person" }, { buy: ["email"] })
      const both = yield* Effect.all(
        [
          fetcher.fetchShared(planOf(contacts, [person]), person),
          fetcher.fetchShared(planOf(contacts, [person]), person)
        ],
        { concurrency: 2 }
      )
      assert.strictEqual(calls, 3)
      assert.isTrue(both.every((r) => !r.shared))
    })
  )

  it.live("D12: an interrupted call interrupts its unit's fetch, which ends before the call's own finalizers", () =>
    Effect.gen(function* () {
      const seen: Array<string> = []
      const hanging = upstreamOf(() =>
        Effect.never.pipe(
          Effect.onInterrupt(() =>
            Effect.zipRight(
              Effect.sleep("20 millis"),
              Effect.sync(() => seen.push("fetch"))
            )
          )
        )
      )
      const call = yield* Effect.fork(
        fetcherOf(hanging)
          .fetchUnit(p, u)
          .pipe(Effect.onExit(() => Effect.sync(() => seen.push("call"))))
      )
      yield* Effect.sleep("10 millis")
      yield* Fiber.interrupt(call)
      assert.deepStrictEqual(seen, ["fetch", "call"])
      // past its timeout, the fetch is interrupted and awaited before the unit is omitted
      const omitted = yield* fetcherOf(hanging).fetchUnit(p, u).pipe(fast)
      assert.deepInclude(omitted, { omitted: "upstream_timeout" })
      assert.deepStrictEqual(seen, ["fetch", "call", "fetch"])
    })
  )

  it.live("issue 22: a unit's fetch under the live clock forks one fiber (its timeout's race forked two)", () =>
    Effect.gen(function* () {
      const starts = new CountStarts()
      const f = yield* fetcherOf(upstreamOf(() => Effect.succeed(delivered(1))))
        .fetchUnit(p, u)
        .pipe(Effect.supervised(starts))
      assert.isTrue("outcome" in f)
      assert.strictEqual(starts.started, 1)
    })
  )

  it.live("fetchAll fetches every unit, each once, in plan order", () =>
    Effect.gen(function* () {
      const seen: Array<string> = []
      const fetcher = fetcherOf(
        upstreamOf((unit) => Effect.sync(() => seen.push(String(unit.subject))).pipe(Effect.as(delivered(1))))
      )
      const units = ["a", "b", "c"].map((s) => ({ ...unitOf({ subject: s }), freshnessKey: s }))
      const results = yield* fetcher.fetchAll(planOf(op, units), units, 2)
      assert.deepStrictEqual(
        results.map((r) => r.f.unit.label),
        units.map((x) => x.label)
      )
      assert.sameMembers(seen, ["a", "b", "c"])
      assert.deepStrictEqual(yield* fetcher.fetchAll(planOf(op, []), [], 2), [])
    })
  )
})

describe("Fetch leases (issue 22)", () => {
  const op = opOf("maps", "places")
  const u = unitOf({ subject: "p1" })
  const p = planOf(op, [u])

  /** Leases in memory: each with its token and until (epoch ms); every renewal noted. */
  const store = () => {
    const rows = new Map<string, { token: string; until: number }>()
    const renewed: Array<number> = []
    let expiredWhileHeld = false
    const leases = {
      take: (key: string, ms: number) =>
        Effect.sync(() => {
          const row = rows.get(key)
          if (row !== undefined && row.until >= Date.now()) return Option.none<string>()
          const token = `t${Math.random()}`
          rows.set(key, { token, until: Date.now() + ms })
          return Option.some(token)
        }),
      renew: (key: string, token: string, ms: number) =>
        Effect.sync(() => {
          const row = rows.get(key)
          if (row === undefined || row.token !== token) return false
          if (row.until < Date.now()) expiredWhileHeld = true
          renewed.push(Date.now())
          row.until = Date.now() + ms
          return true
        }),
      release: (key: string, token: string) =>
        Effect.sync(() => {
          const row = rows.get(key)
          if (row !== undefined && row.until < Date.now()) expiredWhileHeld = true
          if (row?.token === token) rows.delete(key)
        })
    }
    return { leases, rows, renewed, expired: () => expiredWhileHeld }
  }

  const slowFor = (ms: number) =>
    Effect.provideService(CallSettings, { ...CallSettings.defaultValue(), unitTimeout: Duration.millis(ms + 2_000) })

  it.live("a fetch longer than its lease keeps it renewed until its release, and renewed no more after it", () =>
    Effect.gen(function* () {
      const s = store()
      const fetcher = fetcherOf(
        upstreamOf(() => Effect.as(Effect.sleep("1 second"), delivered(1))),
        { leases: s.leases, measurements: {} as never, pollMs: 25, leaseMs: 300 }
      )
      const [r] = yield* fetcher.fetchAll(p, [u], 1).pipe(slowFor(1_000))
      // 1 s of fetching with a 300 ms lease: renewed every 100 to 150 ms, never after it ran out
      assert.isAtLeast(s.renewed.length, 5)
      assert.isFalse(s.expired())
      assert.isDefined(r!.lease)
      yield* fetcher.release([r!])
      assert.strictEqual(s.rows.size, 0)
      const after = s.renewed.length
      yield* Effect.sleep("400 millis")
      assert.strictEqual(s.renewed.length, after)

      const quick = store()
      const fast = fetcherOf(
        upstreamOf(() => Effect.succeed(delivered(1))),
        { leases: quick.leases, measurements: {} as never, pollMs: 25, leaseMs: 300 }
      )
      const results = yield* Effect.forEach(["a", "b", "c"], (x) =>
        fast.fetchAll(p, [{ ...unitOf({ subject: x }), freshnessKey: x }], 1).pipe(slowFor(0))
      )
      assert.strictEqual(quick.rows.size, 3)
      yield* Effect.forEach(results, (rs) => fast.release(rs))
      yield* Effect.sleep("250 millis")
      assert.strictEqual(quick.renewed.length, 0)
      assert.strictEqual(quick.rows.size, 0)
    })
  )
})
