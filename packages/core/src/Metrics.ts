/**
 * Every metric of the service (issue 25), defined once, recorded through Effect's own `Metric` and exported by the
 * apps (Prometheus text on the operator listener). Labels are bounded: a route template, a status, a catalogue
 * platform and op, an adapter's source, a configured host, a reason from a closed set. No label ever carries a key,
 * an email, a subject or an account id (test: Observability.test.ts fuzzes subjects and reads every label).
 * The upstream policy's own metrics live beside it (`@pdr/upstream-http` PolicyMetrics).
 */
import { type Calls, Catalogue } from "@pdr/domain"
import { PolicyMetrics } from "@pdr/upstream-http"
import { Effect, Metric, MetricBoundaries, MetricKey } from "effect"

const defined: Array<string> = []
const named = <A>(name: string, metric: A): A => {
  defined.push(name)
  return metric
}
const counterKeys = new WeakMap<object, MetricKey.MetricKey.Counter<number>>()
const counter = (name: string, description: string) => {
  const key = MetricKey.counter(name, { description, incremental: true })
  const metric = named(name, Metric.fromMetricKey(key))
  counterKeys.set(metric, key)
  return metric
}
const gauge = (name: string, description: string) => named(name, Metric.gauge(name, { description }))

const seconds = MetricBoundaries.fromIterable([0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10])

const durationKey = MetricKey.histogram(
  "pdr_http_request_duration_seconds",
  seconds,
  "time to answer an HTTP request, by route template, method and status"
)

/** Every metric, by its Prometheus name. */
export const metrics = {
  httpRequests: counter("pdr_http_requests_total", "HTTP requests answered, by route template, method and status"),
  httpDuration: named("pdr_http_request_duration_seconds", Metric.fromMetricKey(durationKey)),
  paidCalls: counter("pdr_paid_calls_total", "op calls that charged credits, by platform and op"),
  credits: counter("pdr_credits_charged_total", "credits captured by op calls, by platform and op"),
  quotes: counter("pdr_quotes_total", "estimate-only calls (quotes), by platform and op"),
  units: counter(
    "pdr_units_total",
    "units of answered op calls (quotes excluded), by platform, op and coverage (stored, fetched, omitted)"
  ),
  callFailures: counter("pdr_call_failures_total", "op calls answered with an error, by platform and error"),
  unitFetches: counter(
    "pdr_upstream_units_total",
    "units fetched through the Upstream port, by adapter (source) and outcome"
  ),
  settleFailures: counter(
    "pdr_settle_failures_total",
    "settles that failed (the store refused or its answer was lost): money to reconcile"
  ),
  replays: counter("pdr_idempotent_replays_total", "answers replayed for a repeated Idempotency-Key"),
  authFailures: counter("pdr_auth_failures_total", "requests refused for a missing or invalid API key"),
  recordsUnwritten: gauge(
    "pdr_call_records_unwritten",
    "synchronous calls' records waiting to be written (kept while the database is not reached; set at each write, and while a write has waited a second)"
  ),
  recordsDropped: counter(
    "pdr_call_records_dropped_total",
    "calls' records never written: refused by the database, or not kept while it was out of reach (too many waiting)"
  ),
  holdsActive: gauge("pdr_holds_active", "credit holds currently held (read from the ledger at scrape)"),
  oldestHold: gauge("pdr_hold_oldest_age_seconds", "age of the oldest hold still held (0 when none)"),
  holdsPastTtl: gauge("pdr_holds_expired_unreleased", "holds still held past their expiry (the sweep is behind)"),
  accountsLocked: gauge(
    "pdr_accounts_locked_elsewhere",
    "accounts whose holds or settles wait apart for a row another session keeps locked (this process)"
  ),
  refreshDue: gauge("pdr_refresh_pass_due", "entities planned in the latest refresh pass"),
  refreshDone: gauge("pdr_refresh_pass_done", "entities of the latest refresh pass with a result"),
  refreshFailed: gauge("pdr_refresh_pass_failed", "entities of the latest refresh pass that failed"),
  refreshCredits: gauge("pdr_refresh_pass_credits", "credits spent by the latest refresh pass"),
  refreshBudget: gauge("pdr_refresh_pass_budget", "credit budget of the latest refresh pass"),
  refreshQueue: gauge("pdr_refresh_queue_depth", "refresh tasks waiting in the queue"),
  spansDropped: counter(
    "pdr_trace_spans_dropped_total",
    "spans not delivered to the OTLP endpoint (down, slow or refusing); calls are never slowed by it"
  ),
  ready: gauge("pdr_ready", "1 while /readyz answers 200")
} as const

