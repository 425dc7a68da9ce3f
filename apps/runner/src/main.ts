/**
 * `pnpm runner`: the nightly history refresh (scheduler and workers, on the cron schedule).
 * `pnpm runner once [--platform P] [--dry-run]`: one pass now, with live progress and a summary; `--dry-run` prints
 * what would be refreshed and what it would cost, spending nothing. Exits non-zero when the pass failed.
 */
import { NodeRuntime } from "@effect/platform-node"
import { Core, Refresh } from "@pdr/core"
import { Console, DateTime, Effect, Layer, Logger } from "effect"
import * as Display from "./Display.js"

const usage = "usage: pnpm runner [once [--platform P] [--dry-run]]"

/** The command line: the mode and its options. */
export const parseArgs = (argv: ReadonlyArray<string>) => {
  const args = [...argv]
  const mode = args[0] === "once" ? "once" : args.length === 0 ? "serve" : undefined
  if (mode === undefined) return undefined
  let platform: string | undefined
  let dryRun = false
  for (let i = 1; i < args.length; i++) {
    if (args[i] === "--dry-run") dryRun = true
    else if (args[i] === "--platform" && args[i + 1] !== undefined) platform = args[++i]
    else return undefined
  }
  return { mode, platform, dryRun } as const
}

const main = Effect.gen(function* () {
  const args = parseArgs(process.argv.slice(2))
  if (args === undefined) return yield* Effect.fail(usage)
  const core = yield* Core.config
  const settings = yield* Refresh.settingsConfig
  const services = Refresh.queueLayer(settings).pipe(
    Layer.provideMerge(Core.layer({ ...core, refreshAccountId: settings.accountId }))
  )
  const program = Effect.gen(function* () {
    const engine = yield* Refresh.make(settings)
    if (args.mode === "serve") {
      yield* engine.checkAccount
      yield* Effect.logInfo("refresh runner started", { cron: settings.cron })
      return yield* engine.scheduled
    }
    if (args.dryRun) {
      const plan = yield* engine.dryRun(args.platform)
      for (const e of plan.entries)
        yield* Console.log(
          `${e.withinBudget ? "refresh" : "skip (budget)"}  ${e.platform} ${e.op} ${e.subject}  ${e.credits} credits`
        )
      yield* Console.log(
        JSON.stringify({
          dryRun: true,
          entities: plan.entries.length,
          withinBudget: plan.entries.filter((e) => e.withinBudget).length,
          credits: plan.credits,
          budget: plan.budget
        })
      )
      return
    }
    const startedAt = Date.now()
    const report = Display.reporter(process.stdout, startedAt)
    const pass = Refresh.passId(DateTime.toDate(yield* DateTime.now), args.platform)
    const done = yield* engine.runPass(pass, args.platform, (p) => Effect.sync(() => report(p)))
    const summary = Display.summary(done, startedAt)
    yield* Console.log(JSON.stringify(summary))
    if (done.failed > 0) return yield* Effect.fail(`${done.failed} of ${done.total} entities failed`)
  })
  return yield* program.pipe(Effect.provide(services))
}).pipe(
  // a clear line for the operator, and a non-zero exit
  Effect.catchAll((e) =>
    Effect.zipRight(
      Console.error(`runner: ${typeof e === "string" ? e : e.message}`),
      Effect.sync(() => {
        process.exitCode = 1
      })
    )
  ),
  Effect.provide(Logger.json),
  Effect.provide(Layer.setTracerEnabled(false))
)

NodeRuntime.runMain(main, { disablePrettyLogger: true })
