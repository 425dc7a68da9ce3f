/**
 * Where metrics, traces and logs go (issue 25), read once per app:
 * - metrics: Effect's metrics through `@effect/opentelemetry`'s producer into an OpenTelemetry `PrometheusExporter`
 *   that starts no server of its own; the app serves its text (`scrape`) behind its own authentication;
 * - traces: OTLP over HTTP when `OTEL_EXPORTER_OTLP_ENDPOINT` (or `..._TRACES_ENDPOINT`) is set, through a batch span
 *   processor that never waits on the endpoint (spans it cannot deliver are dropped and counted); the tracer is off
 *   otherwise (a span is then a no-op);
 * - logs: JSON lines (`LOG_FORMAT=json`, the default when stdout is not a terminal) or Effect's pretty logger.
 * Sources: @effect/opentelemetry 0.64 `NodeSdk.layer` / `Metrics.layer` (their .d.ts); @opentelemetry/exporter-prometheus
 * 0.223 `PrometheusExporter({ preventServerStart })`, `collect()` and `PrometheusSerializer.serialize`;
 * @opentelemetry/sdk-trace-base 2.x `BatchSpanProcessor` (maxQueueSize, exportTimeoutMillis) and `SpanExporter`;
 * the OTLP exporter specification (the generic endpoint gets `/v1/traces` appended, the per-signal one is used as is).
 */
import * as OtelMetrics from "@effect/opentelemetry/Metrics"
import * as NodeSdk from "@effect/opentelemetry/NodeSdk"
import * as Resource from "@effect/opentelemetry/Resource"
import { type ExportResult, ExportResultCode } from "@opentelemetry/core"
import { PrometheusExporter, PrometheusSerializer } from "@opentelemetry/exporter-prometheus"
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http"
import { BatchSpanProcessor, type ReadableSpan, type SpanExporter } from "@opentelemetry/sdk-trace-base"
import {
  Cause,
  Config,
  Context,
  Effect,
  type Fiber,
  FiberId,
  FiberRef,
  HashSet,
  Layer,
  List,
  Logger,
  LogLevel,
  Metric,
  Option
} from "effect"
import * as Metrics from "./Metrics.js"

/** The telemetry settings of an app. */
export interface Settings {
  /** The OTLP/HTTP traces URL (`.../v1/traces`), or none: tracing off. */
  readonly tracesUrl: Option.Option<string>
  readonly serviceName: string
  /** How logs are written. */
  readonly logFormat: "json" | "pretty"
  /** How long one export may take before it is abandoned (its spans counted as dropped). */
  readonly exportTimeoutMs: number
}

/** Reads OTEL_EXPORTER_OTLP_ENDPOINT / OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, OTEL_SERVICE_NAME, LOG_FORMAT. */
export const settingsConfig = (defaultServiceName: string): Config.Config<Settings> =>
  Config.all({
    generic: Config.option(Config.string("OTEL_EXPORTER_OTLP_ENDPOINT")),
    traces: Config.option(Config.string("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")),
    serviceName: Config.string("OTEL_SERVICE_NAME").pipe(Config.withDefault(defaultServiceName)),
    logFormat: Config.literal(
      "json",
      "pretty"
    )("LOG_FORMAT").pipe(Config.withDefault(process.stdout.isTTY ? ("pretty" as const) : ("json" as const))),
    exportTimeoutMs: Config.integer("OTEL_EXPORTER_OTLP_TIMEOUT").pipe(Config.withDefault(2_000))
  }).pipe(
    Config.map(({ generic, traces, ...rest }) => ({
      ...rest,
      tracesUrl: Option.orElse(
        Option.filter(traces, (t) => t.length > 0),
        () =>
          Option.map(
            Option.filter(generic, (g) => g.length > 0),
            (g) => `${g.replace(/\/+$/, "")}/v1/traces`
          )
      )
    }))
  )

/** No traces; logs left as they are (tests and embedding). */
export const testing: Settings = {
  tracesUrl: Option.none(),
  serviceName: "pdr",
  logFormat: "pretty",
  exportTimeoutMs: 2_000
}