/** Every metric name the service exports (these and the upstream policy's). */
export const names: ReadonlyArray<string> = [...defined, ...PolicyMetrics.names]

type Family = (labels: Record<string, string>) => Metric.Metric.Counter<number>
const families = new WeakMap<object, Family>()
/**
 * The counter with these labels (built once per label set, which is bounded by construction: see
 * `PolicyMetrics.labelled` for why Effect's `Metric.taggedWithLabels` is not used on the request path).
 */
export const tagged = (metric: Metric.Metric.Counter<number>, labels: Record<string, string>) => {
  let family = families.get(metric)
  if (family === undefined) {
    family = PolicyMetrics.labelled(counterKeys.get(metric)!) as Family
    families.set(metric, family)
  }
  return family(labels)
}
const durations = PolicyMetrics.labelled(durationKey)
const bump = PolicyMetrics.unsafeUpdate

/** The platform and op of a call as labels: catalogue names only, anything else is `unknown`. */
export const opLabels = (platform: string, body: unknown) => {
  const known = Catalogue.findPlatform(platform) !== undefined
  const op = (body as { request?: { op?: unknown } } | null)?.request?.op
  return {
    platform: known ? platform : "unknown",
    op: known && typeof op === "string" && Catalogue.findOp(platform, op) !== undefined ? op : "unknown"
  }
}

/** What an answered call moves: paid calls, credits, quotes and units by coverage. */
export const recordAnswer = (labels: { readonly platform: string; readonly op: string }, answer: Calls.Answer) =>
  Effect.sync(() => {
    const charged = answer.cost.creditsCharged
    // a quote fetches nothing: only its count
    if (answer.estimate !== undefined) return bump(tagged(metrics.quotes, labels), 1)
    if (charged > 0) {
      bump(tagged(metrics.paidCalls, labels), 1)
      bump(tagged(metrics.credits, labels), charged)
    }
    const byStatus = new Map<string, number>()
    for (const item of answer.coverage) byStatus.set(item.status, (byStatus.get(item.status) ?? 0) + 1)
    for (const [coverage, n] of byStatus)
      bump(tagged(metrics.units, { platform: labels.platform, op: labels.op, coverage }), n)
  })

/** A call answered with an error (its tag: a closed set of domain errors). */
export const recordFailure = (labels: { readonly platform: string }, error: { readonly _tag: string }) =>
  Effect.sync(() => bump(tagged(metrics.callFailures, { platform: labels.platform, error: error._tag }), 1))

/** One HTTP request answered (synchronous: called from inside the request's own effect). */
export const unsafeRecordRequest = (route: string, method: string, status: number, secondsTaken: number) => {
  const labels = { route, method, status: String(status) }
  bump(tagged(metrics.httpRequests, labels), 1)
  bump(durations(labels), secondsTaken)
}

/** Adds one to a counter (synchronous). */
export const unsafeIncrement = (metric: Metric.Metric.Counter<number>, labels?: Record<string, string>) =>
  bump(labels === undefined ? metric : tagged(metric, labels), 1)

/** A gauge set to a value. */
export const set = (metric: Metric.Metric.Gauge<number>, value: number) => Metric.set(metric, value)
