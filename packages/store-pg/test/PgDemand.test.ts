// Demand's buffer (issue 22): an entry noted again (every call of a stored entity notes the same replay request) takes
// the later time in place; a note with another request replaces it; an earlier note changes nothing; the entries a
// caller notes are never changed. What the buffer's flush writes is the latest demand of each entity.

import { assert, describe, it } from "@effect/vitest"
import { Demand } from "@pdr/domain"
import { Context, Effect, Layer } from "effect"
import { Database, PgDemand } from "../src/index.js"
import * as Testing from "../src/Testing.js"

const targets = await Testing.targets()

for (const t of targets) {
  describe.skipIf(!t.enabled)(`Demand on ${t.name}`, () => {
    it.effect(
      "the latest note of an entity is written: a repeated one in place, another request replacing it",
      () =>
        Effect.gen(function* () {
          const run = `d${Date.now().toString(36)}`
          const request = Object.freeze({ op: "profiles", subjects: [`${run}-one`] })
          const entry = (subject: string, at: string, asked: Demand.Noted["request"] = request): Demand.Noted => ({
            freshnessKey: `${run}-${subject}`,
            platform: "short_video",
            op: "profiles",
            subject: `${run}-${subject}`,
            request: asked,
            demandedAt: new Date(at)
          })
          const first = entry("one", "2026-11-20T10:00:00.000Z")
          const limited = Object.freeze({ op: "profiles", subjects: [`${run}-two`], limit: 5 })
          // written only when the layer closes (its flusher waits an hour)
          yield* Effect.scoped(
            Effect.gen(function* () {
              const demand = Context.get(yield* Layer.build(PgDemand.layer({ flushEvery: "1 hour" })), Demand.Demand)
              yield* demand.note("account", [first])
              yield* demand.note("account", [entry("one", "2026-11-20T12:00:00.000Z")])
              yield* demand.note("account", [entry("one", "2026-11-20T11:00:00.000Z")])
              yield* demand.note("account", [entry("two", "2026-11-20T10:00:00.000Z")])
              yield* demand.note("account", [entry("two", "2026-11-20T13:00:00.000Z", limited)])
              yield* demand.note("account", [entry("two", "2026-11-20T09:00:00.000Z")])
            })
          )
          const tracked = yield* Effect.scoped(
            Effect.flatMap(Layer.build(PgDemand.layer()), (ctx) =>
              Context.get(ctx, Demand.Demand).list({ pinnedOnly: false })
            )
          )
          const mine = tracked.filter((e) => e.subject.startsWith(run))
          assert.deepStrictEqual(
            mine
              .map((e) => [e.subject, e.demandedAt?.toISOString(), e.request] as const)
              .sort((a, b) => a[0].localeCompare(b[0])),
            [
              [`${run}-one`, "2026-11-20T12:00:00.000Z", { op: "profiles", subjects: [`${run}-one`] }],
              [`${run}-two`, "2026-11-20T13:00:00.000Z", { op: "profiles", subjects: [`${run}-two`], limit: 5 }]
            ]
          )
          // the caller's entry is as it was noted
          assert.strictEqual(first.demandedAt?.toISOString(), "2026-11-20T10:00:00.000Z")
        }).pipe(Effect.provide(Layer.unwrapScoped(Effect.map(t.target, Database.layer)))),
      { timeout: 60_000 }
    )
  })
}
