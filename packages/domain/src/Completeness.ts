/**
 * Whether a delivered unit is complete (issue 20): it holds every row asked for, or its upstream said there is no
 * more (`exhaustive`). A unit cut short (a limit, a budget, an unexpanded stub, a run stopped on its charge limit) is
 * delivered and billed for what it holds, but is stored as answering only as many rows as it holds, so a later
 * request for as many rows as were asked, or more, fetches again.
 */
import type * as Catalogue from "./Catalogue.js"
import type { Row } from "./ports/Measurements.js"

/** Rows (or result pages, for ops that measure pages) that delivered rows hold. */
export const held = (op: Catalogue.OpDef, rows: ReadonlyArray<Row>): number =>
  op.kind._tag === "Measure" && op.kind.paging === "pages"
    ? rows.reduce((n, r) => Math.max(n, Number(r["page"]) || 0), 0)
    : rows.length

/** Whether delivered rows are every row asked for or every row there is. */
export const complete = (op: Catalogue.OpDef, rows: ReadonlyArray<Row>, asked: number, exhaustive: boolean) =>
  exhaustive || held(op, rows) >= asked

/** The rows a stored delivery answers for: as asked when complete, else only as many as it holds. */
export const rowsAnswered = (op: Catalogue.OpDef, rows: ReadonlyArray<Row>, asked: number, exhaustive: boolean) =>
  complete(op, rows, asked, exhaustive) ? asked : Math.min(asked, held(op, rows))
