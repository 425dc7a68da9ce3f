/**
 * Op calls with a call id (issue 21). Every call is answered as an outcome (status + JSON text) and recorded under its
 * id, so `GET /api/v1/calls/<id>` collects it for 24 hours:
 * - a synchronous call (no `Prefer`) runs as before, in the request; its record is written after its answer, in
 *   batches (a buffer flushed every 250 ms), off the request path;
 * - a long call (`Prefer: respond-async` / `wait=N`) is recorded running, leased to this process (renewed by a
 *   heartbeat that also writes its progress and reads a cancel), and run on a fiber of its own, apart from the request:
 *   the request waits up to N seconds, then answers 202. It runs with an idempotency key (the caller's, else one of
 *   its own), so its settle keeps its answer in the charge's transaction (D16): a process that dies mid-call leaves a
 *   running row whose lease runs out; another process claims it, and either finds the answer kept (settled: never
 *   billed twice) or runs it again (the dead attempt's hold, recorded with the call, is released at the takeover, and
 *   the provider runs it started are polled again, not started twice).
 */
import { createHash } from "node:crypto"
import {
  CallStore,
  Calls,
  Catalogue,
  Freshness,
  Idempotency,
  IdempotencyStore,
  Keys,
  Ledger,
  LongCalls
} from "@pdr/domain"
import { Api, Failure } from "@pdr/http-api"
import { DateTime, Deferred, Duration, Effect, Fiber, FiberRef, Option, Schedule } from "effect"
import * as RequestId from "../RequestId.js"
import { engineVersion } from "../Version.js"
import * as ApiErrors from "./ApiErrors.js"

const versions = { contextVersion: Api.contextVersion, engineVersion }

/** How long-call leases and heartbeats are timed. */
export interface LeaseSettings {
  /** A running call's lease; another process takes the call over once it ran out (CALL_LEASE_MS). */
  readonly leaseMs: number
  /** How often a running call renews its lease and writes its progress (a third of the lease). */
  readonly heartbeatMs: number
  /** How often this process looks for calls whose lease ran out. */
  readonly claimEveryMs: number
}

export const defaultLease: LeaseSettings = { leaseMs: 15_000, heartbeatMs: 5_000, claimEveryMs: 5_000 }

/** A call's outcome: its status and its body's JSON text, as the synchronous answer would have it. */
export interface Outcome {
  readonly status: number
  readonly text: string
  /** An idempotent replay (D16), with the original request id when the body has one. */
  readonly replayed: boolean
  readonly originalRequestId?: string | undefined
}

/**
 * The JSON of answer rows served from the store: a stored view's rows are frozen and shared by every call that reads
 * them (Coverage.storedView), so each is serialized once; any other row is serialized each time.
 */
const rowJson = new WeakMap<object, string>()
const jsonOfRow = (row: object): string => {
  if (!Object.isFrozen(row)) return JSON.stringify(row)
  let json = rowJson.get(row)
  if (json === undefined) {
    json = JSON.stringify(row)
    rowJson.set(row, json)
  }
  return json
}

/**
 * A 200 op answer's JSON text. The answer is built by the domain to the `OpResponse` shape the API publishes; it is
 * written as it is instead of being re-encoded through the Schema (the e2e tests validate every answer against the
 * OpenAPI document), its stored rows from their kept JSON.
 */
