/**
 * What an op does, as a typed part of its catalogue entry: it measures data that is kept (per row or per result
 * page), reads a stored series back, reveals contact parts per org, or runs an uncatalogued source whose rows are
 * not kept. Each kind is one module under `kinds/` declaring its variant (`Kind`) with its steps (`steps`); this
 * module lists them, and no other module chooses a behaviour by an op's name or its price rule. A new kind is its
 * module and one entry in `kinds` below (with its import): the union follows.
 */
import { Data } from "effect"
import type { OpDef } from "./Catalogue.js"
import * as Measure from "./kinds/Measure.js"
import * as Reveal from "./kinds/Reveal.js"
import * as Run from "./kinds/Run.js"
import * as Series from "./kinds/Series.js"
import type { Fetches, Steps } from "./kinds/Steps.js"

export type { Part } from "./kinds/Reveal.js"
export type { Delivered, Fetches, Reads, Records, Shaping, SourcePrice, Steps } from "./kinds/Steps.js"

/** The steps of each kind module, keyed by the tag of its variant: the one list of the kinds. */
const kinds = { Measure: Measure.steps, Reveal: Reveal.steps, Run: Run.steps, Series: Series.steps }

/** The kind of an op: the variant of one of the kind modules. */
export type OpKind = Parameters<(typeof kinds)[keyof typeof kinds]>[0]

/** The steps of a kind, chosen by its tag (`$match` checks that each key takes its own module's variant). */
const stepsOfKind: (kind: OpKind) => Steps = Data.taggedEnum<OpKind>().$match(kinds)

/** The steps of an op's kind. */
export const stepsOf = (op: OpDef): Steps => stepsOfKind(op.kind)

/** The steps of an op whose calls are fetched; a read-only kind has none (it is never planned). */
export const fetching = (op: OpDef): Fetches => {
  const steps = stepsOf(op)
  if (steps._tag === "Reads") throw new Error(`${op.platform} ${op.name} is never planned`)
  return steps
}
