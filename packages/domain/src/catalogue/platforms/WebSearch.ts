/** The catalogue's data of web_search: ops, prices, windows, fields and rows. */

import * as F from "../../Fields.js"
import { PriceRule } from "../../Pricing.js"
import * as WebSearch from "../../rows/WebSearch.js"
import { dateOrder, dateOrderNote, perRows, query } from "../Common.js"
import { playApp } from "../Forms.js"
import { DAY, OpKinds, op, platform } from "../Model.js"

/** The web_search platform. */
export const webSearch = platform(
  "web_search",
  "Web search engine: results, news, images, shopping, app reviews.",
  "none",
  [
    op("search", {
      rows: WebSearch.result,
      description: "Result pages of about ten results; supports site:, intitle: and OR.",
      kind: OpKinds.Measure({ paging: "pages" }),
      price: PriceRule.PerPage({ credits: 1 }),
      fields: {
        query,
        pages: F.withDefault(F.int(1, 5), 1),
        country: F.optional(F.Alpha2),
        language: F.optional(F.Bcp47),
        site: F.optional(F.text(120)),
        relatedToSite: F.optional(F.text(120)),
        since: F.optional(F.Day),
        until: F.optional(F.Day),
        fileTypes: F.list(F.text(8))
      },
      checkJsonSchema: dateOrderNote,
      check: dateOrder
    }),
    op("news", {
      rows: WebSearch.article,
      description: "News articles matching a query.",
      price: perRows(39, 20),
      fields: {
        query,
        postedWithin: F.withDefault(F.oneOf("1h", "1d", "7d", "1y", "any"), "7d"),
        country: F.withDefault(F.Alpha2, "US"),
        language: F.withDefault(F.Bcp47, "en"),
        limit: F.limit(20, 1, 100)
      }
    }),
    op("images", {
      rows: WebSearch.image,
      description: "Images matching a query.",
      price: perRows(20, 20),
      fields: { query, limit: F.limit(20, 1, 100) }
    }),
    op("shopping", {
      rows: WebSearch.offer,
      description: "Shopping offers matching a query.",
      price: perRows(58, 20),
      fields: {
        query,
        country: F.withDefault(F.Alpha2, "US"),
        language: F.withDefault(F.Bcp47, "en"),
        postedWithin: F.withDefault(F.oneOf("1h", "1d", "7d", "30d", "any"), "any"),
        limit: F.limit(20, 1, 100)
      }
    }),
    op("playReviews", {
      rows: WebSearch.appReview,
      description: "App store reviews of apps by package id or store URL.",
      price: perRows(5, 50),
      fresh: 1 * DAY,
      subjects: playApp,
      fields: {
        subjects: F.subjects(playApp, 5),
        country: F.withDefault(F.Alpha2, "US"),
        language: F.withDefault(F.Bcp47, "en"),
        sort: F.withDefault(F.oneOf("newest", "rating_high", "helpful"), "newest"),
        limit: F.limit(50, 1, 100)
      }
    })
  ]
)
