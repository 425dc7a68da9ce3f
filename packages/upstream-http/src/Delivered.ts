/**
 * What an HTTP adapter hands to the domain, checked against the catalogue: every mapped row must decode with its op's
 * delivered-row Schema (a unit with a row that does not fails with a clear detail, never half passed on), and history
 * points are measured from rows by the platform's metric sources, never restated here.
 */
import { Catalogue, type Measurements as M, Rows, type Upstream as U } from "@pdr/domain"
import { Effect, Either, ParseResult, Schema } from "effect"
import { Failure } from "./Policy.js"

const validators = new Map<Catalogue.OpDef, (row: unknown) => Either.Either<unknown, ParseResult.ParseError>>()

const validator = (op: Catalogue.OpDef) => {
  let v = validators.get(op)
  if (v === undefined && op.delivered !== undefined) {
    v = Schema.decodeUnknownEither(op.delivered)
    validators.set(op, v)
  }
  return v
}

/** The rows, if each decodes with the op's delivered-row Schema. */
export const check = (
  unit: Pick<U.UnitRequest, "platform" | "op">,
  rows: ReadonlyArray<M.Row>
): Effect.Effect<ReadonlyArray<M.Row>, Failure> => {
  const op = Catalogue.findOp(unit.platform, unit.op)
  const decode = op && validator(op)
  if (decode === undefined) return Effect.succeed(rows)
  for (const [i, row] of rows.entries()) {
    const decoded = decode(row)
    if (Either.isLeft(decoded))
      return Effect.fail(
        new Failure({
          reason: "malformed",
          detail: `row ${i + 1} is not a ${unit.platform} ${unit.op} row: ${ParseResult.TreeFormatter.formatErrorSync(decoded.left).slice(0, 400)}`
        })
      )
  }
  return Effect.succeed(rows)
}

/** The history point of one entity from its rows, by the platform's metric sources; none without rows or metrics. */
export const point = (platform: string, subject: string, rows: ReadonlyArray<M.Row>): U.PointReport | undefined => {
  const sources = Catalogue.historyOp(platform)?.metricSources
  if (sources === undefined || rows.length === 0) return undefined
  const metrics: Record<string, number> = {}
  for (const [metric, source] of Object.entries(sources)) {
    const value = Rows.measure(source, rows)
    if (value !== undefined) metrics[metric] = value
  }
  return Object.keys(metrics).length === 0 ? undefined : { subject, metrics }
}
