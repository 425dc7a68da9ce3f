/**
 * Reveal (D10): contact parts per person, bought once per org. A unit fetches only the parts its org does not hold
 * yet; it is priced by the parts revealed, each recorded with what it cost, and the settle charges them per part.
 * The answer has one contact row per person: parts owned, revealed now, or nothing on file.
 */
import { Effect } from "effect"
import { contactRow, cover } from "../Coverage.js"
import { iso } from "../Instants.js"
import * as Pricing from "../Pricing.js"
import type { Row } from "../ports/Measurements.js"
import type { Fetches, Shaping } from "./Steps.js"

/** A contact part an org buys (D10). */
export type Part = "email" | "phone"

/** The variant: contact parts revealed per org (D10); only the parts not held are fetched and paid. */
export interface Kind {
  readonly _tag: "Reveal"
  readonly parts: ReadonlyArray<Part>
}

const noRows: ReadonlyArray<Row> = []

/** Contact rows: one per person; parts held show even when the rest failed. */
export const contacts: Shaping = {
  stored: (_, u) => ({
    rows: [contactRow(u, undefined, undefined, undefined)],
    item: cover(
      u,
      "stored",
      iso(new Date(Math.max(...u.held.map((r) => r.at.getTime())))),
      1,
      0,
      u.held[0]?.source ?? null
    )
  }),
  omitted: (u) => (u.held.length > 0 ? [contactRow(u, undefined, undefined, undefined)] : noRows),
  fetched: (_, u, f) => [contactRow(u, f.outcome.rows[0], f.at, f.outcome.source)],
  counted: () => 1
}

/** The steps of every reveal. */
const revealing: Fetches = {
  _tag: "Fetches",
  prepare: () => Effect.succeed(undefined),
  held: (measurements, caller, persons) => measurements.reveals({ accountId: caller.accountId, persons }),
  buy: (op, request, held) => op.facets.parts(request).filter((part) => !held.some((r) => r.part === part)),
  fetches: (u) => u.buy.length > 0,
  fetchParts: (u) => u.buy,
  shares: false,
  kept: (rows, asked) => rows.slice(0, asked),
  quantity: (rows) => rows.length,
  delivered: (p, f) => {
    const row = f.outcome.rows[0]
    return Pricing.unitPrice(p.op.price, {
      rows: f.outcome.rows.length,
      completed: true,
      parts: f.unit.buy.filter((part) => typeof row?.[part] === "string"),
      ...(p.sourcePrice ? { sourcePrice: p.sourcePrice } : {})
    })
  },
  record: (caller, p, f, into) => {
    const row = f.outcome.rows[0]
    for (const part of f.unit.buy) {
      const value = row?.[part]
      into.reveals.push({
        accountId: caller.accountId,
        person: f.unit.entity,
        part,
        status: typeof value === "string" ? "revealed" : "nothing_on_file",
        value: typeof value === "string" ? value : null,
        at: f.at,
        source: f.outcome.source,
        credits:
          typeof value === "string"
            ? Pricing.roundUp(Pricing.unitPrice(p.op.price, { rows: 1, completed: true, parts: [part] }))
            : 0
      })
    }
  },
  capture: () => 0,
  shaping: contacts
}

/** The steps of a reveal. */
export const steps = (_: Kind): Fetches => revealing
