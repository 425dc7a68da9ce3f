/**
 * A worker over the JobQueue port, for any queue (the nightly refresh; long provider calls): claims only as many jobs
 * as it has free workers and only in lanes under their limit (a claimed job never waits for a slot), renews its
 * leases by heartbeat, completes finished jobs in batches after the caller's `record` of their results, retries a
 * transient failure with exponential backoff and ends a job failed with its reason when its attempts are spent (after
 * `onGiveUp`). Every failure, of a job or of the store, is logged and survived: a dropped connection only delays.
 * A clean stop gives its running jobs back; a killed worker's are taken over when their lease runs out.
 */
import { JobQueue } from "@pdr/domain"
import { Cause, Deferred, Duration, Effect, Exit, Fiber, Option, Queue, Ref, Schedule, Schema } from "effect"

/** A job that did not succeed: `transient` ones run again after a backoff, until their attempts are spent. */
export class JobFailed extends Schema.TaggedError<JobFailed>()("JobFailed", {
  reason: Schema.String,
  transient: Schema.Boolean,
  /**
   * A transient failure whose cause is known to last this long (an upstream host's open circuit): the next attempt
   * waits at least this many ms, rather than spending its attempts on a host that refuses them meanwhile.
   */
  retryInMs: Schema.optional(Schema.Number)
}) {}

/** How a worker runs. */
export interface Options<A> {
  readonly queue: string
  /** This worker's id, unique per process (its leases and holds are named by it). */
  readonly worker: string
  readonly concurrency: number
  readonly leaseMs: number
  /** The lanes to claim from, in the order given (rotated each claim), and the running limit of each lane. */
  readonly lanes: ReadonlyArray<string>
  readonly laneLimit: number
  /** The first retry's delay; each next one doubles, up to 60 s, with jitter. */
  readonly backoffMs?: number
  /** How long to wait before claiming again when nothing was runnable. */
  readonly idleMs?: number
  /**
   * Jobs claimed together start in up to `spreadGroups` groups of `concurrency / spreadGroups` jobs, the g-th
   * g x spreadMs / spreadGroups after the first, so a worker's jobs do not all run in step: one group's CPU work (its
   * statements, its calls' own work) overlaps the others' waits on round trips. 0 (the default): all at once.
   */
  readonly spreadMs?: number
  /** Groups of a spread (default `concurrency`: each job its own); a claim of one group's jobs or fewer starts at once. */
  readonly spreadGroups?: number
  readonly handle: (job: JobQueue.Job) => Effect.Effect<A, JobFailed>
  /** Writes finished jobs' results before they are completed (one batch); a refused row should fail only its job. */
  readonly record?: (
    done: ReadonlyArray<{ readonly job: JobQueue.Job; readonly value: A }>
  ) => Effect.Effect<ReadonlyArray<{ readonly job: JobQueue.Job; readonly reason: string }>, unknown>
  /**
   * A job whose handler returned and whose result says it is not over (part of its work comes back later): the reason
   * it runs again (and the least wait before it, `retryInMs`), after its result is recorded and a backoff, as a
   * transient failure would.
   */
  readonly again?: (value: A) => { readonly reason: string; readonly retryInMs?: number } | undefined
  /** Called before a job ends failed (its attempts spent, or a permanent failure). */
  readonly onGiveUp?: (job: JobQueue.Job, reason: string) => Effect.Effect<void, unknown>
}

/** The delay before attempt `attempts + 1`. */
export const backoff = (attempts: number, baseMs: number) =>
  Math.min(60_000, baseMs * 2 ** Math.max(0, attempts - 1)) * (0.75 + Math.random() * 0.5)

/** Why a job did not succeed; `retryInMs`, the least wait before its next attempt. */
interface Why {
  readonly reason: string
  readonly transient: boolean
  readonly retryInMs?: number | undefined
}

const reasonOf = (cause: Cause.Cause<JobFailed>): Why => {
  const failure = Cause.failureOption(cause)
  if (failure._tag === "Some")
    return { reason: failure.value.reason, transient: failure.value.transient, retryInMs: failure.value.retryInMs }
  const first = Cause.pretty(cause).split("\n")[0] ?? "unknown defect"
  return { reason: first, transient: true }
}