export const okText = (body: { readonly data: ReadonlyArray<object> }) => {
  const { data, ...rest } = body
  const tail = JSON.stringify(rest)
  const rows = data.map(jsonOfRow).join(",")
  return tail === "{}" ? `{"data":[${rows}]}` : `{"data":[${rows}],${tail.slice(1)}`
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

/** A call running in this process: its fiber, its control and progress. */
interface Local {
  readonly accountId: string
  readonly fiber: Fiber.RuntimeFiber<Outcome>
  readonly progress: LongCalls.Progress
  readonly planned: Deferred.Deferred<void>
  readonly cancel: Effect.Effect<boolean>
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
      const answer = Effect.gen(function* () {
        const { kept, ...result } = yield* calls.call(
          caller,
          platform,
          payload,
          idempotencyKey === undefined ? undefined : { key: idempotencyKey, envelope: full }
        )
        yield* RequestId.note({ credits: result.cost.creditsCharged })
        // D20 usage: the answered call counted per key, day, platform and op in the key usage buffer
        const op = opOf(platform, payload)
        if (op !== null) yield* keys.recordOp(caller.keyId, platform, op)
        return { body: { ...result, ...full }, kept }
      })
      const asError = (e: unknown) =>
        Effect.map(
          Effect.flip(ApiErrors.fromDomain(e as ApiErrors.DomainError)),
          (f): Outcome => ({
            status: Failure.statusOf(f) ?? 500,
            text: JSON.stringify({ error: (f as { error: Failure.Body["error"] }).error }),
            replayed: false
          })
        )
      if (idempotencyKey === undefined)
        return answer.pipe(
          Effect.map((a): Outcome => ({ status: 200, text: okText(a.body), replayed: false })),
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
              Effect.map(asError(e), (o) => ({ status: o.status, body: JSON.parse(o.text) as unknown }))
            )
          )
        )
        .pipe(
          Effect.map((kept): Outcome => {
            const text = typeof kept.body === "string" ? kept.body : JSON.stringify(kept.body)
            if (!kept.replayed) return { status: kept.status, text, replayed: false }
            // a replay is the original answer: its request id too (D16, D17)
            const body = (typeof kept.body === "string" ? JSON.parse(kept.body) : kept.body) as {
              requestId?: unknown
              error?: { requestId?: unknown }
            }
            const original = body.requestId ?? body.error?.requestId
            return {
              status: kept.status,
              text,
              replayed: true,
              originalRequestId: typeof original === "string" ? original : undefined
            }
          }),
          Effect.catchAll(asError)
        )
    }

    // ---- synchronous calls: recorded after their answer, in batches ----
    const pending: Array<CallStore.Finished> = []
    const flush = Effect.suspend(() => {
      if (pending.length === 0) return Effect.void
      const batch = pending.splice(0, pending.length)
      return store.record(batch)
    })
    yield* Effect.forkScoped(Effect.repeat(Effect.ignoreLogged(flush), Schedule.spaced(Duration.millis(250))))
    yield* Effect.addFinalizer(() => Effect.ignoreLogged(flush))

    /** Records a synchronous call's answer (written with the next batch). */
    const recordSync = (
      caller: Keys.Caller,
      platform: string,
      payload: unknown,
      id: string,
      requestId: string,
      o: Outcome
    ) =>
      Effect.map(DateTime.now, (now) => {
        const at = DateTime.toDate(now)
        pending.push({
          id,
          accountId: caller.accountId,
          keyId: caller.keyId,
          platform,
          op: opOf(platform, payload),
          requestId,
          httpStatus: o.status,
          answer: o.text,
          createdAt: at,
          finishedAt: at,
          expiresAt: new Date(at.getTime() + Duration.toMillis(LongCalls.retention))
        })
      })

    // ---- long calls: leased, run apart from the request, heartbeat, takeover ----
    const nowDate = Effect.map(DateTime.now, DateTime.toDate)

    /** Runs a long call on a fiber of this process (not the request's) under its lease; its end is recorded. */
    const runLong = Effect.fnUntraced(function* (
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
      // the lease was lost (this process stalled past it and another took the call over): this attempt stops at once,
      // unsettled (its hold is released), and leaves the call to its new owner
      const lost = yield* Deferred.make<void>()
      let holdId: string | null = null
      const heartbeat = Effect.gen(function* () {
        const now = yield* nowDate
        const beat = yield* store.heartbeat({
          id,
          owner,
          quote: made.progress.quote,
          unitsDone: made.progress.unitsDone,
          unitsTotal: made.progress.unitsTotal,
          leaseUntil: new Date(now.getTime() + lease.leaseMs),
          holdId,
          runs: Object.fromEntries(made.runs)
        })
        if (beat.cancelRequested) yield* made.cancel
        if (!beat.held) yield* Deferred.succeed(lost, undefined)
        // the hold lives as long as the lease is renewed (a provider run may outlast HOLD_TTL_MS); a hold already
        // gone (settled, or released by a takeover) is left as it is: the settle is what refuses a stale attempt
        else if (holdId !== null) {
          const settings = yield* Calls.CallSettings
          yield* ledger.extend(holdId, new Date(now.getTime() + Duration.toMillis(settings.holdTtl)))
        }
      })
      const run = Effect.gen(function* () {
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
        const o = yield* outcome(caller, platform, payload, idempotencyKey, { requestId, callId: id }).pipe(
          Effect.provideService(LongCalls.CallControl, made.control),
          // error answers of a call taken over carry its original request id
          Effect.locally(RequestId.current, { id: requestId, headers: {} }),
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
          answer: o.text,
          unitsDone: made.progress.unitsDone,
          now,
          expiresAt: new Date(now.getTime() + Duration.toMillis(LongCalls.retention))
        })
        return o
      }).pipe(Effect.ensuring(Effect.sync(() => local.delete(id))))
      const fiber = yield* Effect.forkDaemon(run)
      local.set(id, {
        accountId: caller.accountId,
        fiber,
        progress: made.progress,
        planned: made.plannedSignal,
        cancel: Effect.as(made.cancel, true)
      })
      return { fiber, progress: made.progress, planned: made.plannedSignal }
    })

    /** Starts a long call: recorded running under this process's lease, then run apart from the request. */
    const startLong = Effect.fnUntraced(function* (
      caller: Keys.Caller,
      platform: string,
      payload: unknown,
      idempotencyKey: string | undefined
    ) {
      const request = yield* FiberRef.get(RequestId.current)
      const id = `call_${RequestId.make().slice(4)}`
      const key = idempotencyKey ?? `pdr-call:${id}`
      const now = yield* nowDate
      yield* store.begin({
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
        leaseUntil: new Date(now.getTime() + lease.leaseMs),
        expiresAt: new Date(now.getTime() + Duration.toMillis(LongCalls.retention))
      })
      const started = yield* runLong(caller, platform, payload, id, key, request.id, false)
      return { id, ...started }
    })

    /** Claims one call whose process died and runs it here; true when one was claimed. */
    const claimOne = Effect.gen(function* () {
      const now = yield* nowDate
      const claimed = yield* store.claimExpired({ owner, now, leaseUntil: new Date(now.getTime() + lease.leaseMs) })
      if (Option.isNone(claimed)) return false
      const c = claimed.value
      yield* Effect.logInfo("taking over a call whose process stopped", { call: c.id, attempt: c.attempts })
      // the dead attempt's hold is released now (a settled attempt's hold is captured: releasing it changes nothing),
      // not after its TTL; its claim on the key is dropped: a settled call replays its kept answer, else it runs again
      if (c.holdId !== null)
        yield* ledger
          .release(c.holdId)
          .pipe(Effect.catchAllCause((cause) => Effect.logWarning("the dead attempt's hold was not released", cause)))
      yield* idempotencyStore.abandon({ accountId: c.accountId, key: c.idempotencyKey })
      yield* runLong(
        { accountId: c.accountId, keyId: c.keyId, prefix: "" },
        c.platform,
        JSON.parse(c.body),
        c.id,
        c.idempotencyKey,
        c.requestId,
        c.cancelRequested,
        c.runs
      )
      return true
    })
    yield* Effect.forkScoped(
      Effect.repeat(
        Effect.ignoreLogged(Effect.repeat(claimOne, { while: (claimed) => claimed })),
        Schedule.spaced(Duration.millis(lease.claimEveryMs))
      )
    )

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
