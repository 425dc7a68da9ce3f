// D1, D8, D10, D16: the delivered price, the settle's records and the answer kept with an idempotent settle.
import { assert, describe, it } from "@effect/vitest"
import { Clock, Deferred, Duration, Effect, Exit, FiberId, Option, TestClock } from "effect"
import * as Answers from "../src/Answers.js"
import * as Ends from "../src/Ends.js"
import type { Fetched } from "../src/Plan.js"
import * as Pricing from "../src/Pricing.js"
import { Crypto } from "../src/ports/Crypto.js"
import * as Settle from "../src/Settle.js"
import { crypto, memoryStore } from "./fakes.js"
import { opOf, planOf, unitOf } from "./helpers-plan.js"

const at = new Date("2026-11-21T12:00:00Z")
const caller = { accountId: "acct_1", keyId: "key_1", prefix: "key_live_abc" }

const delivered = (unit: Fetched["unit"], rows: ReadonlyArray<Record<string, unknown>>): Fetched => ({
  unit,
  outcome: { _tag: "Delivered", rows, exhaustive: true, source: "src", points: [] } as never,
  at
})

describe("Settle", () => {
  it("D1: a per-page op is priced by the pages delivered; an omitted unit costs nothing", () => {
    const p = planOf(opOf("web_search", "search"))
    const rows = [1, 1, 2, 2].map((page) => ({ page }))
    assert.strictEqual(Settle.deliveredQuantity(p.op, rows), 2)
    assert.deepStrictEqual(Settle.deliveredPrice(p, delivered(unitOf({ query: "q" }), rows)), Pricing.exact(2))
    const omitted: Fetched = { unit: unitOf({ query: "q" }), omitted: "not_found", detail: "", source: "s" }
    assert.deepStrictEqual(Settle.deliveredPrice(p, omitted), Pricing.zero)
  })

  it("D10: a contact unit pays only the parts revealed, and records each part bought", () => {
    const p = planOf(opOf("contacts", "reveal"))
    const f = delivered(unitOf({ subject: "p1" }, { buy: ["email", "phone"] }), [{ email: "e@x.org" }])
    assert.deepStrictEqual(Settle.deliveredPrice(p, f), Pricing.exact(18))
    const written = Settle.records(caller, p, [f])
    assert.deepStrictEqual(written.measurements, [])
    assert.deepStrictEqual(
      written.reveals.map((r) => [r.part, r.status, r.value, r.credits]),
      [
        ["email", "revealed", "e@x.org", 18],
        ["phone", "nothing_on_file", null, 0]
      ]
    )
  })

  it("D8: a stored op's delivered unit is recorded as a measurement of the rows asked", () => {
    const p = planOf(opOf("maps", "places"))
    const f = delivered(unitOf({ subject: "place1" }, { asked: 1 }), [{ name: "A" }])
    const written = Settle.records(caller, p, [f])
    assert.strictEqual(written.measurements.length, 1)
    assert.deepInclude(written.measurements[0]!, { entity: "place1", rowsAsked: 1, measuredAt: at, source: "src" })
  })

  it("D16: the kept answer is data (the answer without its cost), rendered with its cost as the live answer is", () => {
    const keep = { key: "idem-1", envelope: { requestId: "req_1", contextVersion: 1 } }
    const kept = Settle.keptAnswer(keep, [{ a: 1 }], [])
    assert.strictEqual(kept.key, "idem-1")
    assert.strictEqual(kept.answer, '{"data":[{"a":1}],"coverage":[],"requestId":"req_1","contextVersion":1}')
    const cost = { creditsCharged: 3, creditsRemaining: 7 }
    // the record as the settle writes it (PostgreSQL's json_build_object spacing included) renders as the live answer
    const record = `{"answer" : ${kept.answer}, "cost" : {"creditsCharged" : 3, "creditsRemaining" : 7}}`
    const live = Answers.text({ data: [{ a: 1 }], cost, coverage: [], requestId: "req_1", contextVersion: 1 })
    assert.strictEqual(Answers.renderKept(Answers.keptOf(record)!), live)
    // an answer kept as it was sent (a free or an error answer) is not a record
    assert.isUndefined(Answers.keptOf(live))
    assert.isUndefined(Answers.keptOf({ error: { code: "internal" } }))
    const bare = Settle.keptAnswer({ key: "k", envelope: {} }, [], [])
    assert.strictEqual(bare.answer, '{"data":[],"coverage":[]}')
    assert.notProperty(bare, "claimant")
    // under an idempotency claim (its fence), the claimant a draw is fenced by (D115)
    const fence = { ownHold: false, released: Deferred.unsafeMake<void>(FiberId.none), claimant: "clm_1" }
    assert.strictEqual(Settle.keptAnswer(keep, [], [], Option.some(fence)).claimant, "clm_1")
  })

  it.effect("D8 (issue 14): a hold is released on any end but a success, kept on a success, never placed for 0", () =>
    Effect.gen(function* () {
      const store = memoryStore()
      yield* store.ledger.createAccount({ id: "acct_1", name: "a" })
      yield* store.ledger.grant({ accountId: "acct_1", credits: 100, reason: "test" })
      const holds = Settle.holdsOf(store.ledger, yield* Crypto, yield* Ends.Ends)
      const spendable = Effect.map(store.ledger.findAccount("acct_1"), (a) => Option.getOrThrow(a).spendable)
      const quoted = { ...planOf(opOf("maps", "places")), quote: 10 }
      const failed = yield* Effect.exit(holds.holding(caller, quoted, () => Effect.fail("boom")))
      assert.isTrue(Exit.isFailure(failed))
      assert.strictEqual(yield* spendable, 100)
      const died = yield* Effect.exit(holds.holding(caller, quoted, () => Effect.die("defect")))
      assert.isTrue(Exit.isFailure(died))
      assert.strictEqual(yield* spendable, 100)
      const held = yield* holds.holding(caller, quoted, (holdId) => Effect.succeed(holdId))
      assert.isNotNull(held)
      assert.strictEqual(yield* spendable, 90)
      const free = yield* holds.holding(caller, planOf(opOf("maps", "places")), (holdId) => Effect.succeed(holdId))
      assert.isNull(free)
      const refused = yield* Effect.flip(holds.holding(caller, { ...quoted, quote: 1000 }, () => Effect.void))
      assert.strictEqual(refused._tag, "InsufficientCredits")
      assert.strictEqual(yield* spendable, 90)
    }).pipe(Effect.provide(crypto), Effect.provide(Ends.Ends.Default))
  )

  it.effect(
    "D8: a release the store did not get is tried again in the background; the failure is answered as it is",
    () =>
      Effect.gen(function* () {
        const store = memoryStore()
        yield* store.ledger.createAccount({ id: "acct_1", name: "a" })
        yield* store.ledger.grant({ accountId: "acct_1", credits: 100, reason: "test" })
        // the database lost twice at the release (an adapter's orDie), then back
        let lost = 2
        const tries: Array<number> = []
        const ledger = {
          ...store.ledger,
          release: (holdId: string) =>
            Effect.flatMap(Clock.currentTimeMillis, (t) => {
              tries.push(t)
              return lost-- > 0
                ? Effect.die(new Error("Connection terminated unexpectedly"))
                : store.ledger.release(holdId)
            })
        }
        const holds = Settle.holdsOf(ledger, yield* Crypto, yield* Ends.Ends)
        const spendable = Effect.map(store.ledger.findAccount("acct_1"), (a) => Option.getOrThrow(a).spendable)
        const quoted = { ...planOf(opOf("maps", "places")), quote: 10 }
        const failed = yield* Effect.exit(holds.holding(caller, quoted, () => Effect.fail("upstream refused")))
        // the call's own failure, not the release's defect
        assert.deepStrictEqual(failed, Exit.fail("upstream refused"))
        assert.strictEqual(yield* spendable, 90)
        yield* TestClock.adjust(Duration.millis(100))
        assert.strictEqual(yield* spendable, 90)
        yield* TestClock.adjust(Duration.millis(200))
        assert.deepStrictEqual(tries, [0, 100, 300])
        assert.strictEqual(yield* spendable, 100)
      }).pipe(Effect.provide(crypto), Effect.provide(Ends.Ends.Default))
  )
})
