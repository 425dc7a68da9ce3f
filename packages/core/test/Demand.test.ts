// Demand decides what is tracked: a real call of a subject op with a window notes each subject with the request that
// replays it; an estimate, an op without a window and the refresh account's own calls do not; the operator pins and
// unpins; `due` leaves out what was measured within the stale age and demand older than TRACK_DAYS.
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Core } from "@pdr/core"
import { Accounts, Calls, Demand } from "@pdr/domain"
import * as Testing from "@pdr/store-pg/Testing"
import { Effect, Exit, ManagedRuntime, Scope } from "effect"
import { describe, expect, it } from "vitest"

const targets = await Testing.targets()

for (const t of targets) {
  describe.skipIf(!t.enabled)(`Demand on ${t.name}`, () => {
    it("calls note demand with the replay request; pins are the operator's", async () => {
      const scope = Effect.runSync(Scope.make())
      const given = await Effect.runPromise(Scope.extend(t.target, scope))
      // the embedded database is opened twice in turn: on files, not in memory
      const target =
        given._tag === "Embedded" ? { ...given, dataDir: mkdtempSync(join(tmpdir(), "pdr-demand-")) } : given
      const open = (refreshAccountId?: string) =>
        ManagedRuntime.make(Core.layer({ target, knobs: { shortLists: false }, refreshAccountId }))
      // the refresh account's id is known before it exists: the first runtime only creates accounts
      const setup = open()
      const [customer, refresh] = await setup.runPromise(
        Effect.gen(function* () {
          const accounts = yield* Accounts.Accounts
          return [
            yield* accounts.create({ name: "customer", credits: 1000 }),
            yield* accounts.create({ name: "refresh", credits: 1000 })
          ] as const
        })
      )
      await setup.dispose()
      const runtime = open(refresh.id)
      try {
        await runtime.runPromise(
          Effect.gen(function* () {
            const calls = yield* Calls.Calls
            const demand = yield* Demand.Demand
            const as = (accountId: string) => ({ accountId, keyId: "k", prefix: "p" })
            yield* calls.call(as(customer.id), "short_video", {
              request: { op: "profiles", subjects: ["jane.doe", "@Some.One"] }
            })
            yield* calls.call(as(customer.id), "short_video", {
              request: { op: "profiles", subjects: ["only.quoted"] },
              estimateOnly: true
            })
            yield* calls.call(as(refresh.id), "short_video", {
              request: { op: "profiles", subjects: ["refreshed.only"] }
            })
            // asked but never measured (the caller could not pay): noted, yet not due
            const broke = yield* (yield* Accounts.Accounts).create({ name: "broke", credits: 0 })
            const refused = yield* Effect.either(
              calls.call(as(broke.id), "short_video", { request: { op: "profiles", subjects: ["never.measured"] } })
            )
            expect(refused._tag).toBe("Left")
            yield* Effect.sleep("1500 millis") // the adapter writes its buffer every second
            const tracked = yield* demand.list({ pinnedOnly: false })
            expect(tracked.map((e) => e.subject).sort()).toEqual(["jane.doe", "never.measured", "some.one"])
            const jane = tracked.find((e) => e.subject === "jane.doe")!
            expect(jane.request).toEqual({ op: "profiles", subjects: ["jane.doe"] })
            expect([jane.platform, jane.op, jane.pinned, jane.demandedAt !== null]).toEqual([
              "short_video",
              "profiles",
              false,
              true
            ])
            // measured just now: not due within 20 hours, due when the stale age is passed
            const now = Date.now()
            const due = (measuredBefore: number, demandedSince = now - 30 * 86_400_000) =>
              Effect.map(
                demand.due({
                  demandedSince: new Date(demandedSince),
                  measuredBefore: new Date(measuredBefore),
                  platform: undefined
                }),
                (es) => es.map((e) => e.subject).sort()
              )
            expect(yield* due(now - 20 * 3600_000)).toEqual([])
            expect(yield* due(now + 1000)).toEqual(["jane.doe", "some.one"])
            expect(yield* due(now + 1000, now + 1000)).toEqual([]) // demand older than the tracking window
            // the operator pins an entity nobody asked for, then unpins it
            yield* demand.pin([
              {
                freshnessKey: "maps/places/x/{}",
                platform: "maps",
                op: "places",
                subject: "x",
                request: { op: "places", subjects: ["x"] }
              }
            ])
            expect((yield* demand.list({ pinnedOnly: true })).map((e) => e.subject)).toEqual(["x"])
            expect(yield* due(now + 1000, now + 1000)).toEqual(["x"])
            expect(yield* demand.unpin("maps", "x")).toBe(1)
            expect(yield* demand.list({ pinnedOnly: true })).toEqual([])
          })
        )
      } finally {
        await runtime.dispose()
        await Effect.runPromise(Scope.close(scope, Exit.void))
      }
    }, 60_000)
  })
}
