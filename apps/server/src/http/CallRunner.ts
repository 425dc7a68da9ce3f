/**
 * Op calls with a call id (issue 21). Every call is answered as an outcome (status + JSON text) and recorded under its
 * id, so `GET /api/v1/calls/<id>` collects it for 24 hours:
 * - a synchronous call (no `Prefer`) runs as before, in the request; its record is written after its answer, in
 *   batches (a buffer flushed every 250 ms), off the request path;
 * - a long call (`Prefer: respond-async` / `wait=N`) is a job of the job engine's `calls` queue (the engine and the
 *   JobQueue the nightly refresh runs on: one lease concept), added already claimed by this process's worker and run
 *   here at once, apart from the request: the request waits up to N seconds, then answers 202. The engine renews its
 *   lease; a heartbeat of the call's own writes its progress and hold and reads a cancel. It runs with an idempotency
 *   key (the caller's, else one of its own), so its settle keeps its answer in the charge's transaction (D16). A process
 *   that dies mid-call leaves a running job whose lease runs out (one that stops cleanly gives it back at once); any
 *   process's worker claims it and either finds the answer kept (settled: never billed twice) or runs it again (the dead
 *   attempt's hold, recorded with the call, is released at the takeover, and the provider runs it started are polled
 *   again, not started twice).
 */
import { createHash } from "node:crypto"
import { JobEngine, Metrics } from "@pdr/core"
import {
  Answers,
  CallStore,
  Calls,
  Catalogue,
  type ErrorCodes,
  Freshness,
  Idempotency,
  IdempotencyStore,
  JobQueue,
  Keys,
  Ledger,
  LongCalls
} from "@pdr/domain"
import { Api, Failure } from "@pdr/http-api"
import { Failures } from "@pdr/store-pg"
import { Cause, DateTime, Deferred, Duration, Effect, Exit, Fiber, FiberId, FiberRef, Option, Schedule } from "effect"
import * as RequestId from "../RequestId.js"
import { engineVersion } from "../Version.js"
import * as ApiErrors from "./ApiErrors.js"

const versions = { contextVersion: Api.contextVersion, engineVersion }

/** How long-call leases and heartbeats are timed. */
export interface LeaseSettings {
  /** A running call's job lease; another process takes the call over once it ran out (CALL_LEASE_MS). */
  readonly leaseMs: number
  /** How often a running call writes its progress and reads a cancel (a third of the lease). */
  readonly heartbeatMs: number
  /** How often this process's worker looks for calls to take over when it found none. */
  readonly claimEveryMs: number
}

/** How many synchronous calls' records are written together at most (more often than every 250 ms when busy). */
export const recordBatch = 64

/** The records one statement writes at most (a backlog after an outage is written in several). */
export const maxRecordsPerWrite = 1_000

/**
 * The bytes of answers one statement writes at most, beyond its first record (issue 22, d: fifteen records of a 394 KB
 * history answer were one 6 MB statement, whose building (the driver's buffer growing by copies) held the event loop
 * for about 40 ms; a batch of 64 stored calls' ~7 KB answers stays one statement).
 */
export const maxRecordBytesPerWrite = 512 * 1024

/**
 * The bytes of answers kept waiting for the database at most (records beyond are not kept, and counted); an answer
 * kept as text counts its characters, here and in `maxRecordBytesPerWrite`.
 */
export const maxUnwrittenBytes = 32 * 1024 * 1024

export const defaultLease: LeaseSettings = { leaseMs: 15_000, heartbeatMs: 5_000, claimEveryMs: 5_000 }

/**
 * A call's outcome: its status and its body's JSON text, as the synchronous answer would have it; a large answer as
 * its UTF-8 bytes (`okBody`), sent as they are and recorded as they are.
 */
export interface Outcome {
  readonly status: number
  readonly body: string | Buffer
  /** An idempotent replay (D16), with the original request id when the body has one. */
  readonly replayed: boolean
  readonly originalRequestId?: string | undefined
}

/** A 200 op answer's JSON text (one renderer for live and kept answers: domain `Answers`). */
export const okText = Answers.text

/** Text in parts as one UTF-8 buffer: each part measured and written in place, never joined into one string first. */
export const utf8 = (parts: ReadonlyArray<string>): Buffer => {
  let size = 0
  for (const part of parts) size += Buffer.byteLength(part)
  const out = Buffer.allocUnsafe(size)
  let at = 0
  for (const part of parts) at += out.write(part, at)
  return out
}

