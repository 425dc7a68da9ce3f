/**
 * The upstream policy's metrics (issue 25), defined once: requests, retries, failures and durations by adapter and
 * host, and each host's circuit state. Labels are an adapter's source name and a host: bounded (the first
 * `hostLabels` hosts seen are named, later ones counted as `other`: every storefront is a host of its own, and a label
 * set once made is kept for the process's life), never a subject, key or account. Recorded through Effect's own `Metric`; the apps export them (Prometheus).
 */
import { Effect, FiberRef, Metric, MetricBoundaries, MetricKey, type MetricKeyType, MetricLabel } from "effect"

/** The source name of the unit being fetched (set by `Policy.unit`), the `adapter` label. */
export const currentAdapter = FiberRef.unsafeMake<string>("none")

type Tags = Record<string, string>
// biome-ignore lint/suspicious/noExplicitAny: a metric key of any kind (counter, gauge, histogram)
type AnyKey = MetricKey.MetricKey<MetricKeyType.MetricKeyType<any, any>>

/**
 * A metric whose labels are given at each update, for label sets that are bounded by construction. Each label set's
 * metric is built once, from its own tagged key, and then updated through the registry hook it cached: Effect 3's
 * `Metric.taggedWithLabels` instead builds a new label array at every update, which misses the hook cache and makes a
 * new key, hashes it and looks it up in the registry each time (most of what metrics cost a request, issue 25).
 */
export const labelled = <K extends AnyKey>(key: K) => {
  const byLabels = new Map<
    string,
    Metric.Metric<K["keyType"], MetricKeyType.MetricKeyType.InType<K["keyType"]>, unknown>
  >()
  return (labels: Tags) => {
    let id = ""
    for (const k in labels) id += `${labels[k]}\u0000`
    let m = byLabels.get(id)
    if (m === undefined) {
      m = Metric.fromMetricKey(
        MetricKey.taggedWithLabels(
          key,
          Object.entries(labels).map(([k, v]) => MetricLabel.make(k, v))
        )
      ) as never
      byLabels.set(id, m!)
    }
    return m!
  }
}

/** Adds to a counter (or sets a gauge, or records into a histogram) at once: for code already inside an effect. */
export const unsafeUpdate = <T, In>(metric: Metric.Metric<T, In, unknown>, value: NoInfer<In>): void =>
  metric.unsafeUpdate(value, [])

const requests = labelled(
  MetricKey.counter("pdr_upstream_requests_total", {
    description: "HTTP requests sent to upstream hosts, by adapter, host and outcome",
    incremental: true
  })
)
const retries = labelled(
  MetricKey.counter("pdr_upstream_retries_total", {
    description: "upstream requests retried (429, 5xx, transport errors) by adapter and host",
    incremental: true
  })
)
const failures = labelled(
  MetricKey.counter("pdr_upstream_failures_total", {
    description: "upstream requests that gave nothing usable, by adapter, host and reason",
    incremental: true
  })
)
const duration = labelled(
  MetricKey.histogram(
    "pdr_upstream_request_duration_seconds",
    MetricBoundaries.fromIterable([0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]),
    "duration of one upstream HTTP request (one attempt), by adapter and host"
  )
)
const circuit = labelled(
  MetricKey.gauge("pdr_upstream_circuit_open", {
    description: "1 while the circuit breaker of an upstream host is open, else 0"
  })
)

/** The names of the metrics above. */
export const names: ReadonlyArray<string> = [
  "pdr_upstream_requests_total",
  "pdr_upstream_retries_total",
  "pdr_upstream_failures_total",
  "pdr_upstream_request_duration_seconds",
  "pdr_upstream_circuit_open"
]

/** Hosts named in the labels; the ones after are `other`. */
export const hostLabels = 200
const named = new Set<string>()
/** The host's label: its name while fewer than `hostLabels` are named, else `other`. */
export const hostLabel = (host: string) => {
  if (named.has(host)) return host
  if (named.size >= hostLabels) return "other"
  named.add(host)
  return host
}

const withAdapter = <A>(f: (adapter: string) => Effect.Effect<A>) => Effect.flatMap(FiberRef.get(currentAdapter), f)

/** One attempt's outcome: `ok`, `status_429`, `status_5xx`, `transport`, `timeout`, `open`. */
export const attempt = (name: string, outcome: string, seconds: number) =>
  withAdapter((adapter) =>
    Effect.sync(() => {
      const host = hostLabel(name)
      unsafeUpdate(requests({ adapter, host, outcome }), 1)
      if (outcome !== "open") unsafeUpdate(duration({ adapter, host }), seconds)
    })
  )

/** A retry about to be made. */
export const retry = (host: string) =>
  withAdapter((adapter) => Effect.sync(() => unsafeUpdate(retries({ adapter, host: hostLabel(host) }), 1)))

/** A request that failed for good (retries spent, timeout, open circuit). */
export const failure = (host: string, reason: string) =>
  withAdapter((adapter) => Effect.sync(() => unsafeUpdate(failures({ adapter, host: hostLabel(host), reason }), 1)))

/** The host's circuit state after an attempt (for `other`, the last of its hosts' to change). */
export const circuitState = (host: string, open: boolean) =>
  Effect.sync(() => unsafeUpdate(circuit({ host: hostLabel(host) }), open ? 1 : 0))
