/**
 * `pnpm runner`: the nightly history refresh (scheduler and workers, on the cron schedule).
 * `pnpm runner once [--platform P] [--dry-run] [--retry-failed]`: one pass now, with live progress and a summary.
 * Arguments are parsed by @effect/cli; the exit code says how the pass ended (see `ExitCode`).
 */
import { Command, Options, ValidationError } from "@effect/cli"
import { NodeContext, NodeRuntime } from "@effect/platform-node"
import { Core, Refresh, Telemetry, Terminal } from "@pdr/core"
import { Failures } from "@pdr/store-pg"
import { Cause, Config, Console, DateTime, Effect, Exit, Layer, Logger, Option } from "effect"
import * as Display from "./Display.js"
import * as HealthServer from "./HealthServer.js"

/** The runner's exit codes. */
export const ExitCode = {
  /** Every entity ended refreshed, fresh or omitted. */
  success: 0,
  /** Configuration or store error (nothing about the pass can be said). */
  error: 1,
  /** Bad arguments (an unknown option or platform). */
  badArguments: 2,
  /** The budget was reached with entities left (over budget). */
  budget: 3,
  /** Some entities failed (the summary and the log say why). */
  failures: 4,
  /** Interrupted (SIGINT, SIGTERM) mid-pass; the summary was printed. */
  interrupted: 130
} as const

const codeOf: Record<Refresh.Outcome, number> = {
  complete: ExitCode.success,
  budget: ExitCode.budget,
  failures: ExitCode.failures,
  interrupted: ExitCode.interrupted
}

const setCode = (code: number) =>
  Effect.sync(() => {
    process.exitCode = code
  })

/** The services of the runner: the core (its database, ports, upstream) from the environment. */
const services = (serving: boolean) =>
  Effect.gen(function* () {
    const core = yield* Core.checkedConfig
    // the refresh's fetches are unique per (pass, entity) across runners (the job's key): the cross-instance fetch
    // lease (SHARED_FETCHES) would only cost each entity its statements (about a sixth of a refresh's), so it is off
    // in the runner unless set; a server call fetching the same entity at the same moment makes its own measurement
    const sharedFetches = yield* Config.boolean("SHARED_FETCHES").pipe(Config.withDefault(false))
    const settings = yield* Refresh.settingsConfig
    // issue 25: probes and metrics on HEALTH_PORT while serving; traces when an OTLP endpoint is set (the runner's
    // logs keep their own format: Display.logger)
    const telemetry = { ...(yield* Telemetry.settingsConfig("pdr-runner")), logFormat: "pretty" as const }
    const health = yield* HealthServer.settingsConfig
    const layer = (serving ? HealthServer.layer(health) : Layer.empty).pipe(
      Layer.provideMerge(
        Core.layer({
          ...core,
          sharedFetches,
          refreshAccountId: settings.accountId,
          tracing: Option.isSome(telemetry.tracesUrl)
        })
      ),
      Layer.provideMerge(Telemetry.layer(telemetry))
    )
    return { settings, layer }
  })

const withEngine = <A, E>(
  serving: boolean,
  use: (
    engine: Effect.Effect.Success<ReturnType<typeof Refresh.make>>,
    settings: Refresh.Settings
  ) => Effect.Effect<A, E, never>
) =>
  Effect.gen(function* () {
    const { settings, layer } = yield* services(serving)
    return yield* Effect.flatMap(Refresh.make(settings), (engine) => use(engine, settings)).pipe(Effect.provide(layer))
  })

const platform = Options.text("platform").pipe(
  Options.withDescription("refresh only this platform's entities (a platform id of the catalogue)"),
  Options.optional
)
const dryRun = Options.boolean("dry-run").pipe(
  Options.withDescription("print what would be refreshed and what it would cost; spend nothing")
)
const retryFailed = Options.boolean("retry-failed").pipe(
  Options.withDescription("run today's pass again for its failed entities (after the cause is fixed)")
)