/** The Prometheus side: the exporter the metrics are read through. */
export class Prometheus extends Context.Tag("@pdr/core/Prometheus")<
  Prometheus,
  { readonly scrape: Effect.Effect<string> }
>() {}

/**
 * Wraps a span exporter so every span it could not deliver (a refusal, a timeout, an endpoint that is down) is
 * counted in `pdr_trace_spans_dropped_total`.
 */
export class CountingExporter implements SpanExporter {
  constructor(private readonly inner: SpanExporter) {}
  export(spans: Array<ReadableSpan>, done: (result: ExportResult) => void): void {
    this.inner.export(spans, (result) => {
      if (result.code !== ExportResultCode.SUCCESS) dropped(spans.length)
      done(result)
    })
  }
  shutdown(): Promise<void> {
    return this.inner.shutdown()
  }
  forceFlush(): Promise<void> {
    return this.inner.forceFlush?.() ?? Promise.resolve()
  }
}

const dropped = (n: number) => Effect.runSync(Metric.incrementBy(Metrics.metrics.spansDropped, n))

/**
 * A batch processor whose full queue drops (and counts) new spans instead of growing: the processor's own
 * drop is silent, so the count is taken here.
 */
class CountingBatchProcessor extends BatchSpanProcessor {
  private queued = 0
  constructor(
    exporter: SpanExporter,
    private readonly max: number,
    options: ConstructorParameters<typeof BatchSpanProcessor>[1]
  ) {
    super(
      {
        export: (spans, done) => {
          this.queued = Math.max(0, this.queued - spans.length)
          exporter.export(spans, done)
        },
        shutdown: () => exporter.shutdown(),
        forceFlush: () => exporter.forceFlush?.() ?? Promise.resolve()
      },
      options
    )
  }
  override onEnd(span: ReadableSpan): void {
    if (this.queued >= this.max) {
      dropped(1)
      return
    }
    this.queued++
    super.onEnd(span)
  }
}

/**
 * Lines for stdout, written together once per turn of the event loop (issue 22): a pipe's write is synchronous, and
 * one write per request's log line was about a tenth of a stored call's CPU. What a turn buffered is written at its
 * end, and at the process's exit.
 */
const stdoutLines = (() => {
  let pending: Array<string> = []
  const flush = () => {
    if (pending.length === 0) return
    const text = `${pending.join("\n")}\n`
    pending = []
    process.stdout.write(text)
  }
  process.once("exit", flush)
  return (line: string) => {
    if (pending.length === 0) setImmediate(flush)
    pending.push(line)
  }
})()

/**
 * `Logger.jsonLogger`'s line, written directly when the line is only text (issue 22: the request's line): a string
 * message, no cause, no log span, and annotations that are strings, numbers or booleans. The generic path copies the
 * line into an object and walks it for redactable values, which none of these can be; any other line is its.
 */
export const jsonLogger = Logger.make<unknown, string>((options) => {
  const { annotations, cause, date, fiberId, logLevel, message, spans } = options
  const text = Array.isArray(message) ? (message.length === 1 ? message[0] : undefined) : message
  if (typeof text !== "string" || !Cause.isEmpty(cause) || List.isCons(spans)) return Logger.jsonLogger.log(options)
  let fields = ""
  for (const [key, value] of annotations) {
    const type = typeof value
    if ((type !== "string" && type !== "number" && type !== "boolean") || key === "__proto__")
      return Logger.jsonLogger.log(options)
    fields += `${fields === "" ? "" : ","}${JSON.stringify(key)}:${JSON.stringify(value)}`
  }
  return `{"message":${JSON.stringify(text)},"logLevel":${JSON.stringify(logLevel.label)},"timestamp":"${date.toISOString()}","annotations":{${fields}},"spans":{},"fiberId":${JSON.stringify(FiberId.threadName(fiberId))}}`
})

// one JSON object per line on stdout (jsonLogger only formats)
const jsonLines = Logger.map(jsonLogger, stdoutLines)

/** A log line's own annotation values, as the JSON logger writes them directly. */
export type Plain = string | number | boolean

