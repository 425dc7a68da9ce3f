/**
 * Port: the record of every op call (issue 21): its id, status, progress and, once done, its full answer (status and
 * body as the synchronous answer would have had them), kept 24 hours. A long call (asked with `Prefer`) is leased by
 * the process that runs it; a call whose lease ran out (its process died) is claimed by another process.
 */
import { Context, type Effect, type Option } from "effect"

/** What a call is doing. */
export type CallStatus = "running" | "done" | "cancelled"

/** A call as its account sees it. */
export interface CallRecord {
  readonly id: string
  readonly platform: string
  readonly op: string | null
  readonly status: CallStatus
  readonly httpStatus: number | null
  /** The answer's JSON text (done or cancelled calls). */
  readonly answer: string | null
  readonly quote: number | null
  readonly unitsDone: number
  readonly unitsTotal: number | null
  readonly cancelRequested: boolean
  readonly createdAt: Date
  readonly finishedAt: Date | null
}

/** A running call claimed from a process that died: what is needed to run it again. */
export interface Claimed {
  readonly id: string
  readonly accountId: string
  readonly keyId: string
  readonly platform: string
  readonly body: string
  readonly idempotencyKey: string
  readonly requestId: string
  readonly cancelRequested: boolean
  readonly attempts: number
  /** The hold the dead attempt placed, if it recorded one: released at the takeover (issue 21). */
  readonly holdId: string | null
  /** The runs its units started (unit key -> run id): polled again, not started again (issue 21). */
  readonly runs: Readonly<Record<string, string>>
}

/** A finished call to record (synchronous calls, written in batches after their answer). */
export interface Finished {
  readonly id: string
  readonly accountId: string
  readonly keyId: string
  readonly platform: string
  readonly op: string | null
  readonly requestId: string
  readonly httpStatus: number
  /** The answer's JSON text, or that text as UTF-8 (what the server sent, recorded as it is). */
  readonly answer: string | Uint8Array
  readonly createdAt: Date
  readonly finishedAt: Date
  readonly expiresAt: Date
}

/** The port. */
export class CallStore extends Context.Tag("@pdr/domain/CallStore")<
  CallStore,
  {
    /** A long call starts: recorded running, leased to `owner` until `leaseUntil`. */
    readonly begin: (input: {
      readonly id: string
      readonly accountId: string
      readonly keyId: string
      readonly platform: string
      readonly op: string | null
      readonly body: string
      readonly idempotencyKey: string
      readonly requestId: string
      readonly owner: string
      readonly now: Date
      readonly expiresAt: Date
    }) => Effect.Effect<void>
    /**
     * The heartbeat of a running call: its progress and a longer lease, if `owner` still holds it. Says whether the
     * lease is still held and whether a cancel was asked.
     */
    readonly heartbeat: (input: {
      readonly id: string
      readonly owner: string
      readonly quote: number | null
      readonly unitsDone: number
      readonly unitsTotal: number | null
      /** The hold this attempt placed, once it has one (kept so a takeover can release it). */
      readonly holdId?: string | null
      /** The runs its units started so far (unit key -> run id). */
      readonly runs?: Readonly<Record<string, string>>
    }) => Effect.Effect<{ readonly held: boolean; readonly cancelRequested: boolean }>
    /** A long call's end: its answer, kept until `expiresAt`; only by the owner of its lease. */
    readonly finish: (input: {
      readonly id: string
      readonly owner: string
      readonly status: Exclude<CallStatus, "running">
      readonly httpStatus: number
      /** Its JSON text, or that text as UTF-8. */
      readonly answer: string | Uint8Array
      readonly unitsDone: number
      readonly now: Date
      readonly expiresAt: Date
    }) => Effect.Effect<boolean>
    /** Synchronous calls' records, after their answers. */
    readonly record: (calls: ReadonlyArray<Finished>) => Effect.Effect<void>
    /** The account's call, if it is this account's and not expired. */
    readonly find: (input: {
      readonly accountId: string
      readonly id: string
      readonly now: Date
    }) => Effect.Effect<Option.Option<CallRecord>>
    /** The account's recent calls, newest first, after a keyset cursor (created_at, id). */
    readonly list: (input: {
      readonly accountId: string
      readonly now: Date
      readonly before: { readonly createdAt: Date; readonly id: string } | undefined
      readonly limit: number
    }) => Effect.Effect<ReadonlyArray<CallRecord>>
    /** Asks a running call to stop; the call as it is then (none when unknown, foreign or expired). */
    readonly requestCancel: (input: {
      readonly accountId: string
      readonly id: string
      readonly now: Date
    }) => Effect.Effect<Option.Option<CallRecord>>
    /**
     * Makes a running call `owner`'s (its job was taken over by `owner`'s worker), counting the attempt; the call as it
     * was left (none when it ended, or was never recorded). The previous owner's heartbeats and finish are refused.
     */
    readonly adopt: (input: { readonly id: string; readonly owner: string }) => Effect.Effect<Option.Option<Claimed>>
    /** Deletes records past their retention; returns how many. */
    readonly purgeExpired: (now: Date) => Effect.Effect<number>
  }
>() {}