/**
 * The answers from this many characters on are encoded to UTF-8 once, from their parts (issue 22, d: a 10-subject,
 * 730-day history answer is about 400 KB; as one string it was flattened into a large-object string by each encoding,
 * for its Content-Length, the response and the call's record: about 3 ms of the server's CPU per call); a smaller
 * answer stays a string (a buffer per stored call cost about 10% more of the server's CPU than its encodings).
 */
export const bytesFrom = 64 * 1024

/** A 200 op answer's body: its JSON text (`okText`), or, from `bytesFrom` characters on, that text's UTF-8. */
export const okBody = (body: Parameters<typeof Answers.parts>[0]): string | Buffer => {
  const parts = Answers.parts(body)
  let length = 0
  for (const part of parts) length += part.length
  return length < bytesFrom ? parts.join("") : utf8(parts)
}

/** An outcome's body as text. */
export const textOf = (o: Outcome): string => (typeof o.body === "string" ? o.body : o.body.toString())

/**
 * The text of an answer as the idempotency run gives it: a settle's kept record (live, or replayed from the store) is
 * rendered as the live answer is; an answer kept as it was sent is that text.
 */
const keptText = (kept: { readonly body: unknown; readonly keptBySettle?: boolean }): string => {
  if (typeof kept.body === "string") {
    const record = kept.keptBySettle === true ? Answers.keptOf(kept.body) : undefined
    return record === undefined ? kept.body : Answers.renderKept(record)
  }
  return Answers.isKept(kept.body) ? Answers.renderKept(kept.body) : JSON.stringify(kept.body)
}

/** The request fingerprint an idempotency key is bound to. */
export const fingerprintOf = (platform: string, payload: unknown) =>
  createHash("sha256")
    .update(`${platform}\n${Freshness.canonicalJson(payload)}`)
    .digest("hex")

/** The op a payload names, when it is one of the platform's (for the record and the usage count). */
const opOf = (platform: string, payload: unknown): string | null => {
  const op = (payload as { request?: { op?: unknown } } | null)?.request?.op
  return typeof op === "string" && Catalogue.findOp(platform, op) !== undefined ? op : null
}

/** A long call running in this process: what it runs, its control and progress, and its answer once done. */
interface Local {
  readonly accountId: string
  readonly caller: Keys.Caller
  readonly platform: string
  readonly payload: unknown
  readonly idempotencyKey: string
  readonly requestId: string
  readonly made: LongCalls.Made
  readonly progress: LongCalls.Progress
  readonly planned: Deferred.Deferred<void>
  readonly cancel: Effect.Effect<boolean>
  /** Whether its record was written (the job runs only then). */
  readonly begun: Deferred.Deferred<boolean>
  /** Its answer, when this attempt ended it. */
  readonly done: Deferred.Deferred<Outcome>
  /** This attempt ended here, answered or not (stopped: its lease lost, or the process stopping). */
  readonly ended: Deferred.Deferred<void>
}

