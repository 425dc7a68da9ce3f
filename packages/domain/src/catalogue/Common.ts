/** What several platforms' data share: price rules by their terms, common fields, a platform's history op. */
import { Array as Arr, Record as Rec, Schema } from "effect"
import * as F from "../Fields.js"
import { PriceRule } from "../Pricing.js"
import type * as R from "../rows/Row.js"
import * as Special from "../rows/Special.js"
import type * as S from "../Subjects.js"
import { OpKinds, op } from "./Model.js"

export const perSubject = (credits: number) => PriceRule.PerSubject({ credits })
export const perRows = (credits: number, rows: number) => PriceRule.PerRows({ credits, rows })
export const free = PriceRule.Free()

export const query = F.text(300)
export const location = F.text(120)

export const history = <const M extends string, Ex extends Schema.Struct.Fields = {}>(
  spec: S.SubjectSpec,
  sources: Readonly<Record<M, R.MetricSource>>,
  extra?: Ex,
  maxSubjects = 10
) => {
  const metrics = Rec.keys(sources)
  if (!Arr.isNonEmptyReadonlyArray(metrics)) throw new Error("a history op needs at least one metric")
  return op("history", {
    kind: OpKinds.Series(),
    description: `Stored series of one metric (${metrics.join(", ")}) over the last days; free, never fetches.`,
    price: free,
    subjects: spec,
    fields: {
      subjects: F.subjects(spec, maxSubjects),
      ...extra,
      metric: F.metric(metrics, metrics[0]),
      days: F.days
    },
    rows: {},
    answerRow: Special.historyRow(metrics),
    metricSources: sources
  })
}

export const dateOrderNote = { description: "`until` must not be before `since` (refused with a 400 naming `until`)" }

export const dateOrder = (r: Record<string, unknown>) =>
  typeof r["since"] === "string" && typeof r["until"] === "string" && r["until"] < r["since"]
    ? { path: ["until"], message: "must not be before since" }
    : true
