// D2: the store's indexed fresh lookup (`pdr_fresh`) is the domain's freshness rule (`Freshness.freshest`), checked
// as a property over generated stored results and asks, on the real PostgreSQL server (and the embedded one if asked).
import { assert, describe, layer } from "@effect/vitest"
import { Accounts, Freshness, Ledger, Measurements } from "@pdr/domain"
import { Effect, FastCheck as fc } from "effect"
import * as Testing from "../src/Testing.js"
import { services } from "./layers.js"

const targets = await Testing.targets()

const base = Date.parse("2026-11-21T00:00:00.000Z")

/** Stored results over a few keys, at distinct times (the lookup picks the newest, so ties are not generated). */
const storedArb = fc.uniqueArray(fc.integer({ min: 0, max: 10_000 }), { minLength: 0, maxLength: 14 }).chain((times) =>
  fc.tuple(
    ...times.map((t) =>
      fc.record({
        key: fc.constantFrom("a", "b", "c"),
        at: fc.constant(t),
        rowsAsked: fc.integer({ min: 1, max: 30 }),
        exhaustive: fc.boolean()
      })
    )
  )
)

const askArb = fc.record({
  keys: fc.uniqueArray(fc.constantFrom("a", "b", "c", "d"), { maxLength: 4 }),
  since: fc.integer({ min: -10, max: 10_010 }),
  minRows: fc.integer({ min: 1, max: 30 })
})

for (const t of targets) {
  describe.skipIf(!t.enabled)(`Freshness on ${t.name}`, () => {
    layer(services(t.target), { timeout: "120 seconds" })((it) => {
      it.effect("D2 invariant: the fresh lookup answers exactly what the domain's freshness rule says, per key", () =>
        Effect.gen(function* () {
          const accounts = yield* Accounts.Accounts
          const ledger = yield* Ledger.Ledger
          const measurements = yield* Measurements.Measurements
          const account = yield* accounts.create({ name: "freshness" })
          const cases = fc.sample(fc.tuple(storedArb, fc.array(askArb, { minLength: 1, maxLength: 4 })), 40)
          let compared = 0
          for (const [run, [stored, asks]] of cases.entries()) {
            const prefix = `fresh-${Date.now()}-${run}/`
            const rows: ReadonlyArray<Measurements.Measurement> = stored.map((s) => ({
              platform: "p",
              op: "o",
              entity: s.key,
              freshnessKey: prefix + s.key,
              measuredAt: new Date(base + s.at),
              rows: [],
              rowsAsked: s.rowsAsked,
              exhaustive: s.exhaustive,
              found: true,
              source: "test"
            }))
            if (rows.length > 0)
              yield* ledger.settle({
                holdId: null,
                accountId: account.id,
                capture: 0,
                reason: "freshness test",
                records: { measurements: rows, points: [], reveals: [] }
              })
            for (const a of asks) {
              const ask = { keys: a.keys.map((k) => prefix + k), since: new Date(base + a.since), minRows: a.minRows }
              const expected = Freshness.freshest(rows, ask)
              const found = yield* measurements.fresh(ask)
              const show = (m: ReadonlyMap<string, Measurements.Measurement>) =>
                [...m.entries()]
                  .map(([k, v]) => `${k}@${v.measuredAt.toISOString()}/${v.rowsAsked}/${v.exhaustive}`)
                  .sort()
              assert.deepStrictEqual(show(found), show(expected), JSON.stringify({ stored, ask: a }))
              compared += expected.size
            }
          }
          // the generated cases are not all empty answers
          assert.isAbove(compared, 10)
        })
      )
    })
  })
}
