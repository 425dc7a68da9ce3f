/** Tuning of op calls, read by the call, its plan, its settle and idempotent replays; set by the app. */
import { Context, Duration } from "effect"

/** Tuning of op calls. */
export class CallSettings extends Context.Reference<CallSettings>()("@pdr/domain/CallSettings", {
  defaultValue: () => ({
    /** Timeout of each upstream fetch (D12). */
    unitTimeout: Duration.seconds(15),
    /** Timeout of each upstream fetch of a long call (`Prefer`, issue 21; PROVIDER_RUN_TIMEOUT_S). */
    longUnitTimeout: Duration.seconds(600),
    /** How long a hold lives before the sweep releases it (a crashed call's credits come back, D8). */
    holdTtl: Duration.minutes(5),
    /** Units fetched at once per call. */
    concurrency: 10,
    /** A stored result older than this is not served even inside its window (the nightly refresh sets 20 hours). */
    freshAtMost: Duration.infinity
  })
}) {}
