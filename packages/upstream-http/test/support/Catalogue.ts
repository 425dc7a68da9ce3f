// The test side of the shipped provider catalogue (issue 20): an actor's recorded-shape items
// (test/fixtures/provider/<actor>.json, built from the actor's documented output) mapped as the adapter maps them.
import { readFileSync } from "node:fs"
import { Catalogue } from "@pdr/domain"
import * as Mapping from "../../src/Mapping.js"
import * as ProviderCatalogue from "../../src/ProviderCatalogue.js"
import { decodeRow } from "./Adapters.js"

/** The recorded items of an actor. */
export const recorded = (actor: string): ReadonlyArray<unknown> =>
  JSON.parse(readFileSync(new URL(`../fixtures/provider/${actor}.json`, import.meta.url), "utf8"))

/**
 * The rows of an actor's recorded items as the adapter makes them (error items apart; a store-scoped row carries
 * `store`, the store the unit was resolved to, unless the mapping maps it), each decoded; `request` is the unit's
 * decoded request, for the row fields a mapping reads from it (`{ "request": ... }`).
 */
export const mapped = (key: string, request: Record<string, unknown> = {}, store = "geo:12.9716,77.5946") => {
  const m = ProviderCatalogue.mappings[key]!
  const [platform, op] = key.split(".") as [string, string]
  const def = Catalogue.findOp(platform, op)!
  const fields = Mapping.rowFields(def)
  const errors: Array<ReturnType<typeof Mapping.errorItem>> = []
  const rows = recorded(m.actor).flatMap((item) => {
    const e = Mapping.errorItem(m, item)
    if (e) {
      errors.push(e)
      return []
    }
    return Mapping.rowsOf(m, item, fields.nullable, request)
  })
  const stored = def.scope === "store" && fields.all.includes("store") && !("store" in m.rows)
  const positioned = rows.map(
    (r, i): Record<string, unknown> => ({
      ...r,
      ...(fields.all.includes("position") && !("position" in m.rows) ? { position: i + 1 } : {}),
      ...(stored ? { store } : {})
    })
  )
  for (const row of positioned) decodeRow(platform, op, row)
  return { rows: positioned, errors }
}
