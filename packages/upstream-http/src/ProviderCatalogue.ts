/**
 * The provider catalogue shipped with the service (issue 20): for an op no native adapter serves, the public actor of
 * the hosted provider that serves it, read from the actor's page in the provider's store (cited per mapping): its
 * input template, its row mapping and its price per item. Operators override or add mappings with PROVIDER_MAPPINGS
 * (a file) or PROVIDER_OPS (JSON). Ops not listed stay on their default route; `unmapped` says why.
 *
 * Every input field, output field and price below was read on the cited page; nothing is guessed. Each mapping has a
 * recorded-shape item in test/fixtures/provider/<actor>.json built from that page's output and a mapping test.
 */
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
