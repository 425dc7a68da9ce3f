// The job engine's spread (issue 19, r2 / r1'): jobs claimed together start `spreadMs` apart in all, so a worker's
// jobs do not run in step; without it they start at once. And a lane at its limit: the next job is claimed as soon as
// a finished job is completed, not after the idle wait. On the real server (the jobs table, the indexed claim).

import { Core, JobEngine } from "@pdr/core"
import { JobQueue } from "@pdr/domain"
import * as Testing from "@pdr/store-pg/Testing"
import { Deferred, Effect, Exit, ManagedRuntime, Scope } from "effect"
import { describe, expect, it } from "vitest"

const targets = (await Testing.targets()).filter((t) => t.name !== "embedded")

type T = (typeof targets)[number]

const runtimeOf = (target: Parameters<typeof Core.layer>[0]["target"]) =>
  ManagedRuntime.make(Core.layer({ target, knobs: { shortLists: false } }))

/** Runs `body` on the core's layers over the target's database (the real jobs table), then disposes of them. */
const onCore = async <A, E>(
  t: T,
  body: Effect.Effect<A, E, ManagedRuntime.ManagedRuntime.Context<ReturnType<typeof runtimeOf>>>
) => {
  const scope = Effect.runSync(Scope.make())
  const target = await Effect.runPromise(Scope.extend(t.target, scope))
  const runtime = runtimeOf(target)
  try {
    return await runtime.runPromise(body)
  } finally {
    await runtime.dispose()
    await Effect.runPromise(Scope.close(scope, Exit.void))
  }
}

/** Starts of 8 jobs claimed together by one worker of 8, in ms from the first; every job ran once. */
const starts = (t: T, spreadMs: number | undefined, spreadGroups?: number) =>
  onCore(
    t,
    Effect.gen(function* () {
      const jobs = yield* JobQueue.JobQueue
      const queue = "spread"
      yield* jobs.offer(
        queue,
        Array.from({ length: 8 }, (_, i) => ({ key: `k${i}`, payload: { i }, lane: "l" }))
      )
      const at = new Map<string, number>()
      const all = yield* Deferred.make<void>()
      yield* Effect.scoped(
        Effect.gen(function* () {
          const w = yield* JobEngine.run({
            queue,
            worker: "w",
            concurrency: 8,
            leaseMs: 5000,
            lanes: ["l"],
            laneLimit: 8,
            ...(spreadMs === undefined ? {} : { spreadMs }),
            ...(spreadGroups === undefined ? {} : { spreadGroups }),
            handle: (job) =>
              Effect.suspend(() => {
                at.set(job.key, Date.now())
                return at.size === 8 ? Deferred.succeed(all, undefined) : Effect.void
              })
          })
          yield* Deferred.await(all)
          yield* w.settled
        })
      )
      const done = yield* jobs.group(queue, "")
      const times = [...at.values()].sort((a, b) => a - b)
      return { starts: times.map((x) => x - times[0]!), open: done.open }
    })
  )

/**
 * Starts of 4 jobs of one lane whose limit is one job at a time, run by one worker of 2 whose idle wait is 5 s: in ms
 * from the first; every job ran once.
 */
const laneStarts = (t: T) =>
  onCore(
    t,
    Effect.gen(function* () {
      const jobs = yield* JobQueue.JobQueue
      const queue = "lanefull"
      yield* jobs.offer(
        queue,
        Array.from({ length: 4 }, (_, i) => ({ key: `k${i}`, payload: { i }, lane: "l" }))
      )
      const at: Array<number> = []
      const all = yield* Deferred.make<void>()
      yield* Effect.scoped(
        Effect.gen(function* () {
          const w = yield* JobEngine.run({
            queue,
            worker: "w",
            concurrency: 2,
            leaseMs: 20_000,
            lanes: ["l"],
            laneLimit: 1,
            idleMs: 5000,
            handle: () =>
              Effect.suspend(() => {
                at.push(Date.now())
                return Effect.zipRight(
                  Effect.sleep("50 millis"),
                  at.length === 4 ? Deferred.succeed(all, undefined) : Effect.void
                )
              })
          })
          yield* Deferred.await(all)
          yield* w.settled
        })
      )
      const done = yield* jobs.group(queue, "")
      return { starts: at.map((x) => x - at[0]!), open: done.open }
    })
  )

/**
 * 6 jobs of one lane (limit 2 jobs) run by a worker of 4 whose store loses the answer of its first claim after the claim
 * committed (the connection cut as the answer came back): the jobs that claim took are held by the worker's name but
 * run nowhere. The time each job ran, in ms from the start, and whether the queue still has open jobs after 20 s.
 */
