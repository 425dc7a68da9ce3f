/**
 * The upstream policy's metrics (issue 25), defined once: requests, retries, failures and durations by adapter and
 * host, and each host's circuit state. Labels are an adapter's source name and a configured host: bounded, never a
 * subject, key or account. Recorded through Effect's own `Metric`; the apps export them (Prometheus).
 */
import { Effect, FiberRef, Metric, MetricBoundaries, MetricLabel } from "effect"

/** The source name of the unit being fetched (set by `Policy.unit`), the `adapter` label. */
export const currentAdapter = FiberRef.unsafeMake<string>("none")

const requests = Metric.counter("pdr_upstream_requests_total", {
  description: "HTTP requests sent to upstream hosts, by adapter, host and outcome",
  incremental: true
})
const retries = Metric.counter("pdr_upstream_retries_total", {
  description: "upstream requests retried (429, 5xx, transport errors) by adapter and host",
  incremental: true
})
const failures = Metric.counter("pdr_upstream_failures_total", {
  description: "upstream requests that gave nothing usable, by adapter, host and reason",
  incremental: true
})
const duration = Metric.histogram(
  "pdr_upstream_request_duration_seconds",
  MetricBoundaries.fromIterable([0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]),
  "duration of one upstream HTTP request (one attempt), by adapter and host"
)
const circuit = Metric.gauge("pdr_upstream_circuit_open", {
  description: "1 while the circuit breaker of an upstream host is open, else 0"
})

/** The names of the metrics above. */
export const names: ReadonlyArray<string> = [
  "pdr_upstream_requests_total",
  "pdr_upstream_retries_total",
  "pdr_upstream_failures_total",
  "pdr_upstream_request_duration_seconds",
  "pdr_upstream_circuit_open"
]

type Tags = Record<string, string>
// biome-ignore lint/suspicious/noExplicitAny: a metric of any kind (counter, gauge, histogram)
type AnyMetric = Metric.Metric<any, any, any>
const cache = new Map<string, AnyMetric>()
const tagged = <M extends AnyMetric>(metric: M, name: string, tags: Tags): M => {
  const id = `${name}\u0000${Object.values(tags).join("\u0000")}`
  let m = cache.get(id)
  if (m === undefined) {
    m = Metric.taggedWithLabels(
      metric,
      Object.entries(tags).map(([k, v]) => MetricLabel.make(k, v))
    )
    cache.set(id, m)
  }
  return m as M
}

const withAdapter = <A>(f: (adapter: string) => Effect.Effect<A>) => Effect.flatMap(FiberRef.get(currentAdapter), f)

/** One attempt's outcome: `ok`, `status_429`, `status_5xx`, `transport`, `timeout`, `open`. */
export const attempt = (host: string, outcome: string, seconds: number) =>
  withAdapter((adapter) =>
    Effect.zipRight(
      Metric.increment(tagged(requests, "r", { adapter, host, outcome })),
      outcome === "open" ? Effect.void : Metric.update(tagged(duration, "d", { adapter, host }), seconds)
    )
  )

/** A retry about to be made. */
export const retry = (host: string) =>
  withAdapter((adapter) => Metric.increment(tagged(retries, "t", { adapter, host })))

/** A request that failed for good (retries spent, timeout, open circuit). */
export const failure = (host: string, reason: string) =>
  withAdapter((adapter) => Metric.increment(tagged(failures, "f", { adapter, host, reason })))

/** The host's circuit state after an attempt. */
export const circuitState = (host: string, open: boolean) => Metric.set(tagged(circuit, "c", { host }), open ? 1 : 0)
