/** The catalogue's data of explore: ops, prices, windows, fields and rows. */

import * as F from "../../Fields.js"
import { PriceRule } from "../../Pricing.js"
import * as Special from "../../rows/Special.js"
import { free } from "../Common.js"
import { OpKinds, op, platform } from "../Model.js"

/** The explore platform. */
export const explore = platform(
  "explore",
  "Uncatalogued sources: raw, unverified rows, not kept as measured data.",
  "none",
  [
    op("sources", {
      rows: Special.exploreRow,
      description: "Best-matching sources with a per-row price (currently unavailable).",
      price: free,
      available: false,
      kind: OpKinds.Run({ source: false }),
      fields: { query: F.optional(F.text(300)) }
    }),
    op("schema", {
      rows: Special.exploreRow,
      description: "A source's live input fields, a sample input and a credit estimate (currently unavailable).",
      price: free,
      available: false,
      kind: OpKinds.Run({ source: false }),
      fields: { source: F.text(120) },
      label: (r) => String(r["source"])
    }),
    op("run", {
      rows: Special.exploreRow,
      description: "Runs a source with the given input; rows raw and unverified, billed per row returned.",
      price: PriceRule.PerSourceRow({ credits: 1, rows: 10 }),
      kind: OpKinds.Run({ source: true }),
      fields: {
        source: F.text(120).annotations({
          description:
            "a source this deployment serves: which sources are served depends on the deployment and changes without a new version of this document, so read them from the catalogue, GET /api/v1/platforms (explore, op run, its sources; D19)"
        }),
        input: F.withDefault(F.jsonObject({ maxDepth: 8, maxBytes: 8192 }), {}),
        limit: F.limit(10, 1, 100)
      },
      label: (r) => String(r["source"])
    })
  ]
)
