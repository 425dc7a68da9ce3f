/**
 * The provider catalogue shipped with the service (issue 20): for an op no native adapter serves, the public actor of
 * the hosted provider that serves it, read from the actor's page in the provider's store (cited per mapping): its
 * input template, its row mapping and its price per item. Operators override or add mappings with PROVIDER_MAPPINGS
 * (a file) or PROVIDER_OPS (JSON). Ops not listed stay on their default route; `unmapped` says why.
 *
 * Every input field, output field and price below was read on the cited page; nothing is guessed. Each mapping has a
 * recorded-shape item in test/fixtures/provider/<actor>.json built from that page's output and a mapping test.
 */
import { Catalogue, Pricing } from "@pdr/domain"
import { Either } from "effect"
import * as Mapping from "./Mapping.js"
import * as Explore from "./provider-catalogue/Explore.js"
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

/** The explore sources shipped with the provider (explore `run` serves them unless PROVIDER_EXPLORE says otherwise). */
export const exploreSources = Explore.sources

/**
 * Whether the shipped catalogue serves an op that fetches: a mapping, or for explore `run` (rows raw, no mapping,
 * D11) the shipped explore sources.
 */
export const shipped = (op: Catalogue.OpDef): boolean =>
  Catalogue.runsSource(op) ? exploreSources.length > 0 : `${op.platform}.${op.name}` in mappings

/** Why an op that fetches has no shipped mapping (it stays on its default route unless an operator maps it). */
export const unmapped: Readonly<Record<string, string>> = {
  ...Object.assign({}, ...groups.map((g) => g.unmapped)),
  "contacts.reveal":
    "priced per contact part (D10): one row per person with the email and the phone bought separately, and no actor sells the parts: every contact actor read charges per profile enriched, whatever it finds (lead_king~linkedin-contact-enricher, from $35.00 or $50.00 / 1,000 profile enricheds on two copies of its page; olympus~linkedin-profile-enricher, from $5.00 / 1,000 results; enrichmentlabs~linkedin-data-enrichment-api, $10.00 / 1,000 results), or publishes work emails only (automation-lab~linkedin-profile-contact-enricher, no phone); a per-part price would be guessed"
}

/** The ops of a platform that fetch and have no native adapter: what the catalogue must map or explain. */
const nativePlatforms = new Set(["storefronts", "forum"])

/**
 * The catalogue as a Markdown document (docs/provider-catalogue.md, checked against this by a test): a summary, then
 * one line per op that fetches — mapped (actor, its page, price per item and per run, what is not mapped) or not (why).
 */
export const markdown = (): string => {
  const cell = (s: string) => s.replace(/\|/g, "\\|").replace(/\s+/g, " ").trim()
  const defs = Catalogue.platforms
    .filter((p) => !nativePlatforms.has(p.id))
    .flatMap((p) => p.ops.filter((o) => !Pricing.isFree(o.price)))
  const ops = defs.map((o) => `${o.platform}.${o.name}`)
  const mapped = defs.filter(shipped).map((o) => `${o.platform}.${o.name}`)
  const platforms = new Set(mapped.map((k) => k.split(".")[0]))
  const priced = ({ credits, rows }: { readonly credits: number; readonly rows: number }) =>
    `${credits} credit${credits === 1 ? "" : "s"} per ${rows === 1 ? "row" : `${rows} rows`}`
  const sourceLine = (o: Catalogue.OpDef) => {
    const actors = exploreSources.map((s) => `[\`${s.actor}\`](${s.docs})`).join(", ")
    const prices = exploreSources.map((s) => s.usdPerItem).join(", ")
    const each = exploreSources.map((s) => `${s.actor}: ${priced(s.price)}; input ${s.input}`).join("; ")
    return `| \`${o.platform}.${o.name}\` | ${actors} | ${prices} | 0 | ${cell(`explore sources shipped as PROVIDER_EXPLORE's default (PROVIDER_EXPLORE replaces them): the caller's input is forwarded as the source's page documents it and rows come back raw (D11), so there is no row mapping; each source's price pays for its actor's items at PROVIDER_USD_PER_CREDIT=0.001 (a lower value that cannot pay stops the start). ${each}`)} |`
  }
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
    ...defs.map((o) => {
      if (Catalogue.runsSource(o) && exploreSources.length > 0) return sourceLine(o)
      const k = `${o.platform}.${o.name}`
      const m = mappings[k]
      if (m === undefined) return `| \`${k}\` | none | | | ${cell(unmapped[k] ?? "")} |`
      const actor = m.docs === undefined ? `\`${m.actor}\`` : `[\`${m.actor}\`](${m.docs})`
      return `| \`${k}\` | ${actor} | ${m.usdPerItem} | ${m.usdPerRun} | ${cell(m.notMapped ?? "")} |`
    }),
    ""
  ]
  return lines.join("\n")
}
