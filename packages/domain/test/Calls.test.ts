// D1, D2, D8, D9, D10, D11: billing invariants of op calls, over in-memory fakes of the ports.
import { assert, describe, it } from "@effect/vitest"
import { Deferred, Effect, Either, Fiber, FastCheck as fc, Layer, TestClock } from "effect"
import {
  Calls,
  KeySpend,
  Ledger,
  LongCalls,
  Measurements,
  Pricing,
  Examples as Samples,
  Upstream
} from "../src/index.js"
import { crypto, memoryStore, type Script, scriptedUpstream } from "./fakes.js"

const start = Date.parse("2026-11-21T12:00:00Z")

const world = (credits = 1_000_000) =>
  Effect.gen(function* () {
    yield* TestClock.setTime(start)
    const store = memoryStore()
    const script: { current: Script } = { current: (u) => ({ kind: "deliver", rows: u.rows }) }
    const layer = Calls.Calls.Default.pipe(
      Layer.provide(
        Layer.mergeAll(
          Layer.succeed(Ledger.Ledger, store.ledger),
          Layer.succeed(Measurements.Measurements, store.reads),
          Layer.succeed(Upstream.Upstream, scriptedUpstream(script)),
          Layer.succeed(KeySpend.KeySpend, store.spend),
          crypto
        )
      )
    )
    const calls = yield* Effect.provide(Calls.Calls, layer)
    const open = (id: string, amount: number) =>
      Effect.gen(function* () {
        yield* store.ledger.createAccount({ id, name: id })
        if (amount > 0) yield* store.ledger.grant({ accountId: id, credits: amount, reason: "test" })
        return { accountId: id, keyId: `key_of_${id}`, prefix: "key_live_test" }
      })
    const caller = yield* open("acct_a", credits)
    return { store, script, calls, caller, open }
  })

const call = (
  calls: Calls.Calls,
  caller: { accountId: string; keyId: string; prefix: string },
  platform: string,
  request: Record<string, unknown>,
  estimateOnly = false
) => calls.call(caller, platform, { request, ...(estimateOnly ? { estimateOnly } : {}) })

type Outcome = { kind: "deliver"; fraction: number } | { kind: "notFound" } | { kind: "fail" }
const outcome: fc.Arbitrary<Outcome> = fc.oneof(
  fc.record({ kind: fc.constant("deliver" as const), fraction: fc.double({ min: 0, max: 1, noNaN: true }) }),
  fc.constant({ kind: "notFound" as const }),
  fc.constant({ kind: "fail" as const })
)

/** A paid op, a valid request for it, and what the upstream does with each unit. */
const scenario = fc
  .record({
    op: fc.constantFrom(...Samples.paidOps),
    subjects: fc.integer({ min: 1, max: 10 }),
    rows: fc.double({ min: 0, max: 1, noNaN: true }),
    outcomes: fc.array(outcome, { minLength: 10, maxLength: 10 })
  })
  .map(({ op, subjects, rows, outcomes }) => {
    const request = Samples.minimal(op)
    if (op.units === "subjects") {
      request["subjects"] = Array.from({ length: Math.min(subjects, Samples.maxSubjects(op)) }, (_, i) =>
        Samples.subject(op, i)
      )
    }
    if (op.rowsField) {
      const [min, max] = Samples.rowsBounds(op)
      request[op.rowsField] = Math.round(min + rows * (max - min))
    }
    return { op, request, outcomes }
  })

const scriptOf =
  (outcomes: ReadonlyArray<Outcome>): Script =>
  (unit, i) => {
    const o = outcomes[i % outcomes.length]!
    return o.kind === "deliver" ? { kind: "deliver", rows: Math.floor(unit.rows * o.fraction) } : o
  }