const afterLostClaim = (t: T) =>
  onCore(
    t,
    Effect.gen(function* () {
      const real = yield* JobQueue.JobQueue
      const queue = "lostclaim"
      yield* real.offer(
        queue,
        Array.from({ length: 6 }, (_, i) => ({ key: `k${i}`, payload: { i }, lane: "l" }))
      )
      let lost = 0
      const losing = JobQueue.JobQueue.of({
        ...real,
        claim: (input) =>
          lost++ === 0
            ? Effect.zipRight(
                real.claim(input),
                Effect.fail(new JobQueue.JobQueueUnavailable({ detail: "Connection terminated unexpectedly" }))
              )
            : real.claim(input)
      })
      const t0 = Date.now()
      const ran = new Map<string, number>()
      const all = yield* Deferred.make<void>()
      yield* Effect.scoped(
        Effect.gen(function* () {
          const w = yield* JobEngine.run({
            queue,
            worker: "w",
            concurrency: 4,
            leaseMs: 1500,
            lanes: ["l"],
            laneLimit: 2,
            idleMs: 100,
            handle: (job) =>
              Effect.suspend(() => {
                ran.set(job.key, Date.now() - t0)
                return ran.size === 6 ? Deferred.succeed(all, undefined) : Effect.void
              })
          })
          yield* Effect.race(Deferred.await(all), Effect.sleep("20 seconds"))
          yield* w.settled
        }).pipe(Effect.provideService(JobQueue.JobQueue, losing))
      )
      const done = yield* real.group(queue, "")
      return { ran, open: done.open, lost }
    })
  )

for (const t of targets) {
  describe.skipIf(!t.enabled)(`JobEngine on ${t.name}`, () => {
    it("issue 19: jobs whose claim committed but whose answer was lost are not renewed by the heartbeat: their lease runs out and they are taken over, and the lane is not held by them for good", async () => {
      // before: the heartbeat renewed every job named by the worker, so the two lost jobs kept the lane (limit 2)
      // full for good: the other four never ran and the pass never ended (apps/runner's storm test, 2 runs in 8)
      const { ran, open, lost } = await afterLostClaim(t)
      expect(lost).toBeGreaterThan(1)
      expect([...ran.keys()].sort()).toEqual(["k0", "k1", "k2", "k3", "k4", "k5"])
      expect(open).toBe(false)
      // taken over once their 1.5 s lease ran out (the claim that finds them gone runs every idle wait)
      expect(Math.max(...ran.values())).toBeLessThan(10_000)
    }, 60_000)

    it("jobs claimed together start spread over spreadMs (each apart, or in groups), not at once; each runs once", async () => {
      const { starts: spread, open } = await starts(t, 800)
      expect(open).toBe(false)
      expect(spread).toHaveLength(8)
      // the i-th is planned i x 800 / 8 ms after the claim: the last 700 ms after the first (timers fire late, never
      // early). Each timer is late by its own amount on a loaded machine (a fresh-clone CI saw two neighbours 50 ms
      // apart), so each start is checked against its planned offset, allowing the first start to be late by up to
      // one step, not the gap between neighbours
      expect(spread.at(-1)!).toBeGreaterThanOrEqual(650)
      for (let i = 1; i < 8; i++) expect(spread[i]!, `start ${i} of ${spread}`).toBeGreaterThanOrEqual(i * 100 - 100)
      const { starts: together } = await starts(t, undefined)
      expect(together).toHaveLength(8)
      expect(together.at(-1)!).toBeLessThan(400)
      // in 2 groups of 4: the second group 400 ms after the first
      const { starts: grouped } = await starts(t, 800, 2)
      expect(grouped.at(-1)! - grouped[4]!).toBeLessThan(300)
      expect(grouped[4]! - grouped[3]!).toBeGreaterThanOrEqual(250)
    }, 60_000)

    it("a lane at its limit: the next job is claimed once a finished job is completed, not after the idle wait", async () => {
      // the finished job holds its lane's room until it is completed (the flusher's batch); the claim made when it
      // ended finds the lane full, and the one made after its completion takes the next job. Without that second
      // claim each next job waited for the 5 s idle wait (checked: 5.0-5.1 s apart)
      const { starts, open } = await laneStarts(t)
      expect(open).toBe(false)
      expect(starts).toHaveLength(4)
      for (let i = 1; i < 4; i++) expect(starts[i]! - starts[i - 1]!, `starts ${starts}`).toBeLessThan(2500)
    }, 60_000)
  })
}
