/**
 * The operator's view of a pass: a live line on a terminal, plain log lines otherwise, and the summary. Log lines
 * (JSON, on stderr) never break the live line: it is cleared before a log line and drawn again after it.
 */
import type { Refresh } from "@pdr/core"
import { Logger } from "effect"

const perSecond = (done: number, startedAt: number) => done / Math.max(0.001, (Date.now() - startedAt) / 1000)

/** One progress line. */
export const line = (p: Refresh.Progress, startedAt: number): string =>
  `${p.pass}: ${p.done}/${p.total}${p.planned ? "" : "+ (planning)"} done, ${perSecond(p.done, startedAt).toFixed(1)}/s, ` +
  `${p.credits}/${p.budget} credits, ${p.failed} failed${p.overBudget > 0 ? `, ${p.overBudget} over budget` : ""}`

/** The live line being shown on a terminal, redrawn after each log line. */
const live = { text: "" }

/** A progress reporter: rewrites one line on a TTY; else a log line at most every `everyMs`. */
export const reporter = (out: NodeJS.WriteStream, startedAt: number, everyMs = 5000) => {
  let lastPlain = 0
  return (p: Refresh.Progress) => {
    if (out.isTTY) {
      live.text = line(p, startedAt)
      out.write(`\r\x1b[2K${live.text}`)
      return
    }
    const now = Date.now()
    if (now - lastPlain >= everyMs) {
      lastPlain = now
      out.write(
        `${JSON.stringify({ level: "info", message: "refresh progress", ...p, at: new Date(now).toISOString() })}\n`
      )
    }
  }
}

/** Ends the live line (before the summary). */
export const endLive = (out: NodeJS.WriteStream) => {
  if (out.isTTY && live.text !== "") out.write("\n")
  live.text = ""
}

/** JSON log lines on stderr that clear the live line first and draw it again after. */
export const logger = (out: NodeJS.WriteStream, err: NodeJS.WriteStream) =>
  Logger.map(Logger.jsonLogger, (json) => {
    const tty = out.isTTY && live.text !== ""
    if (tty) out.write("\r\x1b[2K")
    err.write(`${json}\n`)
    if (tty) out.write(live.text)
  })

/** The summary printed at the end of a pass. */
export const summary = (p: Refresh.Progress, startedAt: number, outcome: Refresh.Outcome) => ({
  pass: p.pass,
  outcome,
  total: p.total,
  refreshed: p.refreshed,
  fresh: p.fresh,
  omitted: p.omitted,
  failed: p.failed,
  overBudget: p.overBudget,
  left: Math.max(0, p.total - p.done),
  creditsSpent: p.credits,
  budget: p.budget,
  seconds: Math.round((Date.now() - startedAt) / 100) / 10,
  perSecond: Math.round(perSecond(p.done, startedAt) * 10) / 10
})
