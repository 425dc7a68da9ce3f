// A call's record keeps its answer as it was sent (issue 21): given as its JSON text or as that text's UTF-8 (the
// server sends a large answer as bytes and records those bytes, issue 22), it reads back as the same text.

import { SqlClient } from "@effect/sql"
import { assert, describe, it } from "@effect/vitest"
import { CallStore } from "@pdr/domain"
import { Effect, Layer, Option } from "effect"
import { Database, PgCallStore } from "../src/index.js"
import * as Testing from "../src/Testing.js"

const targets = await Testing.targets()

for (const t of targets) {
  describe.skipIf(!t.enabled)(`CallStore on ${t.name}`, () => {
    it.live(
      "a record's answer given as text or as UTF-8 reads back as the same text, ASCII or not, small or large",
      () =>
        Effect.gen(function* () {
          const sql = yield* SqlClient.SqlClient
          const store = yield* CallStore.CallStore
          const run = `c${Date.now().toString(36)}`
          yield* sql`INSERT INTO accounts (id, name) VALUES (${run}, 'calls')`
          const now = new Date()
          const answers = [
            '{"data":[],"requestId":"req_1"}',
            JSON.stringify({ data: [{ title: 'café ☕ 𝄞 \u0000 \\ "' }] }),
            JSON.stringify({ data: Array.from({ length: 3000 }, (_, i) => ({ i, title: `é${i}` })) })
          ]
          const given = answers.flatMap((text, i) => [
            { id: `${run}-text-${i}`, answer: text, text },
            { id: `${run}-utf8-${i}`, answer: Buffer.from(text), text }
          ])
          yield* store.record(
            given.map((g) => ({
              id: g.id,
              accountId: run,
              keyId: "key",
              platform: "maps",
              op: "places",
              requestId: "req_1",
              httpStatus: 200,
              answer: g.answer,
              createdAt: now,
              finishedAt: now,
              expiresAt: new Date(now.getTime() + 60_000)
            }))
          )
          for (const g of given) {
            const found = yield* store.find({ accountId: run, id: g.id, now })
            assert.isTrue(Option.isSome(found), g.id)
            assert.strictEqual(Option.getOrThrow(found).answer, g.text, g.id)
          }
        }).pipe(
          Effect.provide(
            PgCallStore.layer.pipe(Layer.provideMerge(Layer.unwrapScoped(Effect.map(t.target, Database.layer))))
          )
        ),
      { timeout: 60_000 }
    )

    // D124: a finish whose connection was cut after it committed is run again; the second run finds its own end and
    // answers that it ended the call, changing nothing; another owner's, or a later finish, is refused
    it.live("a long call's finish run again answers it ended the call; another owner's finish is refused", () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const store = yield* CallStore.CallStore
        const run = `f${Date.now().toString(36)}`
        yield* sql`INSERT INTO accounts (id, name) VALUES (${run}, 'calls')`
        const now = new Date()
        const expiresAt = new Date(now.getTime() + 60_000)
        yield* store.begin({
          id: run,
          accountId: run,
          keyId: "key",
          platform: "maps",
          op: "places",
          body: "{}",
          idempotencyKey: "k",
          requestId: "req_1",
          owner: "w1",
          now,
          expiresAt
        })
        const finish = (owner: string, at: Date, answer: string) =>
          store.finish({ id: run, owner, status: "done", httpStatus: 200, answer, unitsDone: 1, now: at, expiresAt })
        assert.isFalse(yield* finish("w2", now, '{"other":true}'), "another owner")
        assert.isTrue(yield* finish("w1", now, '{"data":[]}'))
        assert.isTrue(yield* finish("w1", now, '{"data":[]}'), "its own end, found again")
        assert.isFalse(yield* finish("w1", new Date(now.getTime() + 1), '{"again":true}'), "a later end")
        const found = Option.getOrThrow(yield* store.find({ accountId: run, id: run, now }))
        assert.strictEqual(found.answer, '{"data":[]}')
        assert.strictEqual(found.status, "done")
      }).pipe(
        Effect.provide(
          PgCallStore.layer.pipe(Layer.provideMerge(Layer.unwrapScoped(Effect.map(t.target, Database.layer))))
        )
      )
    )
  })
}
