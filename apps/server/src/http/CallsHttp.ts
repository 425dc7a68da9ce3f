/**
 * `GET /api/v1/calls/<id>` (collect, free), `GET /api/v1/calls` (list, keyset pages) and `DELETE /api/v1/calls/<id>`
 * (cancel), issue 21. Another account's call answers exactly as an unknown or expired one: 404 `not_found`.
 */
import { HttpApiBuilder, HttpServerResponse } from "@effect/platform"
import { CallStore, LongCalls } from "@pdr/domain"
import { Api, Security } from "@pdr/http-api"
import { DateTime, Effect, FiberRef, Option } from "effect"
import * as RequestId from "../RequestId.js"
import * as ApiErrors from "./ApiErrors.js"
import * as CallRunner from "./CallRunner.js"
import { retryAfter } from "./OpsHttp.js"

const notFound = () => ApiErrors.fromDomain(new LongCalls.CallNotFound())

const idPattern = /^call_[0-9a-f]{20}$/

/** A keyset cursor: the last call's start (epoch ms) and id. */
const cursorOf = (r: CallStore.CallRecord) => `${r.createdAt.getTime()}.${r.id}`
const parseCursor = (s: string | undefined) => {
  if (s === undefined) return undefined
  const m = /^(\d{1,15})\.(call_[0-9a-f]{20})$/.exec(s)
  return m === null ? null : { createdAt: new Date(Number(m[1])), id: m[2]! }
}

/** The calls group. */
export const layer = HttpApiBuilder.group(Api.Api, "calls", (handlers) =>
  Effect.gen(function* () {
    const store = yield* CallStore.CallStore
    const runner = yield* CallRunner.CallRunner
    const now = Effect.map(DateTime.now, DateTime.toDate)

    /** 202 with the progress of a running call (this process's own figures when it runs here). */
    const accepted = (record: CallStore.CallRecord, requestId: string) => {
      const body = CallRunner.progressBody(record.id, record, requestId, record.cancelRequested)
      return Effect.as(
        RequestId.addHeaders({
          "call-id": record.id,
          location: `/api/v1/calls/${record.id}`,
          "retry-after": String(retryAfter(record))
        }),
        HttpServerResponse.unsafeJson(body, { status: 202 })
      )
    }

    /** A record with this process's live progress when the call runs here. */
    const live = (accountId: string, r: CallStore.CallRecord): CallStore.CallRecord => {
      const l = runner.localCall(accountId, r.id)
      return l === undefined || r.status !== "running"
        ? r
        : { ...r, quote: l.progress.quote, unitsDone: l.progress.unitsDone, unitsTotal: l.progress.unitsTotal }
    }

    return handlers
      .handleRaw("collect", ({ path }) =>
        Effect.gen(function* () {
          const caller = yield* Security.CurrentCaller
          const state = yield* FiberRef.get(RequestId.current)
          if (!idPattern.test(path.id)) return yield* notFound()
          const found = yield* store.find({ accountId: caller.accountId, id: path.id, now: yield* now })
          if (Option.isNone(found)) return yield* notFound()
          const r = live(caller.accountId, found.value)
          if (r.status === "running" || r.answer === null) return yield* accepted(r, state.id)
          yield* RequestId.addHeaders({ "call-id": r.id })
          return HttpServerResponse.text(r.answer, { status: r.httpStatus ?? 200, contentType: "application/json" })
        })
      )
      .handleRaw("list", ({ urlParams }) =>
        Effect.gen(function* () {
          const caller = yield* Security.CurrentCaller
          const state = yield* FiberRef.get(RequestId.current)
          const before = parseCursor(urlParams.after)
          if (before === null)
            return yield* ApiErrors.fail("invalid_request", "after must be the `next` of a previous page", [
              { path: "after", message: "must be the `next` of a previous page" }
            ])
          const limit = urlParams.limit ?? 20
          const rows = yield* store.list({ accountId: caller.accountId, now: yield* now, before, limit })
          const body = {
            calls: rows.map((row) => {
              const r = live(caller.accountId, row)
              return {
                callId: r.id,
                platform: r.platform,
                op: r.op,
                status: r.status,
                httpStatus: r.httpStatus,
                quote: r.quote,
                progress: { unitsDone: r.unitsDone, unitsTotal: r.unitsTotal },
                cancelRequested: r.cancelRequested,
                createdAt: r.createdAt.toISOString(),
                finishedAt: r.finishedAt === null ? null : r.finishedAt.toISOString()
              }
            }),
            next: rows.length === limit ? cursorOf(rows[rows.length - 1]!) : null,
            requestId: state.id,
            ...CallRunner.versions
          }
          return HttpServerResponse.unsafeJson(body)
        })
      )
      .handleRaw("cancel", ({ path }) =>
        Effect.gen(function* () {
          const caller = yield* Security.CurrentCaller
          const state = yield* FiberRef.get(RequestId.current)
          if (!idPattern.test(path.id)) return yield* notFound()
          const found = yield* store.requestCancel({ accountId: caller.accountId, id: path.id, now: yield* now })
          if (Option.isNone(found)) return yield* notFound()
          const r = found.value
          if (r.status !== "running")
            return yield* ApiErrors.fail(
              "call_finished",
              new LongCalls.CallFinished({ status: r.status, httpStatus: r.httpStatus ?? 200 }).message,
              { status: r.status, httpStatus: r.httpStatus }
            )
          // a call running here stops now; one running elsewhere at its process's next heartbeat
          const l = runner.localCall(caller.accountId, r.id)
          if (l !== undefined) yield* l.cancel
          return yield* accepted(live(caller.accountId, { ...r, cancelRequested: true }), state.id)
        })
      )
  })
)