/** Retries a store operation until it succeeds (a dropped connection is retried), logging each failure. */
const persist = <A, E>(what: string, effect: Effect.Effect<A, E>) =>
  effect.pipe(
    Effect.tapErrorCause((cause) => Effect.logWarning(`job queue: ${what} failed; retrying`, Cause.pretty(cause))),
    Effect.retry(Schedule.exponential(Duration.millis(100)).pipe(Schedule.union(Schedule.spaced(Duration.seconds(2))))),
    // the schedule never ends: what is left is a defect
    Effect.orDie
  )

/**
 * Runs the worker until interrupted (scoped: an interruption gives its running jobs back). `stats` counts what it did.
 */
export const run = <A>(options: Options<A>) =>
  Effect.gen(function* () {
    const queue = yield* JobQueue.JobQueue
    const baseMs = options.backoffMs ?? 500
    const idleMs = options.idleMs ?? 200
    const spreadGroups = Math.max(1, Math.min(options.concurrency, options.spreadGroups ?? options.concurrency))
    const perGroup = Math.max(1, Math.ceil(options.concurrency / spreadGroups))
    const groupDelay = (options.spreadMs ?? 0) / spreadGroups
    const inflight = new Map<string, Fiber.RuntimeFiber<void, never>>()
    // the jobs this process holds (running, or ended and not yet completed, retried or failed in the store): the only
    // leases its heartbeat renews. A claim (or a start) that committed but whose answer was lost (its connection cut)
    // left jobs named by this worker that run nowhere: renewed with the rest, they held their lane's room for good and
    // the pass never ended (the storm test of apps/runner's Outage.test.ts); now their lease runs out and they are
    // taken over like a stopped worker's
    const held = new Set<string>()
    // a job ended (a worker is free), or jobs were added (`wake`): the dispatcher claims again
    const finished = yield* Queue.unbounded<void>()
    // wakes the flusher: a job's result to record, or a caller of `settled` waiting
    const toFlush = yield* Queue.unbounded<void>()
    const toRecord: Array<{ readonly job: JobQueue.Job; readonly value: A }> = []
    const flushed = yield* Ref.make(0)
    // signalled after each batch of finished jobs is completed (the latest signal kept): a caller waiting for the end
    // of a pass looks at once, rather than at its next poll
    const completions = yield* Queue.sliding<void>(1)
    let recording: Deferred.Deferred<void> | undefined

    /** A job that did not succeed: retried later, or ended failed (after onGiveUp). */
    const giveBack = (job: JobQueue.Job, failure: Why) =>
      Effect.gen(function* () {
        const last = !failure.transient || job.attempts >= job.maxAttempts
        if (last) {
          if (options.onGiveUp !== undefined)
            yield* options
              .onGiveUp(job, failure.reason)
              .pipe(
                Effect.catchAllCause((cause) =>
                  Effect.logError(
                    "job queue: recording a failed job's end failed",
                    { job: job.key },
                    Cause.pretty(cause)
                  )
                )
              )
          // at this attempt only: sent again after a lost answer, it never ends a new claim of the job
          yield* persist("fail", queue.fail(options.worker, job.id, failure.reason, job.attempts))
          yield* Effect.logWarning("job failed", { queue: options.queue, job: job.key, reason: failure.reason })
        } else {
          yield* persist(
            "retry",
            queue.retry({
              worker: options.worker,
              id: job.id,
              reason: failure.reason,
              // the backoff, or longer when the failure's cause is known to last longer (an open circuit)
              delayMs: Math.max(backoff(job.attempts, baseMs), failure.retryInMs ?? 0),
              attempts: job.attempts
            })
          )
        }
        held.delete(job.id)
      })

    /** Records then completes the finished jobs, in one batch; a row the store refuses fails only its job. */
    const flush = Effect.gen(function* () {
      if (toRecord.length === 0) return
      const batch = toRecord.splice(0, toRecord.length)
      const refused =
        options.record === undefined
          ? []
          : yield* persist(
              "recording results",
              options.record(batch) as Effect.Effect<ReadonlyArray<{ job: JobQueue.Job; reason: string }>, unknown>
            )
      const refusedIds = new Set(refused.map((r) => r.job.id))
      const again: Array<{ job: JobQueue.Job; reason: string; retryInMs?: number | undefined }> = []
      for (const b of batch) {
        const why = refusedIds.has(b.job.id) ? undefined : options.again?.(b.value)
        if (why !== undefined) again.push({ job: b.job, reason: why.reason, retryInMs: why.retryInMs })
      }
      const againIds = new Set(again.map((a) => a.job.id))
      const completed = batch.filter((b) => !refusedIds.has(b.job.id) && !againIds.has(b.job.id)).map((b) => b.job.id)
      yield* persist("complete", queue.complete(options.worker, completed))
      for (const id of completed) held.delete(id)
      for (const r of refused) yield* giveBack(r.job, { reason: r.reason, transient: true })
      for (const r of again) yield* giveBack(r.job, { reason: r.reason, transient: true, retryInMs: r.retryInMs })
      yield* Ref.update(flushed, (n) => n + batch.length)
      yield* Queue.offer(completions, undefined)
      // a job's lane room is given back only now (a finished job is running until it is completed): a claim that found
      // its lane full since the job ended is made again at once, not after the idle wait (a lane at its limit, as the
      // refresh's platforms are, waited the idle wait after each job)
      yield* Queue.offer(finished, undefined)
    })

    // results are recorded as soon as a job ends (those that end while a batch is written go in the next one): a
    // finished job holds its lane's room until it is completed, so waiting to batch more (it slept 20 ms) kept a lane
    // at its limit short of a job for that long after each end
    const flusher = Effect.gen(function* () {
      while (true) {
        yield* Queue.take(toFlush)
        yield* Queue.takeAll(toFlush)
        if (toRecord.length > 0) yield* flush
        if (recording !== undefined && toRecord.length === 0) yield* Deferred.succeed(recording, undefined)
      }
    })

    // jobs whose handler has returned (being recorded, retried or failed): their lease is no longer watched
    const ending = new Set<string>()
    const runJob = (job: JobQueue.Job, delayMs = 0) =>
      (delayMs > 0
        ? Effect.zipRight(Effect.sleep(Duration.millis(delayMs)), options.handle(job))
        : options.handle(job)
      ).pipe(
        Effect.exit,
        Effect.tap(() => Effect.sync(() => ending.add(job.id))),
        Effect.flatMap((exit) =>
          Exit.isSuccess(exit)
            ? Effect.sync(() => {
                toRecord.push({ job, value: exit.value })
                toFlush.unsafeOffer(undefined)
              })
            : Exit.isInterrupted(exit)
              ? // its lease was lost (it may run elsewhere now), or the worker stops (its jobs given back)
                Effect.sync(() => held.delete(job.id))
              : giveBack(job, reasonOf(exit.cause))
        ),
        Effect.catchAllCause((cause) =>
          Effect.logError("job queue: a job's end was not handled", { job: job.key }, Cause.pretty(cause))
        ),
        Effect.ensuring(
          Effect.suspend(() => {
            // stopped before its handler returned (its lease lost, or the worker stopping): no longer this process's
            if (!ending.has(job.id)) held.delete(job.id)
            inflight.delete(job.id)
            ending.delete(job.id)
            return Queue.offer(finished, undefined)
          })
        )
      )

    const heartbeat = Effect.gen(function* () {
      while (true) {
        yield* Effect.sleep(Duration.millis(Math.max(100, options.leaseMs / 3)))
        // only jobs running before the heartbeat's statement can be missing from its answer
        const before = [...inflight.keys()]
        const renewed = yield* queue.heartbeat(options.worker, options.leaseMs, [...held]).pipe(
          Effect.tapError((e) => Effect.logWarning("job queue: heartbeat failed; retrying", e.message)),
          Effect.option
        )
        if (renewed._tag === "None") continue
        const still = new Set(renewed.value)
        // a job whose lease ran out (this process stalled) may already run elsewhere: stop ours
        for (const id of before) {
          const fiber = inflight.get(id)
          if (fiber !== undefined && !still.has(id) && !ending.has(id)) {
            yield* Effect.logWarning("job queue: lease lost; stopping the job here", { id })
            yield* Fiber.interruptFork(fiber)
          }
        }
      }
    })

    let turn = 0
    const dispatcher = Effect.gen(function* () {
      while (true) {
        const free = options.concurrency - inflight.size
        if (free <= 0) {
          yield* Queue.take(finished)
          continue
        }
        const lanes =
          options.lanes.length <= 1
            ? options.lanes
            : [
                ...options.lanes.slice(turn % options.lanes.length),
                ...options.lanes.slice(0, turn % options.lanes.length)
              ]
        turn++
        // the signals so far are answered by this claim; one that comes during it makes the next claim at once
        yield* Queue.takeAll(finished)
        const claimed = yield* queue
          .claim({
            queue: options.queue,
            worker: options.worker,
            limit: free,
            leaseMs: options.leaseMs,
            lanes,
            laneLimit: options.laneLimit
          })
          .pipe(
            Effect.tapError((e) => Effect.logWarning("job queue: claim failed; retrying", e.message)),
            Effect.orElseSucceed(() => undefined)
          )
        if (claimed === undefined) {
          yield* Effect.sleep(Duration.millis(1000))
          continue
        }
        // jobs claimed together would run in step (their CPU work at once, then all waiting): spread out in groups
        for (const [i, job] of claimed.entries()) {
          held.add(job.id)
          inflight.set(job.id, yield* Effect.fork(runJob(job, Math.floor(i / perGroup) * groupDelay)))
        }
        if (claimed.length === 0) {
          // nothing runnable now: wait for a finished job, added jobs or the idle delay
          yield* Effect.race(Queue.take(finished), Effect.sleep(Duration.millis(idleMs)))
        }
      }
    })

    yield* Effect.addFinalizer(() =>
      Effect.gen(function* () {
        for (const fiber of inflight.values()) yield* Fiber.interrupt(fiber)
        // a database that does not answer is not waited for past 10 s (its statement is not interruptible)
        yield* flush.pipe(Effect.disconnect, Effect.timeout(Duration.seconds(10)), Effect.ignore)
        const n = yield* queue.release(options.worker).pipe(Effect.orElseSucceed(() => 0))
        if (n > 0) yield* Effect.logInfo("job queue: running jobs given back", { queue: options.queue, jobs: n })
      })
    )
    // a loop that meets a defect logs it and starts again: a worker never dies silently
    const supervised = (name: string, loop: Effect.Effect<never>) =>
      loop.pipe(
        Effect.catchAllCause((cause) =>
          Cause.isInterruptedOnly(cause)
            ? Effect.failCause(cause)
            : Effect.logError(`job queue: the ${name} stopped on a defect; restarting it`, Cause.pretty(cause)).pipe(
                Effect.zipRight(Effect.sleep(Duration.seconds(1)))
              )
        ),
        Effect.forever
      )
    yield* Effect.forkScoped(supervised("heartbeat", heartbeat))
    yield* Effect.forkScoped(supervised("flusher", flusher))
    yield* Effect.forkScoped(supervised("dispatcher", dispatcher))

    /**
     * Adds a job already claimed by this worker and runs it here at once (work that starts in the process that asked
     * for it); like a claimed job, its lease is renewed and it is taken over by any worker if this one stops. It does
     * not wait for a free slot. None when its key is already in the queue.
     */
    const scope = yield* Effect.scope
    const submit = (job: JobQueue.NewJob, maxAttempts: number) =>
      Effect.gen(function* () {
        const started = yield* queue.start({
          queue: options.queue,
          worker: options.worker,
          job,
          leaseMs: options.leaseMs,
          maxAttempts
        })
        if (Option.isSome(started)) {
          held.add(started.value.id)
          inflight.set(started.value.id, yield* Effect.forkIn(runJob(started.value), scope))
        }
        return started
      })

    /** Waits until every job finished so far is recorded and completed. */
    const settled = Effect.gen(function* () {
      const d = yield* Deferred.make<void>()
      recording = d
      yield* Queue.offer(toFlush, undefined)
      yield* Deferred.await(d)
    })
    /** Claims at once (jobs were just added), rather than after the idle wait. */
    const wake = Queue.offer(finished, undefined).pipe(Effect.asVoid)
    /** Waits for the next batch of finished jobs to be completed (at once when one was since the last wait). */
    const nextCompletion = Queue.take(completions)
    return {
      settled,
      submit,
      wake,
      inflight: () => inflight.size,
      completed: Ref.get(flushed),
      nextCompletion
    } as const
  })
