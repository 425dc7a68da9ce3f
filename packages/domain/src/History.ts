/**
 * History (D9): the stored series of one metric per subject over the last `days` days; never bills or fetches.
 * One row per subject (and source): `{subject, metric, source, measuredAt (the latest point), points}` with the
 * points oldest first, each `{measuredAt, value}` and the `stay` or `store` it was measured for, when there is one.
 */
import { DateTime, Effect } from "effect"
import * as Answers from "./Answers.js"
import * as Catalogue from "./Catalogue.js"
import type { Measurements, Row } from "./ports/Measurements.js"

/** The history op of a platform, whose subject forms name the entities points are kept for. */
export const opFor = (platformId: string): Catalogue.OpDef | undefined => Catalogue.historyOp(platformId)

/** Answers a history request; a subject with no point is omitted with `not_found`. */
export const answer = (
  measurements: Measurements["Type"],
  op: Catalogue.OpDef,
  request: Catalogue.OpRequest,
  store: string | undefined
) =>
  Effect.gen(function* () {
    const now = yield* DateTime.now
    const days = Number(request["days"])
    const metric = String(request["metric"])
    const subjects = op.facets.subjects(request)
    const since = new Date(DateTime.toEpochMillis(now) - days * 86_400_000)
    const series = yield* measurements.history({
      platform: op.platform,
      entities: subjects,
      metric,
      store: store ?? null,
      since
    })
    const data: Array<Row> = []
    const coverage = subjects.map((subject) => {
      const mine = series.filter((s) => s.entity === subject && s.count > 0)
      let rows = 0
      let latest: { measuredAt: string; source: string } | undefined
      for (const s of mine) {
        // the points stay the store's JSON text: written into the answer as they are
        data.push(Answers.withText({ subject, metric, source: s.source, measuredAt: s.latest, points: s.points }))
        rows += s.count
        if (latest === undefined || s.latest > latest.measuredAt) latest = { measuredAt: s.latest, source: s.source }
      }
      return latest === undefined
        ? {
            subject,
            status: "omitted" as const,
            measuredAt: null,
            rows: 0,
            credits: 0,
            source: null,
            reason: "not_found" as const,
            detail: `no stored ${metric} points in the last ${days} days`
          }
        : { subject, status: "stored" as const, measuredAt: latest.measuredAt, rows, credits: 0, source: latest.source }
    })
    return { data, coverage }
  })
