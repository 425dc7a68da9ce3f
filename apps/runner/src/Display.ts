/** The operator's view of a pass: a live line on a terminal, plain log lines otherwise, and the summary. */
import type { Refresh } from "@pdr/core"

const perSecond = (done: number, startedAt: number) => done / Math.max(0.001, (Date.now() - startedAt) / 1000)

/** One progress line. */
export const line = (p: Refresh.Progress, startedAt: number): string =>
  `${p.pass}: ${p.done}/${p.total} done, ${perSecond(p.done, startedAt).toFixed(1)}/s, ` +
  `${p.credits}/${p.budget} credits, ${p.failed} failed${p.overBudget > 0 ? `, ${p.overBudget} over budget` : ""}`

/** A progress reporter: rewrites one line on a TTY; else a log line at most every `everyMs`. */
export const reporter = (out: NodeJS.WriteStream, startedAt: number, everyMs = 5000) => {
  let lastPlain = 0
  return (p: Refresh.Progress) => {
    if (out.isTTY) {
      out.write(`\r\x1b[2K${line(p, startedAt)}`)
      if (p.done >= p.total) out.write("\n")
      return
    }
    const now = Date.now()
    if (now - lastPlain >= everyMs || p.done >= p.total) {
      lastPlain = now
      out.write(
        `${JSON.stringify({ level: "info", message: "refresh progress", ...p, at: new Date(now).toISOString() })}\n`
      )
    }
  }
}

/** The summary printed at the end of a pass. */
export const summary = (p: Refresh.Progress, startedAt: number) => ({
  pass: p.pass,
  total: p.total,
  refreshed: p.refreshed,
  fresh: p.fresh,
  omitted: p.omitted,
  failed: p.failed,
  overBudget: p.overBudget,
  creditsSpent: p.credits,
  budget: p.budget,
  seconds: Math.round((Date.now() - startedAt) / 100) / 10,
  perSecond: Math.round(perSecond(p.done, startedAt) * 10) / 10
})
