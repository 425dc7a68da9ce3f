/** Rows that are not measured cards: explore's raw rows, revealed contacts and history series (D10, D17). */
import { Schema } from "effect"
import * as R from "./Row.js"

/** A raw row of an explore source (run): not verified, not kept. */
export const exploreRow = {
  position: R.position,
  raw: Schema.Record({ key: Schema.String, value: Schema.Unknown }).annotations({
    description: "the source's row as it gave it"
  }),
  input: Schema.Record({ key: Schema.String, value: Schema.Unknown }).annotations({
    description: "the input the source was run with"
  })
}

/** What an adapter delivers for one person: each part asked, its value or null (nothing on file). */
export const contactDelivery = {
  email: R.optional(R.nullable(R.str("email address; null when nothing is on file"))),
  phone: R.optional(R.nullable(R.str("phone number; null when nothing is on file")))
}

const part = Schema.Union(
  Schema.Struct({
    status: Schema.Literal("revealed").annotations({ description: "bought by this call" }),
    value: R.str("the revealed value")
  }),
  Schema.Struct({
    status: Schema.Literal("owned").annotations({ description: "revealed to this org before: free" }),
    value: R.str("the revealed value"),
    revealedAt: R.dateTime("when this org revealed it")
  }),
  Schema.Struct({
    status: Schema.Literal("nothing_on_file").annotations({ description: "upstream has nothing: never bought again" }),
    value: Schema.Null
  })
)

/** A contacts answer row: one per person, each asked part with its status (D10). */
export const contactRow = Schema.Struct({
  subject: R.envelope.subject,
  measuredAt: R.envelope.measuredAt,
  source: R.nullable(R.str("the adapter that revealed the parts")),
  email: R.optional(part.annotations({ description: "the email part, when asked" })),
  phone: R.optional(part.annotations({ description: "the phone part, when asked" }))
})

/** A history answer row (D17): one per subject and source, points oldest first. */
export const historyRow = <const M extends string>(metrics: readonly [M, ...Array<M>]) =>
  Schema.Struct({
    subject: R.envelope.subject,
    metric: Schema.Literal(...metrics).annotations({ description: "the metric of the series" }),
    source: R.envelope.source,
    measuredAt: R.dateTime("when the latest point was measured"),
    points: Schema.Array(
      Schema.Struct({
        measuredAt: R.dateTime("when the point was measured"),
        value: R.num("the metric's value (unit as the row field it is measured from)"),
        stay: R.optional(
          Schema.Record({ key: Schema.String, value: Schema.Unknown }).annotations({
            description: "the stay the point was priced for"
          })
        ),
        store: R.optional(R.str("the store the point was measured at"))
      })
    ).annotations({ description: "points, oldest first" })
  })
