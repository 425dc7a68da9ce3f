// D9: history series read back from the store: oldest first, one series per source, stays and stores kept.

import { assert, describe, layer } from "@effect/vitest"
import { Accounts, Ledger, Measurements } from "@pdr/domain"
import { Effect } from "effect"
import * as Testing from "../src/Testing.js"
import { services } from "./layers.js"

const targets = await Testing.targets()

const point = (entity: string, at: string, rating: number, source: string, stay: Record<string, unknown> | null) => ({
  platform: "lodging",
  entity,
  store: "",
  stay,
  measuredAt: new Date(at),
  metrics: { rating },
  source
})

for (const t of targets) {
  describe.skipIf(!t.enabled)(`Measurements on ${t.name}`, () => {
    layer(services(t.target), { timeout: "60 seconds" })((it) => {
      it.effect("D9: history answers each subject's points oldest first, split by source, with their stays", () =>
        Effect.gen(function* () {
          const accounts = yield* Accounts.Accounts
          const ledger = yield* Ledger.Ledger
          const measurements = yield* Measurements.Measurements
          const account = yield* accounts.create({ name: "history" })
          const stay = { checkIn: "2026-12-01", checkOut: "2026-12-03", adults: 2 }
          const points = [
            point("hist-mixed", "2026-11-20T10:00:00.000Z", 4.1, "synthetic", null),
            point("hist-mixed", "2026-11-19T10:00:00.000Z", 4.0, "synthetic", null),
            point("hist-mixed", "2026-11-21T10:00:00.123Z", 4.2, "other", null),
            point("hist-stay", "2026-11-21T09:00:00.000Z", 3.5, "synthetic", stay),
            point("hist-plain", "2026-11-21T08:00:00.007Z", 5, "synthetic", null),
            point("hist-plain", "2026-11-01T08:00:00.000Z", 4.5, "synthetic", null)
          ]
          yield* ledger.settle({
            holdId: null,
            accountId: account.id,
            capture: 0,
            reason: "history test",
            records: { measurements: [], points, reveals: [] }
          })
          const series = yield* measurements.history({
            platform: "lodging",
            entities: ["hist-plain", "hist-mixed", "hist-stay", "hist-none"],
            metric: "rating",
            store: null,
            since: new Date("2026-10-01T00:00:00.000Z")
          })
          const shown = series.map((s) => [s.entity, s.source, s.points.value.map((p) => [p.measuredAt, p.value])])
          assert.deepStrictEqual(shown, [
            [
              "hist-plain",
              "synthetic",
              [
                ["2026-11-01T08:00:00.000Z", 4.5],
                ["2026-11-21T08:00:00.007Z", 5]
              ]
            ],
            [
              "hist-mixed",
              "synthetic",
              [
                ["2026-11-19T10:00:00.000Z", 4],
                ["2026-11-20T10:00:00.000Z", 4.1]
              ]
            ],
            ["hist-mixed", "other", [["2026-11-21T10:00:00.123Z", 4.2]]],
            ["hist-stay", "synthetic", [["2026-11-21T09:00:00.000Z", 3.5]]]
          ])
          assert.deepStrictEqual(series[3]!.points.value[0]!.stay, stay)
          assert.isUndefined(series[0]!.points.value[0]!.stay)
          // each series says how many points it has and its newest; the common one (hist-plain: one source, no stay)
          // comes as the JSON text PostgreSQL wrote, exactly what JSON.stringify writes for its points
          assert.deepStrictEqual(
            series.map((s) => [s.count, s.latest]),
            [
              [2, "2026-11-21T08:00:00.007Z"],
              [2, "2026-11-20T10:00:00.000Z"],
              [1, "2026-11-21T10:00:00.123Z"],
              [1, "2026-11-21T09:00:00.000Z"]
            ]
          )
          assert.strictEqual(
            series[0]!.points.text,
            '[{"measuredAt":"2026-11-01T08:00:00.000Z","value":4.5},{"measuredAt":"2026-11-21T08:00:00.007Z","value":5}]'
          )
          const recent = yield* measurements.history({
            platform: "lodging",
            entities: ["hist-plain"],
            metric: "rating",
            store: null,
            since: new Date("2026-11-10T00:00:00.000Z")
          })
          assert.deepStrictEqual(
            recent[0]!.points.value.map((p) => p.measuredAt),
            ["2026-11-21T08:00:00.007Z"]
          )
        })
      )

      it.effect("D9: a series written as JSON text by the store carries every value and store exactly", () =>
        Effect.gen(function* () {
          const accounts = yield* Accounts.Accounts
          const ledger = yield* Ledger.Ledger
          const measurements = yield* Measurements.Measurements
          const account = yield* accounts.create({ name: "history text" })
          // values whose shortest text differs between JavaScript and PostgreSQL ("1e-7" / "1e-07") or needs 17 digits
          const values = [0.1 + 0.2, 1e-7, 123456789012345680000, -2.5e-300, 4, 1 / 3]
          const store = 'store "7" \\ north'
          const points = values.map((rating, i) => ({
            ...point("hist-exact", `2026-11-2${i}T10:00:00.00${i}Z`, rating, "synthetic", null),
            platform: "quick_commerce",
            store
          }))
          yield* ledger.settle({
            holdId: null,
            accountId: account.id,
            capture: 0,
            reason: "history text test",
            records: { measurements: [], points, reveals: [] }
          })
          const read = (s: string | null) =>
            measurements.history({
              platform: "quick_commerce",
              entities: ["hist-exact"],
              metric: "rating",
              store: s,
              since: new Date("2026-10-01T00:00:00.000Z")
            })
          const expected = values.map((value, i) => ({ measuredAt: `2026-11-2${i}T10:00:00.00${i}Z`, value }))
          const [plain] = yield* read(null)
          assert.deepStrictEqual(JSON.parse(plain!.points.text), expected)
          assert.deepStrictEqual(plain!.points.value, expected)
          assert.deepStrictEqual([plain!.count, plain!.latest], [6, "2026-11-25T10:00:00.005Z"])
          const [inStore] = yield* read(store)
          assert.deepStrictEqual(
            JSON.parse(inStore!.points.text),
            expected.map((p) => ({ ...p, store }))
          )
          assert.deepStrictEqual(yield* read("another store"), [])
        })
      )

      it.effect("D2: fresh lookups asked together are answered each by its own window and rows asked", () =>
        Effect.gen(function* () {
          const accounts = yield* Accounts.Accounts
          const ledger = yield* Ledger.Ledger
          const measurements = yield* Measurements.Measurements
          const account = yield* accounts.create({ name: "fresh" })
          const t1 = new Date("2026-11-21T10:00:00.000Z")
          const t2 = new Date("2026-11-21T11:00:00.000Z")
          const m = (key: string, at: Date, rowsAsked: number, exhaustive: boolean) => ({
            platform: "maps",
            op: "places",
            entity: key,
            freshnessKey: key,
            measuredAt: at,
            rows: [{ at: at.toISOString(), rowsAsked }],
            rowsAsked,
            exhaustive,
            found: true,
            source: "test"
          })
          yield* ledger.settle({
            holdId: null,
            accountId: account.id,
            capture: 0,
            reason: "fresh test",
            records: {
              measurements: [m("fresh-1", t1, 5, false), m("fresh-1", t2, 1, false), m("fresh-2", t1, 1, true)],
              points: [],
              reveals: []
            }
          })
          const since = new Date("2026-11-21T09:00:00.000Z")
          const [a, b, c, d] = yield* Effect.all(
            [
              measurements.fresh({ keys: ["fresh-1", "fresh-2", "fresh-3"], since, minRows: 1 }),
              measurements.fresh({ keys: ["fresh-1"], since, minRows: 5 }),
              measurements.fresh({ keys: ["fresh-1", "fresh-2"], since: t1, minRows: 3 }),
              measurements.fresh({ keys: [], since, minRows: 1 })
            ],
            { concurrency: "unbounded" }
          )
          const at = (found: ReadonlyMap<string, { measuredAt: Date }>) =>
            Object.fromEntries([...found].map(([k, v]) => [k, v.measuredAt.toISOString()]))
          assert.deepStrictEqual(at(a), { "fresh-1": t2.toISOString(), "fresh-2": t1.toISOString() })
          assert.deepStrictEqual(at(b), { "fresh-1": t1.toISOString() })
          assert.deepStrictEqual(at(c), {})
          assert.deepStrictEqual(at(d), {})
        })
      )
    })
  })
}
