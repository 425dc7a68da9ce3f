/**
 * The provider catalogue shipped with the service (issue 20): for an op no native adapter serves, the public actor of
 * the hosted provider that serves it, read from the actor's page in the provider's store (cited per mapping): its
 * input template, its row mapping and its price per item. Operators override or add mappings with PROVIDER_MAPPINGS
 * (a file) or PROVIDER_OPS (JSON). Ops not listed stay on their default route; `unmapped` says why.
 *
 * Every input field, output field and price below was read on the cited page; nothing is guessed. Each mapping has a
 * recorded-shape item in test/fixtures/provider/<actor>.json built from that page's output and a mapping test.
 */
import { Catalogue } from "@pdr/domain"
import { Either } from "effect"
import * as Mapping from "./Mapping.js"
import * as Fashion from "./provider-catalogue/Fashion.js"
import * as Jobs from "./provider-catalogue/Jobs.js"
import * as Maps from "./provider-catalogue/Maps.js"
import * as QuickCommerce from "./provider-catalogue/QuickCommerce.js"
import * as ShortVideo from "./provider-catalogue/ShortVideo.js"
import * as SocialNetwork from "./provider-catalogue/SocialNetwork.js"
import * as Stays from "./provider-catalogue/Stays.js"
import * as TravelReviews from "./provider-catalogue/TravelReviews.js"
import * as WebSearch from "./provider-catalogue/WebSearch.js"

/** One module per platform group (src/provider-catalogue): its mappings and the reasons of its unmapped ops. */
const groups = [WebSearch, ShortVideo, Jobs, Maps, SocialNetwork, Stays, TravelReviews, Fashion, QuickCommerce] as const

/** `platform.op` -> mapping (decoded here: a shipped mapping that does not decode is a bug caught by its test). */
export const mappings: Readonly<Record<string, Mapping.OpMapping>> = Either.getOrThrow(
  Mapping.decodeMappings(Object.assign({}, ...groups.map((g) => g.shipped)), "the shipped provider catalogue")
)

/** Why an op that fetches has no shipped mapping (it stays on its default route unless an operator maps it). */
export const unmapped: Readonly<Record<string, string>> = {
  ...Object.assign({}, ...groups.map((g) => g.unmapped)),
  "contacts.reveal":
    "priced per contact part (D10): one row per person with parts bought separately; no actor sells parts",
  "explore.run": "served through PROVIDER_EXPLORE (its sources are actors named by the caller), not a mapping"
}

/** The ops of a platform that fetch and have no native adapter: what the catalogue must map or explain. */
const nativePlatforms = new Set(["storefronts", "forum"])

/**
 * The catalogue as a Markdown document (docs/provider-catalogue.md, checked against this by a test): a summary, then
 * one line per op that fetches — mapped (actor, its page, price per item and per run, what is not mapped) or not (why).
 */
export const markdown = (): string => {
  const cell = (s: string) => s.replace(/\|/g, "\\|").replace(/\s+/g, " ").trim()
  const ops = Catalogue.platforms
    .filter((p) => !nativePlatforms.has(p.id))
    .flatMap((p) => p.ops.filter((o) => o.price._tag !== "Free").map((o) => `${p.id}.${o.name}`))
  const mapped = ops.filter((k) => k in mappings)
  const platforms = new Set(mapped.map((k) => k.split(".")[0]))
  const lines = [
    "# The provider catalogue",
    "",
    "Generated from `packages/upstream-http/src/provider-catalogue/` (`pnpm --filter @pdr/upstream-http catalogue`);",
    "a test fails when this file and the catalogue differ. Every actor field, input and price was read on the page",
    "linked (cited beside each mapping in the source, with a recorded-shape item per actor in",
    "`packages/upstream-http/test/fixtures/provider/`).",
    "",
    `Mapped: ${mapped.length} of the ${ops.length} ops that fetch on platforms without a native adapter, on ${platforms.size} platforms.`,
    "",
    "| op | actor | USD per item | USD per run | not mapped, and why |",
    "| --- | --- | --- | --- | --- |",
    ...ops.map((k) => {
      const m = mappings[k]
      if (m === undefined) return `| \`${k}\` | none | | | ${cell(unmapped[k] ?? "")} |`
      const actor = m.docs === undefined ? `\`${m.actor}\`` : `[\`${m.actor}\`](${m.docs})`
      return `| \`${k}\` | ${actor} | ${m.usdPerItem} | ${m.usdPerRun} | ${cell(m.notMapped ?? "")} |`
    }),
    ""
  ]
  return lines.join("\n")
}
