/**
 * Spans and metrics at the existing service and port boundaries (issue 25), as decorating layers: the domain and the
 * adapters are unchanged, the core wiring puts these around them. Span names are `Module.method`; attributes carry
 * platform, op, adapter, host, attempt, counts and credits: never a key, a subject, an email or an account id.
 * With the tracer off (no OTLP endpoint) a span is a no-op and only the metrics are recorded.
 */
import { Calls, Idempotency, Keys, Ledger, Upstream } from "@pdr/domain"
import { Effect, Layer, Metric } from "effect"
import * as Metrics from "./Metrics.js"

const noStack = { captureStackTrace: false } as const

/** Calls: one `Calls.call` span per call, and what the answer moves (paid calls, credits, quotes, units). */
export const calls = <E, R>(inner: Layer.Layer<Calls.Calls, E, R>) =>
  Layer.effect(
    Calls.Calls,
    Effect.map(Calls.Calls, (c) =>
      Calls.Calls.make({
        ...c,
        call: (caller, platform, body, keep) => {
          const labels = Metrics.opLabels(platform, body)
          return c.call(caller, platform, body, keep).pipe(
            Effect.tap((answer) => Metrics.recordAnswer(labels, answer)),
            Effect.tapError((error) => Metrics.recordFailure(labels, error)),
            Effect.withSpan("Calls.call", {
              ...noStack,
              attributes: { "pdr.platform": labels.platform, "pdr.op": labels.op }
            })
          )
        }
      })
    )
  ).pipe(Layer.provide(inner))

/** Keys: a `Keys.authenticate` span and the failed authentications counted. */
export const keys = <E, R>(inner: Layer.Layer<Keys.Keys, E, R>) =>
  Layer.effect(
    Keys.Keys,
    Effect.map(Keys.Keys, (k) =>
      Keys.Keys.make({
        ...k,
        authenticate: (credentials) =>
          k.authenticate(credentials).pipe(
            Effect.tapError(() => Metric.increment(Metrics.metrics.authFailures)),
            Effect.withSpan("Keys.authenticate", noStack)
          )
      })
    )
  ).pipe(Layer.provide(inner))

/** Idempotency: replays counted. */
export const idempotency = <E, R>(inner: Layer.Layer<Idempotency.Idempotency, E, R>) =>
  Layer.effect(
    Idempotency.Idempotency,
    Effect.map(Idempotency.Idempotency, (i) =>
      Idempotency.Idempotency.make({
        ...i,
        run: ((input: Parameters<typeof i.run>[0], answer: Parameters<typeof i.run>[1]) =>
          i
            .run(input, answer)
            .pipe(
              Effect.tap((kept) => (kept.replayed ? Metric.increment(Metrics.metrics.replays) : Effect.void))
            )) as typeof i.run
      })
    )
  ).pipe(Layer.provide(inner))

/** Ledger: `Ledger.placeHold` and `Ledger.settle` spans, failed settles counted. */
export const ledger = <E, R>(inner: Layer.Layer<Ledger.Ledger, E, R>) =>
  Layer.effect(
    Ledger.Ledger,
    Effect.map(Ledger.Ledger, (l) => ({
      ...l,
      placeHold: (input: Parameters<typeof l.placeHold>[0]) =>
        l
          .placeHold(input)
          .pipe(Effect.withSpan("Ledger.placeHold", { ...noStack, attributes: { "pdr.credits": input.amount } })),
      settle: (input: Parameters<typeof l.settle>[0]) =>
        l.settle(input).pipe(
          Effect.tapErrorCause((cause) =>
            // a hold that expired before the settle is answered by a settle without a hold: not a failure
            cause._tag === "Fail" && (cause.error as { _tag?: string })._tag === "HoldNotHeld"
              ? Effect.void
              : Metric.increment(Metrics.metrics.settleFailures)
          ),
          Effect.withSpan("Ledger.settle", {
            ...noStack,
            attributes: {
              "pdr.capture": input.capture,
              "pdr.measurements": input.records.measurements.length,
              "pdr.held": input.holdId !== null
            }
          })
        )
    }))
  ).pipe(Layer.provide(inner))

/** Upstream: one `Upstream.fetch` span per unit fetched (adapter, platform, op), and its outcome counted. */
export const upstream = <E, R>(inner: Layer.Layer<Upstream.Upstream, E, R>) =>
  Layer.effect(
    Upstream.Upstream,
    Effect.map(Upstream.Upstream, (u) => ({
      ...u,
      fetch: (unit: Parameters<typeof u.fetch>[0]) => {
        const adapter = u.sourceFor(unit.platform, unit.op)
        return u.fetch(unit).pipe(
          Effect.exit,
          Effect.tap((exit) =>
            Metric.increment(
              Metrics.tagged(Metrics.metrics.unitFetches, {
                adapter,
                outcome: exit._tag === "Success" ? "ok" : "failed"
              })
            )
          ),
          Effect.flatten,
          Effect.withSpan("Upstream.fetch", {
            ...noStack,
            attributes: { "upstream.adapter": adapter, "pdr.platform": unit.platform, "pdr.op": unit.op }
          })
        )
      }
    }))
  ).pipe(Layer.provide(inner))
