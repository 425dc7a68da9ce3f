/** Starts the service: the public API, the operator API and the background work. */
import { NodeRuntime } from "@effect/platform-node"
import { Core, Refresh } from "@pdr/core"
import { Failures } from "@pdr/store-pg"
import { Cause, ConfigError, Console, Effect, Exit, Layer, Option } from "effect"
import * as OperatorToken from "./admin/OperatorToken.js"
import * as Config from "./Config.js"
import * as Demo from "./Demo.js"
import * as Server from "./Server.js"

/**
 * A configuration error's text without its wrapper (`(Invalid data at : "X must be ...")` -> `X must be ...`); when
 * some settings are set wrong, only those (not the unset ones an optional part also lacks).
 */
const configLine = (e: ConfigError.ConfigError): string => {
  const at = (path: ReadonlyArray<string>, message: string) =>
    path.length === 0 ? message : `${path.join(".")}: ${message}`
  const parts = ConfigError.reduceWithContext<
    undefined,
    ReadonlyArray<{ readonly wrong: boolean; readonly text: string }>
  >(e, undefined, {
    andCase: (_, l, r) => [...l, ...r],
    orCase: (_, l, r) => [...l, ...r],
    invalidDataCase: (_, path, message) => [{ wrong: true, text: at(path, message) }],
    missingDataCase: (_, path, message) => [{ wrong: false, text: at(path, message) }],
    sourceUnavailableCase: (_, path, message) => [{ wrong: true, text: at(path, message) }],
    unsupportedCase: (_, path, message) => [{ wrong: true, text: at(path, message) }]
  })
  const shown = parts.some((p) => p.wrong) ? parts.filter((p) => p.wrong) : parts
  return [...new Set(shown.map((p) => p.text))].join("; ")
}

const main = Effect.gen(function* () {
  const config = yield* Config.server
  const core = yield* Core.checkedConfig
  const target = core.target
  const adminToken = yield* OperatorToken.resolve(config.adminToken, config.dataDir)
  // graceful shutdown: on SIGTERM the listeners stop accepting and calls in flight finish, within this bound
  for (const signal of ["SIGTERM", "SIGINT"] as const) {
    process.once(signal, () => {
      setTimeout(() => {
        console.error(`shutdown took over ${config.shutdownTimeoutMs} ms; exiting`)
        process.exit(1)
      }, config.shutdownTimeoutMs).unref()
    })
  }
  const startup = Effect.gen(function* () {
    const shown = config.host === "0.0.0.0" ? "localhost" : config.host
    if (target._tag === "Embedded" && config.demo) yield* Demo.seed(`http://${shown}:${config.port}`)
    const database =
      target._tag === "Embedded" ? `the embedded database (${target.dataDir})` : "PostgreSQL (DATABASE_URL)"
    const token = `ADMIN_TOKEN or ${OperatorToken.path(config.dataDir)}`
    // issue 25: as JSON lines every line is a log record, the banner too
    if (config.telemetry.logFormat === "json")
      return yield* Effect.logInfo("Platform Data Retrieval API started").pipe(
        Effect.annotateLogs({
          database,
          api: `http://${shown}:${config.port}/api/v1/platforms`,
          docs: `http://${shown}:${config.port}/docs`,
          operator: `http://${config.adminHost}:${config.adminPort}/admin`,
          metrics: `http://${config.adminHost}:${config.adminPort}/metrics`,
          probes: `http://${shown}:${config.port}/readyz`,
          token,
          traces: Option.getOrElse(config.telemetry.tracesUrl, () => "off")
        })
      )
    yield* Console.log(
      [
        `Platform Data Retrieval API on ${database}`,
        `  API:      http://${shown}:${config.port}/api/v1/platforms`,
        `  Docs:     http://${shown}:${config.port}/docs  (OpenAPI: /openapi.json)`,
        `  Operator: http://${config.adminHost}:${config.adminPort}/admin  (token: ${token})`,
        `  Probes:   http://${shown}:${config.port}/healthz, /readyz; metrics: http://${config.adminHost}:${config.adminPort}/metrics`
      ].join("\n")
    )
  })
  // the embedded database is this process's alone: the nightly refresh runs here, on the same schedule as `pnpm runner`
  // off when REFRESH_ACCOUNT_ID (or any refresh setting) is unset alone; a setting set out of its range is refused
  const refresh = yield* Effect.either(Refresh.settingsConfig)
  if (refresh._tag === "Left" && !ConfigError.isMissingDataOnly(refresh.left)) return yield* Effect.fail(refresh.left)
  const inProcessRefresh =
    target._tag !== "Embedded"
      ? Layer.empty
      : refresh._tag === "Right"
        ? Refresh.scheduledLayer(refresh.right)
        : Layer.effectDiscard(Effect.logInfo("nightly refresh off: set REFRESH_ACCOUNT_ID to an operator account"))
  return yield* Layer.launch(
    Layer.mergeAll(Layer.effectDiscard(startup), inProcessRefresh).pipe(
      // traces only with an OTLP endpoint (Telemetry): else spans (one per SQL statement, per Effect.fn) would only be
      // allocated and dropped
      Layer.provideMerge(Server.layer({ ...config, ...core, adminToken }))
    )
  ).pipe(
    // a database not reached at start is said in one line naming where (not a stack), and the exit code is 1
    Effect.catchAllCause((cause) => {
      const line = target._tag === "Server" ? Failures.unreachableAtStart(cause, target.url) : undefined
      return line === undefined
        ? Effect.failCause(cause)
        : Effect.zipRight(
            Effect.logError(line),
            Effect.sync(() => {
              process.exitCode = 1
            })
          )
    })
  )
})

// a setting out of its range (or not a number) is one line naming it, exit 1, before anything starts
const started = main.pipe(
  Effect.catchIf(ConfigError.isConfigError, (e) =>
    Effect.zipRight(
      Console.error(`server: ${configLine(e)}`),
      Effect.sync(() => {
        process.exitCode = 1
      })
    )
  )
)

NodeRuntime.runMain(started, {
  // the exit code set above (the database not reached), else 1 on a failure, 0 otherwise
  teardown: (exit, onExit) =>
    onExit(
      process.exitCode !== undefined && process.exitCode !== 0
        ? Number(process.exitCode)
        : Exit.isFailure(exit) && !Cause.isInterruptedOnly(exit.cause)
          ? 1
          : 0
    )
})