/** The call runner. */
export class CallRunner extends Effect.Service<CallRunner>()("@pdr/server/CallRunner", {
  scoped: Effect.gen(function* () {
    const calls = yield* Calls.Calls
    const idempotency = yield* Idempotency.Idempotency
    const idempotencyStore = yield* IdempotencyStore.IdempotencyStore
    const keys = yield* Keys.Keys
    const store = yield* CallStore.CallStore
    const ledger = yield* Ledger.Ledger
    const lease = yield* LeaseConfig
    const owner = `proc_${RequestId.make().slice(4)}`
    const local = new Map<string, Local>()

    /** The answer to a call as an outcome; every error of the call becomes its D5 body (never fails). */
    const outcome = (
      caller: Keys.Caller,
      platform: string,
      payload: unknown,
      idempotencyKey: string | undefined,
      envelope: { readonly requestId: string; readonly callId: string }
    ): Effect.Effect<Outcome> => {
      const full = { requestId: envelope.requestId, callId: envelope.callId, ...versions }
      // (issue 22: a chain of flatMaps rather than a generator: every op call passes here)
      const answer = Effect.flatMap(
        calls.call(
          caller,
          platform,
          payload,
          idempotencyKey === undefined ? undefined : { key: idempotencyKey, envelope: full }
        ),
        ({ kept, ...result }) => {
          const answered = { body: { ...result, ...full }, kept }
          // D20 usage: the answered call counted per key, day, platform and op in the key usage buffer
          const op = opOf(platform, payload)
          return Effect.zipRight(
            RequestId.note({ credits: result.cost.creditsCharged }),
            op === null ? Effect.succeed(answered) : Effect.as(keys.recordOp(caller.keyId, platform, op), answered)
          )
        }
      )
      const asError = (e: ErrorCodes.Answered) =>
        Effect.map(
          Effect.flip(ApiErrors.fromDomain(e)),
          (f): Outcome => ({
            status: Failure.statusOf(f) ?? 500,
            body: JSON.stringify({ error: (f as { error: Failure.Body["error"] }).error }),
            replayed: false
          })
        )
      if (idempotencyKey === undefined)
        return answer.pipe(
          Effect.map((a): Outcome => ({ status: 200, body: okBody(a.body), replayed: false })),
          Effect.catchAll(asError)
        )
      return idempotency
        .run(
          { accountId: caller.accountId, key: idempotencyKey, fingerprint: fingerprintOf(platform, payload) },
          answer.pipe(
            Effect.map(({ body, kept }) =>
              kept === undefined
                ? { status: 200, body: okText(body) }
                : { status: 200, body: kept, keptBySettle: true as const }
            ),
            Effect.catchAll((e) =>
              Effect.map(asError(e), (o) => ({ status: o.status, body: JSON.parse(textOf(o)) as unknown }))
            )
          )
        )
        .pipe(
          Effect.map((kept): Outcome => {
            const text = keptText(kept)
            if (!kept.replayed) return { status: kept.status, body: text, replayed: false }
            // a replay is the original answer: its request id too (D16, D17)
            const body = JSON.parse(text) as {
              requestId?: unknown
              error?: { requestId?: unknown }
            }
            const original = body.requestId ?? body.error?.requestId
            return {
              status: kept.status,
              body: text,
              replayed: true,
              originalRequestId: typeof original === "string" ? original : undefined
            }
          }),
          Effect.catchAll(asError)
        )
    }

    // ---- synchronous calls: recorded after their answer, in batches ----
    // (a batch is written every 250 ms, or as soon as `recordBatch` calls are waiting: issue 22, a ~7 KB answer kept
    // for up to 250 ms outlived two young-generation collections, so every answer was copied into the old generation
    // and collected there)
    const pending: Array<CallStore.Finished> = []
    // the size of the answers waiting in `pending`, bytes (an answer kept as text: its characters; bounded while the
    // database is not reached)
    let pendingBytes = 0
    // a write that did not reach the database (a dropped connection, a database down or restarting: nothing refused)
    // keeps its records until they are written (the write is idempotent: a call recorded before a lost answer is not
    // recorded twice), up to `maxUnwrittenBytes` of answers, beyond which new records are not kept (counted in the
    // log); a batch the database refused is written again with the next write, and refused again, record by record:
    // only the records it refuses alone are dropped, said in the log (D102)
    const retried = new WeakSet<CallStore.Finished>()
    // the records of the write in flight
    let writing = 0
    let unreachable = 0
    let notKept = 0
    const putBack = (batch: ReadonlyArray<CallStore.Finished>) => {
      pending.unshift(...batch)
      for (const c of batch) pendingBytes += c.answer.length
    }
    const wrote = Effect.suspend(() => {
      if (unreachable === 0) return Effect.void
      const message = `calls recorded again after ${unreachable} writes that did not reach the database${notKept === 0 ? "" : `; ${notKept} records were not kept (over ${maxUnwrittenBytes} bytes of answers waiting)`}`
      unreachable = 0
      notKept = 0
      return Effect.logWarning(message)
    })
    /** A batch the database refused, written again record by record: only what it refuses again is dropped. */
    const oneByOne = (batch: ReadonlyArray<CallStore.Finished>, refusal: Cause.Cause<unknown>) =>
      Effect.zipRight(
        Effect.logWarning(`calls' records refused together (${batch.length}): written one by one`, refusal),
        Effect.forEach(
          batch,
          (c) =>
            Effect.catchAllCause(store.record([c]), (cause) =>
              Failures.refusedWrite(cause)
                ? Effect.zipRight(
                    Effect.sync(() => Metrics.unsafeIncrement(Metrics.metrics.recordsDropped)),
                    Effect.logError(`call ${c.id} not recorded: the database refused its record`, cause)
                  )
                : Effect.sync(() => putBack([c]))
            ),
          { discard: true }
        )
      )
    /**
     * One write of the oldest records waiting, up to `maxRecordsPerWrite` of them and `maxRecordBytesPerWrite`
     * bytes of answers (at least one record); how many it took, or 0 when it did not reach the database.
     */
    const writeSome = Effect.suspend(() => {
      let n = 0
      let bytes = 0
      while (n < pending.length && n < maxRecordsPerWrite) {
        bytes += pending[n]!.answer.length
        if (n > 0 && bytes > maxRecordBytesPerWrite) break
        n++
      }
      const batch = pending.splice(0, n)
      for (const c of batch) pendingBytes -= c.answer.length
      writing = batch.length
      return Effect.matchCauseEffect(
        Effect.ensuring(
          store.record(batch),
          Effect.sync(() => (writing = 0))
        ),
        {
          onSuccess: () => Effect.as(wrote, batch.length),
          onFailure: (cause) => {
            if (Failures.refusedWrite(cause)) {
              // refused again (records of it were refused before): only what is refused alone is dropped
              if (batch.some((c) => retried.has(c))) return Effect.as(oneByOne(batch, cause), batch.length)
              for (const c of batch) retried.add(c)
              putBack(batch)
              return Effect.as(
                Effect.logError(
                  `calls not recorded: ${batch.length} records refused, written again with the next write`,
                  cause
                ),
                0
              )
            }
            putBack(batch)
            // an interruption (the process stopping) leaves them for the last flush
            if (Cause.isInterruptedOnly(cause)) return Effect.succeed(0)
            unreachable++
            return Effect.as(
              unreachable === 1
                ? Effect.logError(
                    `calls not recorded: the database was not reached; ${pending.length} kept until it is`,
                    cause
                  )
                : Effect.void,
              0
            )
          }
        }
      )
    })
    // what is waiting when it starts (records written meanwhile wait for the next), in writes of `writeSome`'s size,
    // until one does not reach the database; then what is left waiting, for /metrics
    const flush = Effect.suspend(() => {
      let records = pending.length
      const loop: Effect.Effect<void> = Effect.suspend(() =>
        records <= 0 || pending.length === 0
          ? Effect.void
          : Effect.flatMap(writeSome, (written) => {
              records -= written
              return written === 0 ? Effect.void : loop
            })
      )
      // a write still waiting after a second (the database restarting: a statement waits for a connection up to
      // DATABASE_CONNECT_WAIT_MS) counts its records as waiting too, so /metrics says so while it waits (interruptible
      // even where the flush is not, the final one and `flushNow`: it is given up as soon as the write ends)
      const stalled = Effect.interruptible(
        Effect.zipRight(
          Effect.sleep(Duration.seconds(1)),
          Effect.zipRight(
            Effect.suspend(() => Metrics.set(Metrics.metrics.recordsUnwritten, pending.length + writing)),
            Effect.never
          )
        )
      )
      return Effect.zipRight(
        Effect.raceFirst(loop, stalled),
        Effect.suspend(() => Metrics.set(Metrics.metrics.recordsUnwritten, pending.length))
      )
    })
    yield* Effect.forkScoped(Effect.repeat(Effect.ignoreLogged(flush), Schedule.spaced(Duration.millis(250))))
    yield* Effect.addFinalizer(() => Effect.ignoreLogged(flush))
    // the batch written at once runs in the runner's scope, uninterruptible: a stopping process writes it before it ends
    const flushNow = Effect.asVoid(
      Effect.forkIn(Effect.uninterruptible(Effect.ignoreLogged(flush)), yield* Effect.scope)
    )

    /** Records a synchronous call's answer (written with the next batch). */
    const recordSync = (
      caller: Keys.Caller,
      platform: string,
      payload: unknown,
      id: string,
      requestId: string,
      o: Outcome
    ) =>
      // the clock read in the same step as the push (issue 22: `DateTime.now` and a `map` are four steps)
      Effect.clockWith((clock) => {
        if (pendingBytes > maxUnwrittenBytes) {
          // the database has not been reached for long: the oldest records waiting are kept, this one is not
          notKept++
          Metrics.unsafeIncrement(Metrics.metrics.recordsDropped)
          return notKept === 1
            ? Effect.logError(
                `calls not recorded: over ${maxUnwrittenBytes} bytes of answers waiting for the database; new records are not kept until it answers`
              )
            : Effect.void
        }
        const at = new Date(clock.unsafeCurrentTimeMillis())
        pendingBytes += o.body.length
        pending.push({
          id,
          accountId: caller.accountId,
          keyId: caller.keyId,
          platform,
          op: opOf(platform, payload),
          requestId,
          httpStatus: o.status,
          answer: o.body,
          createdAt: at,
          finishedAt: at,
          expiresAt: new Date(at.getTime() + Duration.toMillis(LongCalls.retention))
        })
        // (while the database is not reached, only the periodic flush tries again)
        return pending.length >= recordBatch && unreachable === 0 ? flushNow : Effect.void
      })

    // ---- long calls: jobs of the `calls` queue on the job engine (JobQueue, JobEngine), run apart from the request ----
    const nowDate = Effect.map(DateTime.now, DateTime.toDate)

    /** A call to run here: recorded in `local` before its job runs, so the request that started it can wait on it. */
    const prepare = Effect.fnUntraced(function* (
      caller: Keys.Caller,
      platform: string,
      payload: unknown,
      id: string,
      idempotencyKey: string,
      requestId: string,
      cancelledAlready: boolean,
      earlierRuns: Readonly<Record<string, string>> = {}
    ) {
      const made = yield* LongCalls.makeControl(true, earlierRuns)
      if (cancelledAlready) yield* made.cancel
      const entry: Local = {
        accountId: caller.accountId,
        caller,
        platform,
        payload,
        idempotencyKey,
        requestId,
        made,
        progress: made.progress,
        planned: made.plannedSignal,
        cancel: Effect.as(made.cancel, true),
        begun: yield* Deferred.make<boolean>(),
        done: yield* Deferred.make<Outcome>(),
        ended: yield* Deferred.make<void>()
      }
      local.set(id, entry)
      return entry
    })

    /**
     * Runs a prepared call under its job (this worker's lease, renewed by the engine): a heartbeat of its own writes its
     * progress and hold, reads a cancel, and finds whether the call is still this worker's (a stalled process whose job
     * was taken over stops at once, unsettled, its hold already released by the new owner). Its end is recorded.
     */
    const execute = (id: string, l: Local) => {
      const made = l.made
      const lost = Deferred.unsafeMake<void>(FiberId.none)
      let holdId: string | null = null
      const heartbeat = Effect.gen(function* () {
        const now = yield* nowDate
        const beat = yield* store.heartbeat({
          id,
          owner,
          quote: made.progress.quote,
          unitsDone: made.progress.unitsDone,
          unitsTotal: made.progress.unitsTotal,
          holdId,
          runs: Object.fromEntries(made.runs)
        })
        if (beat.cancelRequested) yield* made.cancel
        // the key's claim renewed with the call's lease: a call alive past HOLD_TTL_MS (its stale bound) keeps its key,
        // so the same key sent again finds it in flight and is not run a second time
        if (beat.held) yield* idempotencyStore.renew({ accountId: l.accountId, key: l.idempotencyKey, now })
        if (!beat.held) yield* Deferred.succeed(lost, undefined)
        // the hold lives as long as the call is this worker's (a provider run may outlast HOLD_TTL_MS); a hold already
        // gone (settled, or released by a takeover) is left as it is: the settle is what refuses a stale attempt
        else if (holdId !== null) {
          const settings = yield* Calls.CallSettings
          yield* ledger.extend(holdId, new Date(now.getTime() + Duration.toMillis(settings.holdTtl)))
        }
      }).pipe(
        // a heartbeat is never cut between its statements: the call's end interrupts these fibers and waits for the
        // beat under way (no statement of the store is cancelled mid-way since stop 40, store-pg's Database; stop 39's
        // long calls answered 500 when the cancel of a heartbeat's statement landed on another call's INSERT, 57014)
        Effect.uninterruptible
      )
      return Effect.gen(function* () {
        const beating = yield* Effect.fork(
          Effect.repeat(Effect.ignoreLogged(heartbeat), Schedule.spaced(Duration.millis(lease.heartbeatMs)))
        )
        // the hold is recorded as soon as it is placed (one more heartbeat), so a takeover can release it
        const recording = yield* Effect.fork(
          Effect.flatMap(Deferred.await(made.heldSignal), (h) => {
            holdId = h
            return Effect.ignoreLogged(heartbeat)
          })
        )
        // each provider run a unit starts is recorded at once, so a takeover polls it rather than starting another
        const recordingRuns = yield* Effect.fork(
          Effect.forever(Effect.zipRight(made.nextRun, Effect.ignoreLogged(heartbeat)))
        )
        const o = yield* outcome(l.caller, l.platform, l.payload, l.idempotencyKey, {
          requestId: l.requestId,
          callId: id
        }).pipe(
          Effect.provideService(LongCalls.CallControl, made.control),
          // error answers of a call taken over carry its original request id
          Effect.locally(RequestId.current, { id: l.requestId, headers: {} }),
          Effect.raceFirst(Effect.zipRight(Deferred.await(lost), Effect.interrupt)),
          Effect.ensuring(
            Effect.all([Fiber.interrupt(recording), Fiber.interrupt(recordingRuns), Fiber.interrupt(beating)], {
              discard: true
            })
          )
        )
        const now = yield* nowDate
        yield* store.finish({
          id,
          owner,
          status: made.control.isCancelled() ? "cancelled" : "done",
          httpStatus: o.status,
          answer: o.body,
          unitsDone: made.progress.unitsDone,
          now,
          expiresAt: new Date(now.getTime() + Duration.toMillis(LongCalls.retention))
        })
        yield* Deferred.succeed(l.done, o)
      })
    }

    /**
     * A call whose worker stopped (killed, stalled past its lease, or stopped cleanly and gave it back), claimed here by
     * the engine: the dead attempt's hold is released now (a settled attempt's hold is captured: releasing it changes
     * nothing), not after its TTL; its claim on the key is dropped: a settled call replays its kept answer, else it runs
     * again, polling the provider runs the dead attempt started. After LongCalls.maxAttempts it ends failed instead.
     */
    const takeOver = (job: JobQueue.Job, id: string) =>
      Effect.gen(function* () {
        const adopted = yield* store.adopt({ id, owner })
        // ended already, or never begun (its process died between the job and the record): nothing to do
        if (Option.isNone(adopted)) return
        const c = adopted.value
        yield* Effect.logInfo("taking over a call whose process stopped", { call: c.id, attempt: job.attempts })
        if (c.holdId !== null)
          yield* ledger
            .release(c.holdId)
            .pipe(Effect.catchAllCause((cause) => Effect.logWarning("the dead attempt's hold was not released", cause)))
        yield* idempotencyStore.abandon({ accountId: c.accountId, key: c.idempotencyKey })
        if (job.attempts > LongCalls.maxAttempts) {
          // its processes died under it too often: ended with an internal error, nothing billed (its hold released)
          const f = Failure.make(
            "internal",
            `the call was stopped ${LongCalls.maxAttempts} times with its process and was not run again; nothing was billed`,
            c.requestId
          )
          const now = yield* nowDate
          yield* store.finish({
            id,
            owner,
            status: "done",
            httpStatus: Failure.statusOf(f) ?? 500,
            answer: JSON.stringify({ error: (f as { error: Failure.Body["error"] }).error }),
            unitsDone: 0,
            now,
            expiresAt: new Date(now.getTime() + Duration.toMillis(LongCalls.retention))
          })
          yield* Effect.logError("a call was given up after its processes stopped", {
            call: id,
            attempts: job.attempts
          })
          return
        }
        const l = yield* prepare(
          { accountId: c.accountId, keyId: c.keyId, prefix: "" },
          c.platform,
          JSON.parse(c.body),
          c.id,
          c.idempotencyKey,
          c.requestId,
          c.cancelRequested,
          c.runs
        )
        yield* Deferred.succeed(l.begun, true)
        yield* execute(id, l)
      })

    /** The job of one call: the attempt started by a request of this process, or a takeover. */
    const handle = (job: JobQueue.Job): Effect.Effect<void, JobEngine.JobFailed> => {
      const id = job.key
      const l = local.get(id)
      const run =
        l !== undefined && job.takenOverFrom === null && job.attempts === 1
          ? Effect.flatMap(Deferred.await(l.begun), (begun) => (begun ? execute(id, l) : Effect.void))
          : takeOver(job, id)
      return run.pipe(
        Effect.ensuring(
          Effect.suspend(() => {
            const mine = local.get(id)
            local.delete(id)
            return mine === undefined ? Effect.void : Deferred.succeed(mine.ended, undefined)
          })
        ),
        // never retried by the engine as a failure: an attempt that did not end is taken over when its lease runs out
        Effect.catchAllDefect((defect) =>
          Effect.zipRight(
            // a statement whose connection was cut (still, after it was run again): the attempt ends and the engine
            // runs the call again (a settled one replays its kept answer); no defect of ours
            Failures.cutUnder(Cause.die(defect))
              ? Effect.logWarning("a long call's attempt lost its database connection; it runs again", {
                  call: id,
                  reason: defect instanceof Error ? defect.message : String(defect)
                })
              : Effect.logError("a long call failed on a defect", { call: id }, defect),
            Effect.fail(new JobEngine.JobFailed({ reason: String(defect), transient: true }))
          )
        )
      )
    }

    const engine = yield* JobEngine.run({
      queue: LongCalls.queue,
      worker: owner,
      // calls taken over at once (a call started here always runs here, whatever this number)
      concurrency: LongCalls.takeovers,
      leaseMs: lease.leaseMs,
      lanes: [""],
      laneLimit: 0,
      idleMs: lease.claimEveryMs,
      handle
    })

    /** Starts a long call: its job is added already claimed by this worker, recorded running, then run here. */
    const startLong = Effect.fnUntraced(function* (
      caller: Keys.Caller,
      platform: string,
      payload: unknown,
      idempotencyKey: string | undefined
    ) {
      const request = yield* FiberRef.get(RequestId.current)
      const id = `call_${RequestId.make().slice(4)}`
      const key = idempotencyKey ?? `pdr-call:${id}`
      const l = yield* prepare(caller, platform, payload, id, key, request.id, false)
      // the job first, then the record: a process that dies between the two leaves a job whose takeover finds no record
      // (nothing was held or fetched) rather than a record no job will ever end
      const job = yield* engine.submit({ key: id, payload: { callId: id } }, LongCalls.maxAttempts + 1).pipe(
        Effect.tapError(() => Effect.sync(() => local.delete(id))),
        Effect.orDie
      )
      if (Option.isNone(job)) return yield* Effect.dieMessage(`a call id was used twice: ${id}`)
      const now = yield* nowDate
      yield* store
        .begin({
          id,
          accountId: caller.accountId,
          keyId: caller.keyId,
          platform,
          op: opOf(platform, payload),
          body: JSON.stringify(payload),
          idempotencyKey: key,
          requestId: request.id,
          owner,
          now,
          expiresAt: new Date(now.getTime() + Duration.toMillis(LongCalls.retention))
        })
        .pipe(Effect.onExit((exit) => Deferred.succeed(l.begun, Exit.isSuccess(exit))))
      return { id, done: l.done, ended: l.ended, progress: l.progress, planned: l.planned }
    })

    /** A running call of this process, for its account. */
    const localCall = (accountId: string, id: string) => {
      const l = local.get(id)
      return l !== undefined && l.accountId === accountId ? l : undefined
    }

    return { outcome, recordSync, startLong, localCall, owner } as const
  })
}) {}

/** The lease timing the runner uses (CALL_LEASE_MS; tests shorten it). */
export class LeaseConfig extends Effect.Tag("@pdr/server/LeaseConfig")<LeaseConfig, LeaseSettings>() {}

/** Collecting a call: the answer once done, else 202 with its progress. */
export const progressBody = (
  id: string,
  record: { readonly quote: number | null; readonly unitsDone: number; readonly unitsTotal: number | null },
  requestId: string,
  cancelRequested: boolean
) => ({
  callId: id,
  status: cancelRequested ? ("cancelling" as const) : ("running" as const),
  quote: record.quote,
  progress: { unitsDone: record.unitsDone, unitsTotal: record.unitsTotal },
  requestId,
  ...versions
})

export { versions }
