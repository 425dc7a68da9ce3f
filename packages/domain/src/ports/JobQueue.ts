/**
 * Port: a durable job queue shared by every process on the store. A job is a queue name, a key unique in its queue,
 * a JSON payload, a group (what a caller waits on, e.g. one refresh pass), a lane (jobs of one lane run at most
 * `laneLimit` at once across all workers, e.g. one platform) and a priority (lower first). A worker claims jobs with a
 * lease it renews by heartbeat; a job whose lease ran out (its worker stopped) is claimed again, by anyone. A job ends
 * `done` or `failed` with its reason; transient failures come back after a delay until `maxAttempts` claims.
 */
import { Context, type Effect, type Option, Schema } from "effect"

/** A job to add. */
export interface NewJob {
  /** Unique in its queue: a second offer of the same key is ignored. */
  readonly key: string
  readonly payload: unknown
  readonly group?: string
  readonly lane?: string
  /** Lower runs first (default 0). */
  readonly priority?: number
  /** The calls of its lane it makes at once, counted against the lane's limit (default 1). */
  readonly slots?: number
}

/** A claimed job. */
export interface Job {
  readonly id: string
  readonly queue: string
  readonly key: string
  readonly group: string
  readonly lane: string
  readonly payload: unknown
  /** Claims so far, this one included. */
  readonly attempts: number
  readonly maxAttempts: number
  /** The worker that stopped while it held this job (its lease ran out, or it gave the job back), if any. */
  readonly takenOverFrom: string | null
}

/** Where the jobs of a group stand: open ones still pending or running; counts of ended ones are not kept here. */
export interface GroupState {
  readonly open: boolean
  readonly failed: number
}

/** The queue's store could not be reached (a dropped connection, a restart): the caller retries. */
export class JobQueueUnavailable extends Schema.TaggedError<JobQueueUnavailable>()("JobQueueUnavailable", {
  detail: Schema.String
}) {
  override get message() {
    return `the job queue's store is unavailable: ${this.detail}`
  }
}

/** Port: the job queue. */
export class JobQueue extends Context.Tag("@pdr/domain/JobQueue")<
  JobQueue,
  {
    /** Adds jobs (keys already in the queue are ignored); returns how many were added. */
    readonly offer: (
      queue: string,
      jobs: ReadonlyArray<NewJob>,
      options?: { readonly maxAttempts?: number }
    ) => Effect.Effect<number, JobQueueUnavailable>
    /**
     * A bulk offer has ended (a pass of many jobs was planned): the store brings what it plans its claims by up to
     * date, so the claim keeps its indexed cost at once rather than after the store's own maintenance gets to it.
     */
    readonly offered: (queue: string) => Effect.Effect<void, JobQueueUnavailable>
    /**
     * Claims up to `limit` runnable jobs for `worker` with a lease of `leaseMs`, lanes in turn, never more than
     * `laneLimit` slots running in one lane across all workers. Expired leases are taken over first.
     */
    readonly claim: (input: {
      readonly queue: string
      readonly worker: string
      readonly limit: number
      readonly leaseMs: number
      readonly lanes: ReadonlyArray<string>
      readonly laneLimit: number
    }) => Effect.Effect<ReadonlyArray<Job>, JobQueueUnavailable>
    /**
     * Adds one job already claimed by `worker` (its first attempt, leased for `leaseMs`), for work that starts in the
     * process that asked for it (a long call): it is run there at once, and taken over by any worker if its lease runs
     * out. A key already in the queue is refused (the job is not added): None.
     */
    readonly start: (input: {
      readonly queue: string
      readonly worker: string
      readonly job: NewJob
      readonly leaseMs: number
      readonly maxAttempts: number
    }) => Effect.Effect<Option.Option<Job>, JobQueueUnavailable>
    /**
     * Renews the lease of the jobs `ids` that `worker` still holds (those its process is running or ending); returns
     * them. Never every job named by the worker: one whose claim (or start) committed but whose answer was lost (the
     * connection cut) is held by the worker's name but runs nowhere, and must be let run out and be taken over.
     */
    readonly heartbeat: (
      worker: string,
      leaseMs: number,
      ids: ReadonlyArray<string>
    ) => Effect.Effect<ReadonlyArray<string>, JobQueueUnavailable>
    /** Ends these jobs as done (only those `worker` still holds); returns how many. */
    readonly complete: (worker: string, ids: ReadonlyArray<string>) => Effect.Effect<number, JobQueueUnavailable>
    /**
     * A transient failure: the job runs again after `delayMs`, or ends failed when its attempts are spent. With
     * `attempts`, only while the job is still at that attempt: a retry sent again after its answer was lost (it had
     * committed) never ends a new claim of the job, even by the same worker.
     */
    readonly retry: (input: {
      readonly worker: string
      readonly id: string
      readonly reason: string
      readonly delayMs: number
      readonly attempts?: number
    }) => Effect.Effect<void, JobQueueUnavailable>
    /** Ends the job as failed with its reason (with `attempts`, only while it is at that attempt, as `retry`). */
    readonly fail: (
      worker: string,
      id: string,
      reason: string,
      attempts?: number
    ) => Effect.Effect<void, JobQueueUnavailable>
    /** Gives back every job `worker` holds (a clean stop): pending again, the claim not counted as an attempt. */
    readonly release: (worker: string) => Effect.Effect<number, JobQueueUnavailable>
    /** Whether jobs of the group are still open, and how many ended failed. */
    readonly group: (queue: string, group: string) => Effect.Effect<GroupState, JobQueueUnavailable>
    /** The reasons of the group's failed jobs (at most `limit`). */
    readonly failures: (
      queue: string,
      group: string,
      limit: number
    ) => Effect.Effect<ReadonlyArray<{ readonly key: string; readonly reason: string }>, JobQueueUnavailable>
    /** Makes the group's failed jobs pending again with fresh attempts; returns how many. */
    readonly retryFailed: (queue: string, group: string) => Effect.Effect<number, JobQueueUnavailable>
    /** Deletes the queue's jobs that ended before `before`; returns how many. */
    readonly cleanup: (queue: string, before: Date) => Effect.Effect<number, JobQueueUnavailable>
  }
>() {}