/**
 * Writes an INFO line of `message` with `fields` (its own annotations, over the fiber's) straight to stdout's lines,
 * exactly as the fiber's logging would write it, when that is all its logging would do (issue 22: Effect's log path
 * for the request's line, an annotation map written per request, the loggers' options and the line, took about 35 us
 * of the 205 us of server CPU of a stored call; this takes about 5): the JSON lines are the fiber's only logger but for
 * Effect's tracer logger (the caller makes sure no span records the line), no log span is open and the fiber's
 * annotations are strings, numbers or booleans. Answers false, having written nothing, when it is not so: the caller
 * logs through Effect then. Below the fiber's minimum level it writes nothing (and answers true).
 */
export const infoLine = (
  fiber: Fiber.RuntimeFiber<unknown, unknown>,
  message: string,
  fields: ReadonlyArray<readonly [string, Plain]>
): boolean => {
  if (LogLevel.greaterThan(fiber.getFiberRef(FiberRef.currentMinimumLogLevel), LogLevel.Info)) return true
  const loggers = fiber.getFiberRef(FiberRef.currentLoggers)
  for (const logger of loggers) if (logger !== jsonLines && logger !== Logger.tracerLogger) return false
  if (!HashSet.has(loggers, jsonLines) || List.isCons(fiber.getFiberRef(FiberRef.currentLogSpan))) return false
  let text = ""
  for (const [key, value] of fiber.getFiberRef(FiberRef.currentLogAnnotations)) {
    const type = typeof value
    if ((type !== "string" && type !== "number" && type !== "boolean") || key === "__proto__") return false
    // the line's own fields are written over the fiber's (as the annotation map's `set` would)
    if (fields.some(([k]) => k === key)) continue
    text += `${text === "" ? "" : ","}${JSON.stringify(key)}:${JSON.stringify(value)}`
  }
  for (const [key, value] of fields) text += `${text === "" ? "" : ","}${JSON.stringify(key)}:${JSON.stringify(value)}`
  stdoutLines(
    `{"message":${JSON.stringify(message)},"logLevel":"INFO","timestamp":"${new Date().toISOString()}","annotations":{${text}},"spans":{},"fiberId":${JSON.stringify(FiberId.threadName(fiber.id()))}}`
  )
  return true
}

/** Logs as JSON lines: the default and the pretty logger (NodeRuntime.runMain's) are replaced by the JSON one. */
export const jsonLogs = Layer.scopedDiscard(
  Effect.locallyScopedWith(FiberRef.currentLoggers, (loggers) =>
    HashSet.add(HashSet.remove(HashSet.remove(loggers, Logger.defaultLogger), Logger.prettyLoggerDefault), jsonLines)
  )
)

/** Metrics (always) and traces (when an endpoint is set), with the log format. */
export const layer = (settings: Settings) => {
  const exporter = new PrometheusExporter({ preventServerStart: true, withoutScopeInfo: true })
  const serializer = new PrometheusSerializer(undefined, false, undefined, true, true)
  const prometheus = Layer.succeed(Prometheus, {
    scrape: Effect.promise(() => exporter.collect()).pipe(
      Effect.map(({ resourceMetrics }) => serializer.serialize(resourceMetrics))
    )
  })
  const resource = { serviceName: settings.serviceName }
  const sdk = Option.match(settings.tracesUrl, {
    onNone: () => Layer.merge(Resource.layer(resource), Layer.setTracerEnabled(false)),
    onSome: (url) =>
      NodeSdk.layer(() => ({
        resource,
        spanProcessor: new CountingBatchProcessor(
          new CountingExporter(new OTLPTraceExporter({ url, timeoutMillis: settings.exportTimeoutMs })),
          2048,
          { maxQueueSize: 2048, scheduledDelayMillis: 1000, exportTimeoutMillis: settings.exportTimeoutMs }
        ),
        shutdownTimeout: settings.exportTimeoutMs
      }))
  })
  const logger = settings.logFormat === "json" ? jsonLogs : Layer.empty
  return Layer.mergeAll(
    prometheus,
    OtelMetrics.layer(() => exporter),
    logger
  ).pipe(Layer.provideMerge(sdk))
}