const once = Command.make("once", { platform, dryRun, retryFailed }, (args) =>
  // a bad argument is refused before the configuration and the store are read: exit 2, whatever else is wrong
  Effect.zipRight(
    Refresh.checkPlatform(Option.getOrUndefined(args.platform)),
    withEngine(false, (engine, settings) =>
      Effect.gen(function* () {
        const only = Option.getOrUndefined(args.platform)
        if (args.dryRun) {
          const plan = yield* engine.dryRun(only)
          for (const e of plan.entries)
            yield* Console.log(
              `${e.withinBudget ? "refresh" : "skip (budget)"}  ${e.platform} ${e.op} ${e.subject}  ${e.credits} credits`
            )
          yield* Console.log(
            `at most ${plan.credits} credits of the ${plan.budget} budget; expected about ${plan.expected} (from ${plan.expectedFrom})`
          )
          yield* Console.log(
            JSON.stringify({
              dryRun: true,
              entities: plan.entries.length,
              withinBudget: plan.entries.filter((e) => e.withinBudget).length,
              credits: plan.credits,
              expected: plan.expected,
              budget: plan.budget
            })
          )
          return
        }
        const startedAt = Date.now()
        const pass = Refresh.passId(DateTime.toDate(yield* DateTime.now), only)
        yield* engine.checkAccount
        if (!args.retryFailed) {
          const before = yield* engine.endedPass(pass)
          if (Option.isSome(before)) {
            const outcome = Refresh.outcomeOf(before.value)
            yield* Console.error(
              `runner: pass ${pass} already ran today; its summary follows${before.value.failed > 0 ? " (--retry-failed runs its failed entities again)" : ""}`
            )
            yield* Console.log(JSON.stringify({ ...Display.summary(before.value, startedAt, outcome), rerun: true }))
            return yield* setCode(codeOf[outcome])
          }
        }
        const report = Display.reporter(process.stdout, startedAt)
        const finish = (p: Refresh.Progress, outcome: Refresh.Outcome) =>
          Effect.gen(function* () {
            Display.endLive(process.stdout)
            yield* Console.log(JSON.stringify(Display.summary(p, startedAt, outcome)))
            if (p.failed > 0) {
              for (const f of yield* engine.failures(pass, 5))
                yield* Console.error(`failed: ${f.key.slice(f.key.indexOf("|") + 1)}: ${f.reason}`)
            }
            yield* setCode(codeOf[outcome])
          })
        yield* engine
          .runPass(pass, only, (p) => Effect.sync(() => report(p)), { retryFailed: args.retryFailed })
          .pipe(
            Effect.tap((done) => finish(done, Refresh.outcomeOf(done))),
            // SIGINT / SIGTERM: the workers give their jobs back, and the pass's state is the summary
            Effect.onInterrupt(() =>
              engine.progress(pass).pipe(
                Effect.flatMap((p) => finish(p, "interrupted")),
                Effect.catchAllCause((c) => Console.error(`runner: interrupted; no summary (${Cause.pretty(c)})`))
              )
            )
          )
        void settings
      })
    )
  )
).pipe(Command.withDescription("run one pass now, with live progress and a summary"))

const root = Command.make("runner", {}, () =>
  withEngine(true, (engine, settings) =>
    Effect.gen(function* () {
      yield* engine.checkAccount
      yield* Effect.logInfo("refresh runner started", { cron: settings.cron, runner: engine.runner })
      return yield* engine.scheduled
    })
  )
).pipe(
  Command.withDescription(
    "the nightly history refresh on the REFRESH_CRON schedule (see the README's refresh section for the environment)"
  ),
  Command.withSubcommands([once])
)

const cli = Command.run(root, { name: "pnpm runner", version: "0.1.0" })

// `--platform` last, with no value: @effect/cli would call it an unknown argument; it is a known one missing its value
const args = process.argv.slice(2)
const main = (
  args[0] === "once" && args.at(-1) === "--platform"
    ? Effect.fail(new Refresh.UnknownPlatform({ platform: "" }))
    : Effect.consoleWith((console) => Effect.withConsole(cli(process.argv), Terminal.plainWhereNeeded(console)))
).pipe(
  Effect.catchAll((e) => {
    if (ValidationError.isValidationError(e)) return setCode(ExitCode.badArguments)
    const tagged = e as { _tag?: string; message?: string }
    // a database not reached: where and why, not the client's "Failed to connect" alone
    const unreached = Failures.unreachableAtStart(Cause.fail(e), process.env["DATABASE_URL"] ?? "")
    return Effect.zipRight(
      Console.error(`runner: ${unreached ?? (typeof e === "string" ? e : (tagged.message ?? String(e)))}`),
      setCode(tagged._tag === "UnknownPlatform" ? ExitCode.badArguments : ExitCode.error)
    )
  }),
  Effect.provide(NodeContext.layer),
  Effect.provide(Logger.replace(Logger.defaultLogger, Display.logger(process.stdout, process.stderr)))
)

NodeRuntime.runMain(main, {
  disablePrettyLogger: true,
  // the exit code set by the command (an interrupted pass printed its summary and set 130)
  teardown: (exit, onExit) =>
    onExit(
      process.exitCode !== undefined && process.exitCode !== 0
        ? Number(process.exitCode)
        : Exit.isFailure(exit) && !Cause.isInterruptedOnly(exit.cause)
          ? ExitCode.error
          : Exit.isFailure(exit)
            ? ExitCode.interrupted
            : 0
    )
})
