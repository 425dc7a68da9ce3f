/**
 * The operator's side of tracked entities (the nightly refresh's list): pin the subjects of a request so they are
 * refreshed whatever the demand, unpin them, list what is tracked. A pin is planned like a call, so it keeps the
 * canonical subjects and the same freshness keys as the calls that measure them.
 */
import { DateTime, Effect, Schema } from "effect"
import * as Calls from "./Calls.js"
import * as Demand from "./ports/Demand.js"
import * as Requests from "./Requests.js"

/** 400: the op's results are not kept with a window, so its subjects cannot be tracked. */
export class NotTrackable extends Schema.TaggedError<NotTrackable>()("NotTrackable", {
  platform: Schema.String,
  op: Schema.String
}) {
  override get message() {
    return `${this.platform} ${this.op} has no freshness window (or is not stored): its subjects cannot be tracked`
  }
}

/** Pins every subject of an op request (`{ op, subjects | subject, ... }`); returns the pinned entries. */
export const pin = (platform: string, request: unknown) =>
  Effect.gen(function* () {
    const decoded = yield* Requests.decode(platform, { request })
    if (!Demand.trackable(decoded.op)) return yield* new NotTrackable({ platform, op: decoded.op.name })
    const calls = yield* Calls.Calls
    const demand = yield* Demand.Demand
    // planning reads the store only; the operator account id is never charged here
    const plan = yield* calls.plan(
      { accountId: "operator", keyId: "operator", prefix: "operator" },
      decoded.op,
      decoded.request
    )
    const entries = Demand.entriesOf(plan, DateTime.toDate(yield* DateTime.now)).map(({ demandedAt: _, ...e }) => e)
    yield* demand.pin(entries)
    return entries
  })

/** Unpins a canonical subject of a platform; returns how many entries were unpinned. */
export const unpin = (platform: string, subject: string) =>
  Effect.flatMap(Demand.Demand, (demand) => demand.unpin(platform, subject))

/** What is tracked (pinned only, or all), most recently demanded first. */
export const list = (pinnedOnly: boolean) => Effect.flatMap(Demand.Demand, (demand) => demand.list({ pinnedOnly }))
