/** The steps of each op kind (`OpKind`): the one place a kind is matched to the module that owns its steps. */
import type { OpDef } from "./Catalogue.js"
import * as Measure from "./kinds/Measure.js"
import * as Reveal from "./kinds/Reveal.js"
import * as Run from "./kinds/Run.js"
import * as Series from "./kinds/Series.js"
import type { Fetches, Steps } from "./kinds/Steps.js"

export type { Delivered, Fetches, Reads, Records, Shaping, SourcePrice, Steps } from "./kinds/Steps.js"

/** The steps of an op's kind. */
export const stepsOf = (op: OpDef): Steps => {
  const kind = op.kind
  switch (kind._tag) {
    case "Measure":
      return kind.paging === "pages" ? Measure.pages : Measure.rows
    case "Series":
      return Series.steps
    case "Reveal":
      return Reveal.steps
    case "Run":
      return Run.steps
  }
}

/** The steps of an op whose calls are fetched; a read-only kind has none (it is never planned). */
export const fetching = (op: OpDef): Fetches => {
  const steps = stepsOf(op)
  if (steps._tag === "Reads") throw new Error(`${op.platform} ${op.name} is never planned`)
  return steps
}
