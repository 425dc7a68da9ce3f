// The job queue on both storage targets (the real server and the embedded PGlite over its one connection): keys are
// unique, the claim follows priority and never passes a lane's limit across workers (lanes with nothing runnable are
// passed over), a lease renewed by heartbeat is kept, a job's slots count against its lane's limit, a lease that runs
// out is taken over (and says from whom), a transient failure comes back after its delay and ends failed with its
// reason when its attempts are spent, a clean stop gives jobs back, ended jobs are cleaned up.
import { SqlClient } from "@effect/sql"
import { assert, describe, layer } from "@effect/vitest"
import { JobQueue } from "@pdr/domain"
import { Effect, Layer } from "effect"
import { Database, PgJobQueue } from "../src/index.js"
import * as Testing from "../src/Testing.js"

const targets = await Testing.targets()

const sleep = (ms: number) => Effect.promise(() => new Promise((r) => setTimeout(r, ms)))

for (const t of targets) {
  describe.skipIf(!t.enabled)(`PgJobQueue on ${t.name}`, () => {
    const services = PgJobQueue.layer.pipe(Layer.provideMerge(Layer.unwrapScoped(Effect.map(t.target, Database.layer))))
    layer(services, { timeout: 60_000 })((it) => {
      it.effect("keys are unique; the claim follows priority and lanes' limits hold across workers", () =>
        Effect.gen(function* () {
          const q = yield* JobQueue.JobQueue
          const jobs = Array.from({ length: 6 }, (_, i) => ({
            key: `k${i}`,
            payload: { i },
            group: "g1",
            lane: i % 2 === 0 ? "a" : "b",
            priority: 10 - i
          }))
          assert.strictEqual(yield* q.offer("t1", jobs), 6)
          assert.strictEqual(yield* q.offer("t1", jobs.slice(0, 3)), 0)
          const lanes = ["a", "b"]
          const w1 = yield* q.claim({ queue: "t1", worker: "w1", limit: 10, leaseMs: 5000, lanes, laneLimit: 2 })
          // lane a: k4 then k2 (lower priority first); lane b: k5 then k3
          assert.deepStrictEqual(
            w1.map((j) => j.key),
            ["k4", "k2", "k5", "k3"]
          )
          assert.strictEqual(w1[0]!.attempts, 1)
          // another worker gets nothing: both lanes are at their limit
          const w2 = yield* q.claim({ queue: "t1", worker: "w2", limit: 10, leaseMs: 5000, lanes, laneLimit: 2 })
          assert.deepStrictEqual(w2, [])
          assert.strictEqual(yield* q.complete("w1", [w1[0]!.id]), 1)
          // a worker completes only what it holds
          assert.strictEqual(yield* q.complete("w2", [w1[1]!.id]), 0)
          const w2b = yield* q.claim({ queue: "t1", worker: "w2", limit: 10, leaseMs: 5000, lanes, laneLimit: 2 })
          assert.deepStrictEqual(
            w2b.map((j) => j.key),
            ["k0"]
          )
          assert.deepStrictEqual(yield* q.group("t1", "g1"), { open: true, failed: 0 })
        })
      )

      it.effect(
        "a job's slots count against its lane's limit across workers; one bigger than the limit counts at it",
        () =>
          Effect.gen(function* () {
            const q = yield* JobQueue.JobQueue
            // lane a, limit 5: a job of 4 slots, one of 2, one of 1, one of 9 (counted as 5), in priority order
            const jobs = [4, 2, 1, 9].map((slots, i) => ({ key: `s${i}`, payload: {}, lane: "a", priority: i, slots }))
            assert.strictEqual(yield* q.offer("t5", jobs), 4)
            const claim = (worker: string) =>
              q.claim({ queue: "t5", worker, limit: 10, leaseMs: 5000, lanes: ["a"], laneLimit: 5 })
            // 4 fit, 4 + 2 would pass the limit: the claim stops there (never skipping ahead of a higher priority)
            const w1 = yield* claim("w1")
            assert.deepStrictEqual(
              w1.map((j) => j.key),
              ["s0"]
            )
            assert.deepStrictEqual(yield* claim("w2"), [])
            assert.strictEqual(yield* q.complete("w1", [w1[0]!.id]), 1)
            const w2 = yield* claim("w2")
            assert.deepStrictEqual(
              w2.map((j) => j.key),
              ["s1", "s2"]
            )
            assert.strictEqual(
              yield* q.complete(
                "w2",
                w2.map((j) => j.id)
              ),
              2
            )
            // the biggest runs alone, at the limit
            assert.deepStrictEqual(
              (yield* claim("w1")).map((j) => j.key),
              ["s3"]
            )
            assert.deepStrictEqual(yield* claim("w2"), [])
          })
      )

      it.effect(
        "a claim over many lanes passes over those with nothing runnable (a job waiting for its retry's delay too)",
        () =>
          Effect.gen(function* () {
            const q = yield* JobQueue.JobQueue
            // 16 lanes, as the refresh claims (one per platform); work in two of them, limit 3 slots per lane
            const lanes = Array.from({ length: 16 }, (_, i) => `l${i}`)
            yield* q.offer("t6", [
              { key: "a1", payload: {}, lane: "l3", priority: 1, slots: 2 },
              { key: "a2", payload: {}, lane: "l3", priority: 2, slots: 2 },
              { key: "b1", payload: {}, lane: "l9", priority: 1, slots: 1 }
            ])
            const claim = (worker: string, from = lanes) =>
              q.claim({ queue: "t6", worker, limit: 10, leaseMs: 5000, lanes: from, laneLimit: 3 })
            // l3: a1 (2 slots; a2 would pass the limit), l9: b1
            const w1 = yield* claim("w1")
            assert.deepStrictEqual(w1.map((j) => j.key).sort(), ["a1", "b1"])
            // b1 comes back after a delay: not runnable before it, and l3 has no room for a2
            yield* q.retry({ worker: "w1", id: w1.find((j) => j.key === "b1")!.id, reason: "later", delayMs: 300 })
            assert.deepStrictEqual(yield* claim("w2", [...lanes.slice(9), ...lanes.slice(0, 9)]), [])
            yield* sleep(400)
            assert.deepStrictEqual(
              (yield* claim("w2")).map((j) => j.key),
              ["b1"]
            )
            // a1 completed: its room claims a2
            assert.strictEqual(yield* q.complete("w1", [w1.find((j) => j.key === "a1")!.id]), 1)
            assert.deepStrictEqual(
              (yield* claim("w2")).map((j) => j.key),
              ["a2"]
            )
            assert.deepStrictEqual(yield* claim("w3"), [])
          })
      )

      it.effect("a lease renewed by heartbeat is kept; one that runs out is taken over, naming its worker", () =>
        Effect.gen(function* () {
          const q = yield* JobQueue.JobQueue
          yield* q.offer("t2", [
            { key: "x", payload: 1 },
            { key: "y", payload: 2 },
            { key: "o", payload: 3 }
          ])
          const claim = (worker: string, limit: number) =>
            q.claim({ queue: "t2", worker, limit, leaseMs: 600, lanes: [], laneLimit: 0 })
          const [x] = yield* claim("alive", 1)
          const [y] = yield* claim("dead", 1)
          // claimed by "alive" too, but its claim's answer was lost (the connection cut): the worker does not run it
          // and does not name it to its heartbeat
          const [o] = yield* claim("alive", 1)
          assert.deepStrictEqual([x!.key, y!.key, o!.key], ["x", "y", "o"])
          for (let i = 0; i < 4; i++) {
            yield* sleep(250)
            assert.deepStrictEqual(yield* q.heartbeat("alive", 600, [x!.id]), [x!.id])
          }
          // the orphan ran out with the dead worker's job, and both are taken over
          const taken = yield* claim("other", 5)
          assert.deepStrictEqual(
            taken.map((j) => [j.key, j.takenOverFrom, j.attempts]),
            [
              ["y", "dead", 2],
              ["o", "alive", 2]
            ]
          )
          assert.deepStrictEqual(yield* q.heartbeat("alive", 600, [x!.id, o!.id]), [x!.id])
          // the stopped worker can no longer complete it
          assert.strictEqual(yield* q.complete("dead", [y!.id]), 0)
          assert.strictEqual(yield* q.complete("other", [y!.id]), 1)
          // a clean stop gives the job back, its claim not counted
          assert.strictEqual(yield* q.release("alive"), 1)
          const again = yield* claim("next", 5)
          assert.deepStrictEqual(
            again.map((j) => [j.key, j.attempts]),
            [["x", 1]]
          )
        })
      )

      it.effect("a transient failure comes back after its delay; attempts spent, it ends failed with its reason", () =>
        Effect.gen(function* () {
          const q = yield* JobQueue.JobQueue
          yield* q.offer("t3", [{ key: "p", payload: 0, group: "g" }], { maxAttempts: 2 })
          const claim = () => q.claim({ queue: "t3", worker: "w", limit: 5, leaseMs: 5000, lanes: [], laneLimit: 0 })
          const [a] = yield* claim()
          yield* q.retry({ worker: "w", id: a!.id, reason: "boom 1", delayMs: 300, attempts: a!.attempts })
          assert.deepStrictEqual(yield* claim(), []) // not before its delay
          yield* sleep(400)
          const [b] = yield* claim()
          assert.strictEqual(b!.attempts, 2)
          // the first attempt's retry or fail sent again (its answer was lost after it committed) does not end the
          // job's new claim by the same worker
          yield* q.retry({ worker: "w", id: a!.id, reason: "boom 1", delayMs: 300, attempts: a!.attempts })
          yield* q.fail("w", a!.id, "boom 1", a!.attempts)
          assert.deepStrictEqual(yield* q.heartbeat("w", 5000, [b!.id]), [b!.id])
          yield* q.retry({ worker: "w", id: b!.id, reason: "boom 2", delayMs: 0 })
          assert.deepStrictEqual(yield* claim(), [])
          assert.deepStrictEqual(yield* q.group("t3", "g"), { open: false, failed: 1 })
          assert.deepStrictEqual(yield* q.failures("t3", "g", 10), [{ key: "p", reason: "boom 2" }])
          assert.strictEqual(yield* q.retryFailed("t3", "g"), 1)
          const [c] = yield* claim()
          assert.strictEqual(c!.attempts, 1)
          yield* q.fail("w", c!.id, "permanent")
          assert.deepStrictEqual(yield* q.failures("t3", "g", 10), [{ key: "p", reason: "permanent" }])
          // ended jobs of the queue older than the cut are deleted; another queue's are not
          yield* q.offer("t3other", [{ key: "o", payload: 0 }])
          const [o] = yield* q.claim({
            queue: "t3other",
            worker: "w",
            limit: 1,
            leaseMs: 5000,
            lanes: [],
            laneLimit: 0
          })
          yield* q.complete("w", [o!.id])
          assert.strictEqual(yield* q.cleanup("t3", new Date(Date.now() - 60_000)), 0)
          const sql = yield* SqlClient.SqlClient
          const count = (queue: string) =>
            Effect.map(
              sql`SELECT count(*)::int AS n FROM jobs WHERE queue = ${queue} AND state IN ('done', 'failed')`,
              (rows) => Number(rows[0]!["n"])
            )
          assert.isAbove(yield* count("t3"), 0)
          yield* q.cleanup("t3", new Date(Date.now() + 60_000))
          assert.strictEqual(yield* count("t3"), 0)
          assert.strictEqual(yield* count("t3other"), 1)
        })
      )

      it.effect(
        "a started job runs under its worker at once; its lease is renewed, and taken over once it ran out",
        () =>
          Effect.gen(function* () {
            const q = yield* JobQueue.JobQueue
            const start = (key: string) =>
              q.start({ queue: "t4", worker: "starter1", job: { key, payload: { key } }, leaseMs: 400, maxAttempts: 3 })
            const started = yield* start("s1")
            assert.isTrue(started._tag === "Some")
            const job = (started as { value: JobQueue.Job }).value
            assert.deepStrictEqual(
              { key: job.key, attempts: job.attempts, maxAttempts: job.maxAttempts, takenOverFrom: job.takenOverFrom },
              { key: "s1", attempts: 1, maxAttempts: 3, takenOverFrom: null }
            )
            // a key already in the queue is refused
            assert.strictEqual((yield* start("s1"))._tag, "None")
            // nobody else claims it while its lease is renewed
            const claim = () =>
              q.claim({ queue: "t4", worker: "starter2", limit: 5, leaseMs: 5000, lanes: [], laneLimit: 0 })
            assert.deepStrictEqual(yield* claim(), [])
            yield* sleep(250)
            assert.deepStrictEqual(yield* q.heartbeat("starter1", 400, [job.id]), [job.id])
            yield* sleep(250)
            assert.deepStrictEqual(yield* claim(), [])
            // its worker stops renewing it: the next claim takes it over and says from whom
            yield* sleep(500)
            const [taken] = yield* claim()
            assert.deepStrictEqual(
              { key: taken!.key, attempts: taken!.attempts, takenOverFrom: taken!.takenOverFrom },
              { key: "s1", attempts: 2, takenOverFrom: "starter1" }
            )
            // the stalled worker's heartbeat no longer holds it, and it cannot end it
            assert.deepStrictEqual(yield* q.heartbeat("starter1", 400, [job.id]), [])
            assert.strictEqual(yield* q.complete("starter1", [job.id]), 0)
            assert.strictEqual(yield* q.complete("starter2", [job.id]), 1)
          })
      )
    })
  })
}
