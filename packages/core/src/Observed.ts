/**
 * Spans and metrics at the existing service and port boundaries (issue 25), as decorating layers: the domain and the
 * adapters are unchanged, the core wiring puts these around them. Span names are `Module.method`; attributes carry
 * platform, op, adapter, host, attempt, counts and credits: never a key, a subject, an email or an account id.
 * With the tracer off (no OTLP endpoint) a span is a no-op and only the metrics are recorded.
 */
import { Calls, Idempotency, Keys, Ledger, Upstream } from "@pdr/domain"
import { Effect, Layer } from "effect"
import * as Metrics from "./Metrics.js"

const noStack = { captureStackTrace: false } as const

/**
 * The decorators. Spans only when `tracing` (an OTLP endpoint is set): with the tracer off a span would still cost a
 * few effects and allocations per port call for nothing; metrics are always recorded, each a synchronous update.
 */
export const make = (options: { readonly tracing: boolean }) => {
  const span: (
    name: string,
    attributes?: Record<string, unknown>
  ) => <A, E, R>(self: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R> = options.tracing
    ? (name, attributes) => Effect.withSpan(name, attributes === undefined ? noStack : { ...noStack, attributes })
    : () => (self) => self

  /** Calls: one `Calls.call` span per call, and what the answer moves (paid calls, credits, quotes, units). */
  const calls = <E, R>(inner: Layer.Layer<Calls.Calls, E, R>) =>
    Layer.effect(
      Calls.Calls,
      Effect.map(Calls.Calls, (c) =>
        Calls.Calls.make({
          ...c,
          call: (caller, platform, body, keep) => {
            const labels = Metrics.opLabels(platform, body)
            return c.call(caller, platform, body, keep).pipe(
              Effect.tapBoth({
                onSuccess: (answer) => Metrics.recordAnswer(labels, answer),
                onFailure: (error) => Metrics.recordFailure(labels, error)
              }),
              options.tracing
                ? span("Calls.call", { "pdr.platform": labels.platform, "pdr.op": labels.op })
                : (self) => self
            )
          }
        })
      )
    ).pipe(Layer.provide(inner))

  /** Keys: a `Keys.authenticate` span (authenticate and admit) and the failed authentications counted. */
  const keys = <E, R>(inner: Layer.Layer<Keys.Keys, E, R>) =>
    Layer.effect(
      Keys.Keys,
      Effect.map(Keys.Keys, (k) =>
        Keys.Keys.make({
          ...k,
          authenticate: (credentials) =>
            k.authenticate(credentials).pipe(
              Effect.tapError(() => Effect.sync(() => Metrics.unsafeIncrement(Metrics.metrics.authFailures))),
              span("Keys.authenticate")
            ),
          // a request's authentication (and its key's token): the same span and count
          admit: (credentials, limit) =>
            k.admit(credentials, limit).pipe(
              Effect.tapError(() => Effect.sync(() => Metrics.unsafeIncrement(Metrics.metrics.authFailures))),
              span("Keys.authenticate")
            )
        })
      )
    ).pipe(Layer.provide(inner))

  /** Idempotency: replays counted. */
  const idempotency = <E, R>(inner: Layer.Layer<Idempotency.Idempotency, E, R>) =>
    Layer.effect(
      Idempotency.Idempotency,
      Effect.map(Idempotency.Idempotency, (i) =>
        Idempotency.Idempotency.make({
          ...i,
          run: ((input: Parameters<typeof i.run>[0], answer: Parameters<typeof i.run>[1]) =>
            i.run(input, answer).pipe(
              Effect.tap((kept) => {
                if (kept.replayed) Metrics.unsafeIncrement(Metrics.metrics.replays)
              })
            )) as typeof i.run
        })
      )
    ).pipe(Layer.provide(inner))

  /** Ledger: `Ledger.placeHold` and `Ledger.settle` spans, failed settles counted. */
  const ledger = <E, R>(inner: Layer.Layer<Ledger.Ledger, E, R>) =>
    Layer.effect(
      Ledger.Ledger,
      Effect.map(Ledger.Ledger, (l) => ({
        ...l,
        placeHold: options.tracing
          ? (input: Parameters<typeof l.placeHold>[0]) =>
              l.placeHold(input).pipe(span("Ledger.placeHold", { "pdr.credits": input.amount }))
          : l.placeHold,
        settle: (input: Parameters<typeof l.settle>[0]) =>
          l.settle(input).pipe(
            Effect.tapErrorCause((cause) =>
              Effect.sync(() => {
                // a hold that expired before the settle is answered by a settle without a hold: not a failure
                if (!(cause._tag === "Fail" && (cause.error as { _tag?: string })._tag === "HoldNotHeld"))
                  Metrics.unsafeIncrement(Metrics.metrics.settleFailures)
              })
            ),
            options.tracing
              ? span("Ledger.settle", {
                  "pdr.capture": input.capture,
                  "pdr.measurements": input.records.measurements.length,
                  "pdr.held": input.holdId !== null
                })
              : (self) => self
          )
      }))
    ).pipe(Layer.provide(inner))

  /** Upstream: one `Upstream.fetch` span per unit fetched (adapter, platform, op), and its outcome counted. */
  const upstream = <E, R>(inner: Layer.Layer<Upstream.Upstream, E, R>) =>
    Layer.effect(
      Upstream.Upstream,
      Effect.map(Upstream.Upstream, (u) => ({
        ...u,
        fetch: (unit: Parameters<typeof u.fetch>[0]) => {
          const adapter = u.sourceFor(unit.platform, unit.op)
          return u.fetch(unit).pipe(
            Effect.onExit((exit) =>
              Effect.sync(() =>
                Metrics.unsafeIncrement(Metrics.metrics.unitFetches, {
                  adapter,
                  outcome: exit._tag === "Success" ? "ok" : "failed"
                })
              )
            ),
            options.tracing
              ? span("Upstream.fetch", {
                  "upstream.adapter": adapter,
                  "pdr.platform": unit.platform,
                  "pdr.op": unit.op
                })
              : (self) => self
          )
        }
      }))
    ).pipe(Layer.provide(inner))

  return { calls, keys, idempotency, ledger, upstream }
}
