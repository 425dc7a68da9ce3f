/** History (D9): the stored series of one metric per subject over the last `days` days; never bills or fetches. */
import { DateTime, Effect } from "effect"
import * as Catalogue from "./Catalogue.js"
import type { Measurements, Row, SeriesPoint } from "./ports/Measurements.js"

/** The history op of a platform, whose subject forms name the entities points are kept for. */
export const opFor = (platformId: string): Catalogue.OpDef | undefined => Catalogue.historyOp(platformId)

/** Answers a history request: one row per point, oldest first; a subject with no point is omitted. */
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
    const subjects = [...new Set(request["subjects"] as ReadonlyArray<string>)]
    const since = new Date(DateTime.toEpochMillis(now) - days * 86_400_000)
    const points = yield* measurements.history({
      platform: op.platform,
      entities: subjects,
      metric,
      store: store ?? null,
      since
    })
    const bySubject = new Map<string, Array<SeriesPoint>>()
    for (const p of points) {
      const series = bySubject.get(p.entity)
      if (series) series.push(p)
      else bySubject.set(p.entity, [p])
    }
    const data: Array<Row> = []
    const coverage = subjects.map((subject) => {
      const series = bySubject.get(subject) ?? []
      for (const p of series) {
        data.push({
          subject,
          measuredAt: p.measuredAt.toISOString(),
          metric,
          value: p.value,
          ...(p.store === "" ? {} : { store: p.store }),
          ...(p.stay === null ? {} : { stay: p.stay }),
          source: p.source
        })
      }
      const last = series[series.length - 1]
      return last === undefined
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
        : {
            subject,
            status: "stored" as const,
            measuredAt: last.measuredAt.toISOString(),
            rows: series.length,
            credits: 0,
            source: last.source
          }
    })
    return { data, coverage }
  })