describe("Calls", () => {
  it.effect(
    "stop 34: a call interrupted while its settle runs waits for the settle before it ends (the settle's statement commits anyway; its idempotency claim must not be dropped first)",
    () =>
      Effect.gen(function* () {
        const { store, calls, caller } = yield* world(1_000)
        const op = Samples.paidOps.find((o) => o.units === "subjects" && o.price._tag === "PerSubject")!
        const order: Array<string> = []
        const entered = yield* Deferred.make<void>()
        const gate = yield* Deferred.make<void>()
        const settle = store.ledger.settle
        // a settle as a database runs it: once sent it completes, whether or not its caller still waits for it
        ;(store.ledger as { settle: typeof settle }).settle = (input) =>
          Effect.flatMap(
            Effect.forkDaemon(
              Effect.gen(function* () {
                order.push("settle sent")
                yield* Deferred.succeed(entered, undefined)
                yield* Deferred.await(gate)
                const out = yield* settle(input)
                order.push("settle committed")
                return out
              })
            ),
            Fiber.join
          )
        const fiber = yield* Effect.fork(
          call(calls, caller, op.platform, { ...Samples.minimal(op), subjects: [Samples.subject(op, 3)] }).pipe(
            Effect.onExit(() => Effect.sync(() => order.push("call ended")))
          )
        )
        yield* Deferred.await(entered)
        const interrupting = yield* Effect.fork(Fiber.interrupt(fiber))
        yield* Effect.yieldNow()
        yield* Deferred.succeed(gate, undefined)
        yield* Fiber.join(interrupting)
        assert.deepStrictEqual(order, ["settle sent", "settle committed", "call ended"])
        // the hold was captured by the settle, not released around it
        assert.isTrue(store.state.entries.some((e) => e.kind === "capture"))
      })
  )

  it.effect(
    "a hold released mid-call: an ordinary call is delivered free; a long call's attempt settles nothing (the fence)",
    () =>
      Effect.gen(function* () {
        const { store, script, calls, caller } = yield* world(1_000)
        const op = Samples.paidOps.find((o) => o.units === "subjects" && o.price._tag === "PerSubject")!
        // the upstream answers after the call's hold was released (a takeover released it, or it expired)
        const releasing = (u: { rows: number }) => {
          for (const h of store.state.holds.values())
            if (h.status === "held") Effect.runSync(store.ledger.release(h.id))
          return { kind: "deliver" as const, rows: u.rows }
        }
        script.current = releasing
        const ordinary = yield* call(calls, caller, op.platform, {
          ...Samples.minimal(op),
          subjects: [Samples.subject(op, 1)]
        })
        assert.strictEqual(ordinary.cost.creditsCharged, 0)
        assert.strictEqual(ordinary.coverage[0]?.status, "fetched")
        const written = store.state.measurements.length
        const made = yield* LongCalls.makeControl(true)
        const long = yield* Effect.exit(
          call(calls, caller, op.platform, { ...Samples.minimal(op), subjects: [Samples.subject(op, 2)] }).pipe(
            Effect.provideService(LongCalls.CallControl, made.control)
          )
        )
        assert.isTrue(long._tag === "Failure")
        // nothing settled: no measurement written, no capture
        assert.strictEqual(store.state.measurements.length, written)
        assert.isFalse(store.state.entries.some((e) => e.kind === "capture"))
      })
  )

  it.effect(
    "issue 19: calls drawing from one shared hold: each is charged exactly its delivery (<= its quote), a failed one draws nothing and its share is released when the hold is closed; one taken over (hold closed) settles nothing",
    () =>
      Effect.gen(function* () {
        const { store, script, calls, caller } = yield* world(1_000)
        const op = Samples.paidOps.find((o) => o.units === "subjects" && o.price._tag === "PerSubject")!
        const prepared = yield* Effect.forEach([1, 2, 3], (i) =>
          calls.prepare(caller, op.platform, {
            request: { ...Samples.minimal(op), subjects: [Samples.subject(op, i)] }
          })
        )
        const amount = prepared.reduce((n, p) => n + p.quote, 0)
        assert.isAbove(amount, 0)
        const hold = yield* store.ledger.placeHold({
          id: "hold_shared",
          accountId: caller.accountId,
          keyId: null,
          amount,
          expiresAt: new Date(start + 600_000)
        })
        // the second call's upstream fails: every unit failed, it draws nothing
        script.current = (u, i) => (i === 1 ? { kind: "fail" } : { kind: "deliver", rows: u.rows })
        const answers = []
        for (const p of prepared) answers.push(yield* Effect.either(p.run(undefined, { hold: hold.id })))
        assert.isTrue(Either.isRight(answers[0]!) && Either.isLeft(answers[1]!) && Either.isRight(answers[2]!))
        const charged = answers.flatMap((a) => (Either.isRight(a) ? [a.right.cost.creditsCharged] : []))
        charged.forEach((c, i) => assert.isAtMost(c, prepared[i === 0 ? 0 : 2]!.quote))
        // nothing captured until the hold is closed; spendable is exact meanwhile
        assert.isFalse(store.state.entries.some((e) => e.kind === "capture"))
        assert.strictEqual(store.state.accounts.get(caller.accountId)!.held, amount)
        const closed = yield* store.ledger.close(hold.id)
        const drawn = charged[0]! + charged[1]!
        assert.deepStrictEqual(closed._tag === "Some" ? closed.value : undefined, {
          captured: drawn,
          released: amount - drawn
        })
        const a = store.state.accounts.get(caller.accountId)!
        assert.deepStrictEqual([a.balance, a.held], [1_000 - drawn, 0])
        const captures = store.state.entries.filter((e) => e.kind === "capture")
        assert.strictEqual(-captures.reduce((n, e) => n + e.credits, 0), drawn)
        // a fenced call whose shared hold was closed (a takeover) settles nothing
        const late = yield* calls.prepare(caller, op.platform, {
          request: { ...Samples.minimal(op), subjects: [Samples.subject(op, 4)] }
        })
        script.current = (u) => ({ kind: "deliver", rows: u.rows })
        const written = store.state.measurements.length
        const fenced = yield* Effect.exit(late.run(undefined, { hold: hold.id, fenced: true }))
        assert.isTrue(fenced._tag === "Failure")
        assert.strictEqual(store.state.measurements.length, written)
        assert.strictEqual(store.state.entries.filter((e) => e.kind === "capture").length, captures.length)
      })
  )

  it.effect.prop(
    "D1 invariant: real charge <= quote for any delivery outcome, == quote on complete delivery, and the balance moves by the charge",
    [scenario],
    ([{ op, request, outcomes }]) =>
      Effect.gen(function* () {
        const w = yield* world()
        const quote = yield* call(w.calls, w.caller, op.platform, request, true)
        assert.strictEqual(quote.cost.creditsCharged, 0)
        w.script.current = scriptOf(outcomes)
        const real = yield* Effect.either(call(w.calls, w.caller, op.platform, request))
        const account = (yield* w.store.ledger.findAccount(w.caller.accountId)).pipe((o) =>
          o._tag === "Some" ? o.value : undefined
        )!
        if (Either.isLeft(real)) {
          assert.strictEqual(real.left._tag, "EveryUnitFailed")
          assert.strictEqual(account.balance, 1_000_000, "nothing is billed on an error")
        } else {
          assert.isAtMost(real.right.cost.creditsCharged, quote.estimate!.credits)
          assert.strictEqual(real.right.cost.creditsRemaining, 1_000_000 - real.right.cost.creditsCharged)
        }
        assert.strictEqual(account.held, 0, "no hold outlives its call")
        const w2 = yield* world()
        const full = yield* call(w2.calls, w2.caller, op.platform, request)
        assert.strictEqual(full.cost.creditsCharged, quote.estimate!.credits)
      }),
    { fastCheck: { numRuns: 300 } }
  )

  it.effect.prop(
    "issue 21: with maxAgeSeconds / forceFresh, real charge <= quote for any delivery; forceFresh quotes every unit as a fetch; maxAgeSeconds only shortens the window",
    [
      scenario,
      fc.option(fc.integer({ min: 0, max: 10 * 24 * 3600 }), { nil: undefined }),
      fc.boolean(),
      fc.integer({ min: 0, max: 4 * 24 * 3600 })
    ],
    ([{ op, request, outcomes }, maxAgeSeconds, forceFresh, elapsed]) =>
      Effect.gen(function* () {
        const w = yield* world()
        // what is stored: a first, complete call, then time passes
        const first = yield* call(w.calls, w.caller, op.platform, request)
        yield* TestClock.adjust(`${elapsed} seconds`)
        const envelope = {
          request,
          ...(maxAgeSeconds === undefined ? {} : { maxAgeSeconds }),
          ...(forceFresh ? { forceFresh } : {})
        }
        const quote = yield* w.calls.call(w.caller, op.platform, { ...envelope, estimateOnly: true })
        const plain = yield* w.calls.call(w.caller, op.platform, { request, estimateOnly: true })
        if (forceFresh) assert.strictEqual(quote.estimate!.credits, first.cost.creditsCharged)
        else {
          assert.isAtLeast(quote.estimate!.credits, plain.estimate!.credits, "a max age never lengthens the window")
          if (maxAgeSeconds === undefined || (op.freshSeconds !== null && maxAgeSeconds >= op.freshSeconds))
            assert.strictEqual(quote.estimate!.credits, plain.estimate!.credits)
        }
        const before = (yield* w.store.ledger.findAccount(w.caller.accountId)).pipe((o) =>
          o._tag === "Some" ? o.value : undefined
        )!
        w.script.current = scriptOf(outcomes)
        const real = yield* Effect.either(w.calls.call(w.caller, op.platform, envelope))
        if (Either.isRight(real)) {
          assert.isAtMost(real.right.cost.creditsCharged, quote.estimate!.credits)
          assert.strictEqual(real.right.cost.creditsRemaining, before.balance - real.right.cost.creditsCharged)
        }
        const after = (yield* w.store.ledger.findAccount(w.caller.accountId)).pipe((o) =>
          o._tag === "Some" ? o.value : undefined
        )!
        assert.strictEqual(after.held, 0, "no hold outlives its call")
      }),
    { fastCheck: { numRuns: 200 } }
  )

  it.effect.prop(
    "D2 invariant: units held and fresh are never billed again, and say `stored` with the first measuredAt",
    [scenario],
    ([{ op, request }]) =>
      Effect.gen(function* () {
        const w = yield* world()
        const first = yield* call(w.calls, w.caller, op.platform, request)
        yield* TestClock.adjust("1 second")
        const again = yield* call(w.calls, w.caller, op.platform, request)
        if (op.freshSeconds === null) {
          assert.strictEqual(again.cost.creditsCharged, first.cost.creditsCharged)
          return
        }
        assert.strictEqual(again.cost.creditsCharged, 0)
        for (const [i, c] of again.coverage.entries()) {
          assert.strictEqual(c.status, "stored")
          assert.strictEqual(c.measuredAt, first.coverage[i]!.measuredAt)
        }
        yield* TestClock.setTime(start + op.freshSeconds * 1000)
        const later = yield* call(w.calls, w.caller, op.platform, request)
        assert.strictEqual(
          later.cost.creditsCharged,
          first.cost.creditsCharged,
          "billed again once the window has passed"
        )
      }),
    { fastCheck: { numRuns: 200 } }
  )

  it.effect.prop(
    "D1 invariant: omitted units (not found, failed) are never billed; the charge is the price of what was delivered",
    [scenario],
    ([{ op, request, outcomes }]) =>
      Effect.gen(function* () {
        const w = yield* world()
        w.script.current = scriptOf(outcomes)
        const r = yield* Effect.either(call(w.calls, w.caller, op.platform, request))
        if (Either.isLeft(r)) return
        let exact = Pricing.zero
        for (const c of r.right.coverage) {
          if (c.status === "omitted") assert.strictEqual(c.credits, 0)
          if (c.status === "fetched") exact = Pricing.add(exact, Pricing.exact(Math.round(c.credits * 10000), 10000))
        }
        assert.strictEqual(r.right.cost.creditsCharged, Pricing.roundUp(exact))
      }),
    { fastCheck: { numRuns: 300 } }
  )

  it.effect.prop(
    "D1 invariant: one rounding per call: the charge is ceil(N * total rows / M), not a sum of rounded units",
    [fc.array(fc.integer({ min: 0, max: 100 }), { minLength: 1, maxLength: 10 })],
    ([rows]) =>
      Effect.gen(function* () {
        const w = yield* world()
        const op = Samples.paidOps.find((o) => o.platform === "forum" && o.name === "comments")! // 3 credits for 25 rows
        const request = { op: "comments", subjects: rows.map((_, i) => `abc${i}`), limit: 100 }
        w.script.current = (_u, i) => ({ kind: "deliver", rows: rows[i]! })
        const r = yield* call(w.calls, w.caller, op.platform, request)
        const total = rows.reduce((a, b) => a + b, 0)
        assert.strictEqual(r.cost.creditsCharged, Math.ceil((3 * total) / 25))
      }),
    { fastCheck: { numRuns: 200 } }
  )

  it.effect(
    "D1: jobs_in search bills a minimum of 50 rows; web_search search bills per page delivered; explore run per row",
    () =>
      Effect.gen(function* () {
        const w = yield* world()
        w.script.current = () => ({ kind: "deliver", rows: 7 })
        const jobs = yield* call(w.calls, w.caller, "jobs_in", { op: "search", query: "dev", limit: 120 })
        assert.strictEqual(jobs.cost.creditsCharged, 97)
        const quote = yield* call(w.calls, w.caller, "jobs_in", { op: "search", query: "dev", limit: 120 }, true)
        assert.strictEqual(quote.estimate!.credits, Math.ceil((97 * 120) / 50))
        w.script.current = () => ({ kind: "deliver", rows: 3 })
        const pages = yield* call(w.calls, w.caller, "web_search", { op: "search", query: "q", pages: 5 })
        assert.strictEqual(pages.cost.creditsCharged, 3)
        w.script.current = () => ({ kind: "deliver", rows: 0 })
        const none = yield* call(w.calls, w.caller, "explore", { op: "run", source: "known", limit: 100 })
        assert.strictEqual(none.cost.creditsCharged, 0)
        w.script.current = () => ({ kind: "deliver", rows: 11 })
        const some = yield* call(w.calls, w.caller, "explore", { op: "run", source: "known", limit: 100 })
        assert.strictEqual(some.cost.creditsCharged, Math.ceil((3 * 11) / 10))
        assert.isTrue(some.data.every((row) => row["unverified"] === true))
        assert.strictEqual(
          w.store.state.measurements.filter((m) => m.platform === "explore").length,
          0,
          "explore keeps nothing"
        )
        const unknown = yield* Effect.either(call(w.calls, w.caller, "explore", { op: "run", source: "nope" }))
        assert.isTrue(Either.isLeft(unknown) && unknown.left._tag === "InvalidRequest")
        const unavailable = yield* Effect.either(call(w.calls, w.caller, "explore", { op: "schema", source: "known" }))
        assert.isTrue(Either.isLeft(unavailable) && unavailable.left._tag === "OpUnavailable")
      })
  )

  it.effect(
    "D8: a quote above spendable credits is refused with required and available, before anything is fetched",
    () =>
      Effect.gen(function* () {
        const w = yield* world(5)
        let fetched = 0
        w.script.current = (u) => {
          fetched++
          return { kind: "deliver", rows: u.rows }
        }
        const r = yield* Effect.either(
          call(w.calls, w.caller, "maps", { op: "places", subjects: ["ChIJaaaaaaaaaa", "ChIJbbbbbbbbbb"] })
        )
        assert.isTrue(Either.isLeft(r))
        const e = (r as Either.Left<Calls.InsufficientCredits, never>).left
        assert.deepStrictEqual([e._tag, e.required, e.available], ["InsufficientCredits", 8, 5])
        assert.strictEqual(fetched, 0)
      })
  )

  it.effect(
    "issue 24: a key's monthly credit limit refuses, at the hold, a call that would pass it; nothing is fetched or held",
    () =>
      Effect.gen(function* () {
        const w = yield* world(1000)
        let fetched = 0
        w.script.current = (u) => {
          fetched++
          return { kind: "deliver", rows: u.rows }
        }
        const limited = { ...w.caller, monthlyCreditLimit: 10 }
        const first = yield* call(w.calls, limited, "maps", { op: "places", subjects: ["ChIJaaaaaaaaaa"] })
        assert.strictEqual(first.cost.creditsCharged, 4)
        const r = yield* Effect.either(
          call(w.calls, limited, "maps", { op: "places", subjects: ["ChIJbbbbbbbbbb", "ChIJcccccccccc"] })
        )
        assert.isTrue(Either.isLeft(r))
        const e = (r as Either.Left<Calls.CallError, never>).left
        assert.strictEqual(e._tag, "KeyCreditLimitReached")
        if (e._tag === "KeyCreditLimitReached") {
          assert.deepStrictEqual(
            [e.required, e.limit, e.spentThisMonth, e.resetsAt],
            [8, 10, 4, "2026-12-01T00:00:00.000Z"]
          )
        }
        assert.strictEqual(fetched, 1)
        assert.strictEqual([...w.store.state.holds.values()].filter((h) => h.status === "held").length, 0)
        // the same call without the limit (another key of the account) goes through
        const other = yield* call(w.calls, { ...w.caller, keyId: "key_other" }, "maps", {
          op: "places",
          subjects: ["ChIJbbbbbbbbbb", "ChIJcccccccccc"]
        })
        assert.strictEqual(other.cost.creditsCharged, 8)
        // within the limit: 4 spent + 4 = 8 <= 10
        const third = yield* call(w.calls, limited, "maps", { op: "places", subjects: ["ChIJdddddddddd"] })
        assert.strictEqual(third.cost.creditsCharged, 4)
      })
  )

  it.effect.prop(
    "D10 invariant: an owned or nothing_on_file contact part is never billed again; another org never sees or reuses a reveal",
    [fc.array(fc.constantFrom("email", "phone"), { minLength: 1, maxLength: 2 }), fc.integer({ min: 1, max: 10 })],
    ([parts, people]) =>
      Effect.gen(function* () {
        const w = yield* world()
        const subjects = Array.from({ length: people }, (_, i) => `person-${i}`)
        const request = { op: "reveal", subjects, reveal: parts }
        const first = yield* call(w.calls, w.caller, "contacts", request)
        const revealed = first.data.flatMap((row) =>
          [...new Set(parts)].filter((p) => (row[p] as { status: string }).status === "revealed")
        )
        const priced = revealed.reduce((n, p) => n + (p === "email" ? 18 : 87), 0)
        assert.strictEqual(first.cost.creditsCharged, priced)
        const again = yield* call(w.calls, w.caller, "contacts", request)
        assert.strictEqual(again.cost.creditsCharged, 0)
        for (const row of again.data) {
          for (const p of new Set(parts))
            assert.include(["owned", "nothing_on_file"], (row[p] as { status: string }).status)
        }
        const other = yield* w.open("acct_b", 1_000_000)
        const theirs = yield* call(w.calls, other, "contacts", request)
        assert.strictEqual(theirs.cost.creditsCharged, first.cost.creditsCharged, "another org buys its own")
        for (const row of theirs.data)
          for (const p of new Set(parts)) assert.notStrictEqual((row[p] as { status: string }).status, "owned")
      }),
    { fastCheck: { numRuns: 100 } }
  )

  it.effect.prop(
    "D9 invariant: history never bills and never fetches, and returns the stored points oldest first",
    [fc.integer({ min: 1, max: 5 }), fc.integer({ min: 1, max: 730 })],
    ([fetches, days]) =>
      Effect.gen(function* () {
        const w = yield* world()
        for (let i = 0; i < fetches; i++) {
          yield* call(w.calls, w.caller, "short_video", { op: "profiles", subjects: ["jane.doe"] })
          yield* TestClock.adjust("8 days")
        }
        let fetched = 0
        w.script.current = (u) => {
          fetched++
          return { kind: "deliver", rows: u.rows }
        }
        const before = w.store.state.entries.length
        const h = yield* call(w.calls, w.caller, "short_video", { op: "history", subjects: ["@Jane.Doe"], days })
        assert.strictEqual(h.cost.creditsCharged, 0)
        assert.strictEqual(fetched, 0)
        assert.strictEqual(w.store.state.entries.length, before)
        const expected = Array.from({ length: fetches }, (_, i) => start + i * 8 * 86_400_000).filter(
          (t) => t > start + fetches * 8 * 86_400_000 - days * 86_400_000
        )
        // the rows as a client reads them (their points are carried as the store's JSON text)
        const rows = JSON.parse(JSON.stringify(h.data)) as Array<{
          points: Array<{ measuredAt: string; value: number }>
        }>
        const points = rows.flatMap((r) => r.points)
        assert.deepStrictEqual(
          points.map((p) => Date.parse(p.measuredAt)),
          expected
        )
        for (const p of points) assert.strictEqual(typeof p.value, "number")
        if (expected.length > 0) {
          assert.strictEqual(h.data[0]!["measuredAt"], new Date(expected[expected.length - 1]!).toISOString())
        }
      }),
    { fastCheck: { numRuns: 100 } }
  )

  it.effect(
    "D2: concurrent identical fetches share one upstream fetch and one charge; the others are served as stored",
    () =>
      Effect.gen(function* () {
        const w = yield* world()
        const other = yield* w.open("acct_b", 1000)
        let fetches = 0
        w.script.current = (u) => {
          fetches++
          return { kind: "deliver", rows: u.rows, delayMs: 1000 }
        }
        const request = { op: "places", subjects: ["ChIJshared-0001", "ChIJshared-0002"] }
        const callers = [w.caller, other, w.caller, other, w.caller]
        const fibers = yield* Effect.forEach(callers, (c) => Effect.fork(call(w.calls, c, "maps", request)))
        yield* TestClock.adjust("1 second")
        const answers = yield* Effect.forEach(fibers, Fiber.join)
        assert.strictEqual(fetches, 2, "one upstream fetch per subject")
        const charges = answers.map((a) => a.cost.creditsCharged)
        assert.deepStrictEqual(charges.sort(), [0, 0, 0, 0, 8])
        for (const a of answers.filter((a) => a.cost.creditsCharged === 0)) {
          assert.deepStrictEqual(
            a.coverage.map((c) => c.status),
            ["stored", "stored"]
          )
          assert.strictEqual(a.data.length, 2)
        }
        assert.strictEqual(w.store.state.measurements.length, 2, "stored once")
      })
  )

  it.effect("D3: two spellings of one entity are one unit, billed once, with one history series", () =>
    Effect.gen(function* () {
      const w = yield* world()
      const r = yield* call(w.calls, w.caller, "short_video", {
        op: "profiles",
        subjects: ["@Jane.Doe", "https://ShortVideo.example/@jane.doe/?utm_source=x#top", "jane.doe"]
      })
      assert.strictEqual(r.coverage.length, 1)
      assert.strictEqual(r.cost.creditsCharged, 2)
      assert.deepStrictEqual(
        w.store.state.points.map((p) => p.entity),
        ["jane.doe"]
      )
    })
  )

  it.effect.prop(
    "D18 invariant: a quote above maxCredits is refused before any hold or fetch, nothing billed; at or above it the call is billed the quote",
    [scenario, fc.integer({ min: -3, max: 3 })],
    ([{ op, request }, delta]) =>
      Effect.gen(function* () {
        const w = yield* world()
        const quote = (yield* w.calls.call(w.caller, op.platform, { request, estimateOnly: true })).estimate!.credits
        const maxCredits = Math.max(0, quote + delta)
        const estimate = yield* w.calls.call(w.caller, op.platform, { request, estimateOnly: true, maxCredits })
        assert.deepStrictEqual(estimate.estimate, { credits: quote, fitsMaxCredits: quote <= maxCredits })
        let fetches = 0
        let holds = 0
        w.script.current = (u) => {
          fetches++
          return { kind: "deliver", rows: u.rows }
        }
        const placeHold = w.store.ledger.placeHold
        Object.assign(w.store.ledger, {
          placeHold: (...args: Parameters<typeof placeHold>) => {
            holds++
            return placeHold(...args)
          }
        })
        const r = yield* Effect.either(w.calls.call(w.caller, op.platform, { request, maxCredits }))
        const account = (yield* w.store.ledger.findAccount(w.caller.accountId)).pipe((o) =>
          o._tag === "Some" ? o.value : undefined
        )!
        if (quote > maxCredits) {
          assert.isTrue(Either.isLeft(r))
          if (Either.isLeft(r)) {
            assert.strictEqual(r.left._tag, "QuoteAboveMaxCredits")
            assert.deepInclude(r.left, { required: quote, maxCredits })
          }
          assert.deepStrictEqual(
            { fetches, holds, balance: account.balance },
            { fetches: 0, holds: 0, balance: 1_000_000 }
          )
        } else {
          assert.isTrue(Either.isRight(r))
          if (Either.isRight(r)) assert.strictEqual(r.right.cost.creditsCharged, quote)
          assert.isAbove(fetches, 0)
        }
      }),
    { fastCheck: { numRuns: 200 } }
  )

  it.effect(
    "D8: a settle whose outcome is unknown is a typed failure (not 'not billed'); the hold is then released",
    () =>
      Effect.gen(function* () {
        const w = yield* world()
        let released = 0
        const release = w.store.ledger.release
        Object.assign(w.store.ledger, {
          settle: () => Effect.fail(new Ledger.SettleOutcomeUnknown({ detail: "Connection terminated unexpectedly" })),
          release: (holdId: string) => {
            released++
            return release(holdId)
          }
        })
        const r = yield* Effect.either(
          call(w.calls, w.caller, "maps", { op: "places", subjects: ["ChIJunknownoutcome1"] })
        )
        assert.isTrue(Either.isLeft(r))
        if (Either.isLeft(r)) {
          assert.strictEqual(r.left._tag, "SettleOutcomeUnknown")
          assert.match(r.left.message, /may have been billed once/)
        }
        // releasing a hold the settle did capture changes nothing; one it did not is given back
        assert.strictEqual(released, 1)
      })
  )
})
