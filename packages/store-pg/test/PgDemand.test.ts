// Demand's buffer (issue 22): an entry noted again (every call of a stored entity notes the same replay request) takes
// the later time in place; a note with another request replaces it; an earlier note changes nothing; the entries a
// caller notes are never changed. What the buffer's flush writes is the latest demand of each entity. A flush whose
// write fails (a dropped connection) keeps its entries for the next one; what fails twice is dropped, said in the log.

import { SqlClient } from "@effect/sql"
import { assert, describe, it } from "@effect/vitest"
import { Demand } from "@pdr/domain"
import { Context, Effect, Layer, Schedule } from "effect"
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
    it.effect(
      "a listing sees the demand noted just before it: the buffer is written first (D101)",
      () =>
        Effect.gen(function* () {
          const run = `l${Date.now().toString(36)}`
          yield* Effect.scoped(
            Effect.gen(function* () {
              // the periodic flush waits an hour: only the listing's own flush can write the note
              const demand = Context.get(yield* Layer.build(PgDemand.layer({ flushEvery: "1 hour" })), Demand.Demand)
              yield* demand.note("account", [
                {
                  freshnessKey: `${run}-k`,
                  platform: "short_video",
                  op: "profiles",
                  subject: `${run}-one`,
                  request: Object.freeze({ op: "profiles", subjects: [`${run}-one`] }),
                  demandedAt: new Date("2026-11-20T10:00:00.000Z")
                }
              ])
              const listed = yield* demand.list({ pinnedOnly: false })
              assert.deepStrictEqual(
                listed.filter((e) => e.subject.startsWith(run)).map((e) => e.demandedAt?.toISOString()),
                ["2026-11-20T10:00:00.000Z"]
              )
            })
          )
        }).pipe(Effect.provide(Layer.unwrapScoped(Effect.map(t.target, Database.layer)))),
      { timeout: 60_000 }
    )

    // the tracked table refuses this run's rows while `<run>_refuse` has a row; each refusal counted in a sequence
    // (not rolled back with the statement)
    const refusing = (run: string) =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        yield* sql.unsafe(`CREATE SEQUENCE ${run}_seen`)
        yield* sql.unsafe(`CREATE TABLE ${run}_refuse (x int)`)
        yield* sql.unsafe(`INSERT INTO ${run}_refuse VALUES (1)`)
        yield* sql.unsafe(`CREATE FUNCTION ${run}_f() RETURNS trigger LANGUAGE plpgsql AS $$
          BEGIN
            IF NEW.subject LIKE '${run}-%' AND EXISTS (SELECT 1 FROM ${run}_refuse) THEN
              PERFORM nextval('${run}_seen');
              RAISE EXCEPTION 'refused by the test';
            END IF;
            RETURN NEW;
          END $$`)
        yield* sql.unsafe(`CREATE TRIGGER ${run}_t BEFORE INSERT ON tracked FOR EACH ROW EXECUTE FUNCTION ${run}_f()`)
        const refusals = Effect.map(
          sql<{ n: string }>`SELECT CASE WHEN is_called THEN last_value ELSE 0 END AS n FROM ${sql(`${run}_seen`)}`,
          (r) => Number(r[0]?.n ?? 0)
        )
        const waitFor = (n: number) =>
          Effect.repeat(refusals, { until: (k) => k >= n, schedule: Schedule.spaced("20 millis") }).pipe(
            Effect.timeout("10 seconds")
          )
        const admit = sql.unsafe(`DELETE FROM ${run}_refuse`)
        const drop = Effect.ignore(
          Effect.zipRight(
            sql.unsafe(`DROP TRIGGER ${run}_t ON tracked`),
            sql.unsafe(`DROP FUNCTION ${run}_f(); DROP TABLE ${run}_refuse; DROP SEQUENCE ${run}_seen`)
          )
        )
        const written = Effect.map(
          sql<{ demanded_at: Date }>`SELECT demanded_at FROM tracked WHERE subject LIKE ${`${run}-%`}`,
          (r) => r.map((x) => new Date(x.demanded_at).toISOString())
        )
        return { waitFor, admit, drop, written }
      })

    const noted = (run: string, at: string): Demand.Noted => ({
      freshnessKey: `${run}-k`,
      platform: "short_video",
      op: "profiles",
      subject: `${run}-one`,
      request: Object.freeze({ op: "profiles", subjects: [`${run}-one`] }),
      demandedAt: new Date(at)
    })

    it.live(
      "a flush whose write fails keeps its entries: the next flush writes them",
      () =>
        Effect.gen(function* () {
          const run = `r${Date.now().toString(36)}a`
          const t = yield* refusing(run)
          yield* Effect.scoped(
            Effect.gen(function* () {
              const demand = Context.get(yield* Layer.build(PgDemand.layer({ flushEvery: "1 second" })), Demand.Demand)
              yield* demand.note("account", [noted(run, "2026-11-20T10:00:00.000Z")])
              yield* t.waitFor(1)
              yield* t.admit
              assert.deepStrictEqual(yield* t.written, [])
              yield* Effect.repeat(t.written, {
                until: (w) => w.length > 0,
                schedule: Schedule.spaced("50 millis")
              }).pipe(Effect.timeout("5 seconds"))
            })
          )
          assert.deepStrictEqual(yield* t.written, ["2026-11-20T10:00:00.000Z"])
          yield* t.drop
        }).pipe(Effect.provide(Layer.unwrapScoped(Effect.map(t.target, Database.layer)))),
      { timeout: 60_000 }
    )

    it.live(
      "an entry noted again after a failed write gets its own two tries: written with the later time",
      () =>
        Effect.gen(function* () {
          const run = `r${Date.now().toString(36)}c`
          const t = yield* refusing(run)
          yield* Effect.scoped(
            Effect.gen(function* () {
              const demand = Context.get(yield* Layer.build(PgDemand.layer({ flushEvery: "1 second" })), Demand.Demand)
              const first = noted(run, "2026-11-20T10:00:00.000Z")
              yield* demand.note("account", [first])
              yield* t.waitFor(1)
              yield* demand.note("account", [{ ...first, demandedAt: new Date("2026-11-20T11:00:00.000Z") }])
              yield* t.waitFor(2)
              yield* t.admit
              yield* Effect.repeat(t.written, {
                until: (w) => w.length > 0,
                schedule: Schedule.spaced("50 millis")
              }).pipe(Effect.timeout("5 seconds"))
            })
          )
          assert.deepStrictEqual(yield* t.written, ["2026-11-20T11:00:00.000Z"])
          yield* t.drop
        }).pipe(Effect.provide(Layer.unwrapScoped(Effect.map(t.target, Database.layer)))),
      { timeout: 60_000 }
    )

    it.live(
      "an entry whose write fails twice is dropped: the buffer does not grow on a refused row",
      () =>
        Effect.gen(function* () {
          const run = `r${Date.now().toString(36)}b`
          const t = yield* refusing(run)
          yield* Effect.scoped(
            Effect.gen(function* () {
              const demand = Context.get(
                yield* Layer.build(PgDemand.layer({ flushEvery: "200 millis" })),
                Demand.Demand
              )
              yield* demand.note("account", [noted(run, "2026-11-20T10:00:00.000Z")])
              yield* t.waitFor(2)
              yield* t.admit
              yield* Effect.sleep("1 second")
            })
          )
          assert.deepStrictEqual(yield* t.written, [])
          yield* t.drop
        }).pipe(Effect.provide(Layer.unwrapScoped(Effect.map(t.target, Database.layer)))),
      { timeout: 60_000 }
    )
  })
}
