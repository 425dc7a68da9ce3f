/**
 * Run (D19): an uncatalogued source run with the request's input. Its rows are raw and unverified, never kept as
 * measured data and never shared between calls; a run of a named source is priced per row at that source's price.
 */
import { Effect, Option } from "effect"
import { EveryUnitFailed } from "../CallErrors.js"
import * as Requests from "../Requests.js"
import { measuring } from "./Measure.js"
import type { Fetches } from "./Steps.js"

const measuringRows = measuring("rows")

/** The variant: an uncatalogued source run (D19), raw rows never kept; `source` says whether the request names a priced source. */
export interface Kind {
  readonly _tag: "Run"
  readonly source: boolean
}

/** The steps of every run. */
const running: Fetches = {
  ...measuringRows,
  prepare: (upstream, op, request) =>
    Effect.gen(function* () {
      const name = op.facets.source(request)
      if (name === undefined) return undefined
      const source = yield* upstream
        .exploreSource(name)
        .pipe(Effect.mapError(() => new EveryUnitFailed({ coverage: [] })))
      if (Option.isSome(source)) return source.value.price
      const served = yield* upstream.exploreSources().pipe(Effect.orElseSucceed(() => []))
      return yield* new Requests.InvalidRequest({
        message: "unknown explore source",
        details: [
          new Requests.FieldProblem({
            path: "request.source",
            message: `names no source served now; the sources are ${served.map((s) => s.name).join(", ")}`
          })
        ]
      })
    }),
  shares: false,
  record: () => undefined
}

/** The steps of a run. */
export const steps = (_: Kind): Fetches => running
